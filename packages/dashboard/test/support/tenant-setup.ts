// A tenant made ready on the live stack as a client would do it, over HTTP: its client at the auth-server,
// its issuer (the sandbox's demo taxpayer), a webhook to a local receiver, and documents sent to Hacienda
// (the sandbox) and followed to their verdict.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { localhostFetch } from '@cr-einvoice/sdk/localhost';
import type { Stack } from '@cr/stack';

/** Reaches `http://acme.localhost:<port>` from Node (its resolver does not know *.localhost). */
export const tenantFetch = localhostFetch();

export interface Receiver {
  url: string;
  received: Array<{ headers: Record<string, unknown>; body: string }>;
  close(): Promise<void>;
}

export interface ReceiverOptions {
  /** What it answers every delivery: 200, or 410 Gone for a receiver that asks to be disabled. */
  status?: number;
}

export async function startReceiver(options: ReceiverOptions = {}): Promise<Receiver> {
  const status = options.status ?? 200;
  const received: Receiver['received'] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.statusCode = status;
      res.end(status === 200 ? 'ok' : '');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

export class TenantClient {
  private token = '';
  constructor(
    private readonly stack: Stack,
    readonly base: string,
    private readonly password: string,
  ) {}

  async login(): Promise<string> {
    const r = await fetch(`${this.stack.authUrl}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ base: this.base, password: this.password }),
    });
    if (r.status !== 200) throw new Error(`login ${this.base}: ${r.status}`);
    this.token = ((await r.json()) as { token: string }).token;
    return this.token;
  }

  /** A call to the tenant's host with its Bearer token. */
  async api<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const r = await tenantFetch(`${this.stack.tenantUrl(this.base)}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: r.status, body: (await r.json().catch(() => undefined)) as T };
  }

  /** Sends a document and waits for Hacienda's final answer; returns its clave. */
  async submitAndWait(
    doc: Record<string, unknown>,
    timeoutMs = 60_000,
  ): Promise<{ clave: string; estado: string }> {
    const sent = await this.api<{ clave: string }>('POST', '/api/enviar/items', doc);
    if (sent.status !== 200) throw new Error(`enviar: ${sent.status} ${JSON.stringify(sent.body)}`);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = await this.api<{ data: { estado: string } }>('POST', '/api/consultar/documento', {
        clave: sent.body.clave,
      });
      const estado = found.body.data.estado;
      if (['aceptado', 'rechazado', 'error'].includes(estado)) return { clave: sent.body.clave, estado };
      if (Date.now() > deadline) throw new Error(`document ${sent.body.clave} still ${estado}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
