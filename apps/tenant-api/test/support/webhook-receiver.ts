// A tenant's webhook receiver on 127.0.0.1: records every request (headers and the raw body) and answers
// with scripted statuses (then 204), so tests can check signatures the way a client would.
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySignature } from '@cr/webhooks';

export interface ReceivedWebhook {
  path: string;
  id: string;
  timestamp: string;
  signature: string;
  contentType: string | undefined;
  body: string;
}

export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  /** Statuses for the next requests, in order (0: never answer); afterwards 204. */
  script: number[] = [];
  private readonly hanging = new Set<import('node:http').ServerResponse>();
  private server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.received.push({
          path: req.url ?? '',
          id: String(req.headers['webhook-id'] ?? ''),
          timestamp: String(req.headers['webhook-timestamp'] ?? ''),
          signature: String(req.headers['webhook-signature'] ?? ''),
          contentType: req.headers['content-type'],
          body: Buffer.concat(chunks).toString('utf8'),
        });
        const status = this.script.shift() ?? 204;
        if (status === 0) {
          this.hanging.add(res);
          return;
        }
        res.statusCode = status;
        res.end();
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks/hacienda`;
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }

  /** Whether `secret` verifies the request, judged at the request's own timestamp (or `now`, unix seconds). */
  verifies(hook: ReceivedWebhook, secret: string, now = Number(hook.timestamp)): boolean {
    return verifySignature(
      secret,
      { id: hook.id, timestamp: hook.timestamp, signature: hook.signature },
      hook.body,
      { now },
    );
  }
}
