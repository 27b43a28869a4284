// A local HTTP service whose answers a test scripts in order (status, headers, body), recording every
// request: the network boundary of the transport tests (retries, Retry-After, token renewal).
import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Close the connection without answering. */
  hangUp?: boolean;
  /** The body as sent, instead of `body` as JSON. */
  rawBody?: string;
  /** Send the head and part of the body, then stall (never finish) or reset the connection. */
  cutBody?: 'stall' | 'reset';
}

export interface RecordedRequest {
  method: string;
  path: string;
  /** The query string, without `?` ('' when none). */
  query: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface FlakyService {
  url: string;
  requests: RecordedRequest[];
  /** Answers for a path, used in order; the last one repeats. */
  script(path: string, answers: ScriptedAnswer[]): void;
  close(): Promise<void>;
}

export async function startFlakyService(): Promise<FlakyService> {
  const scripts = new Map<string, ScriptedAnswer[]>();
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const [path = '/', query = ''] = (req.url ?? '/').split('?');
      requests.push({ method: req.method ?? 'GET', path, query, headers: req.headers, body, at: Date.now() });
      const list = scripts.get(path) ?? [{ status: 404, body: { error: 'not_found', message: 'no script' } }];
      const answer = list.length > 1 ? list.shift()! : list[0]!;
      if (answer.hangUp) {
        req.socket.destroy();
        return;
      }
      if (answer.cutBody) {
        res.writeHead(answer.status, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"status":"suc');
        if (answer.cutBody === 'reset') setTimeout(() => req.socket.destroy(), 50);
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(answer.rawBody ?? (answer.body === undefined ? '' : JSON.stringify(answer.body)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (path, answers) => scripts.set(path, [...answers]),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A JWT-shaped token (the SDK reads only `exp`; the service here does not verify). */
export function fakeJwt(exp: number, n = 0): string {
  const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${part({ alg: 'RS256', kid: 'k' })}.${part({ exp, n })}.c2ln`;
}
