// A client's webhook endpoint on 127.0.0.1: keeps each delivery's raw body and headers, for the test to
// verify with verifyWebhook as a real receiver would.
import { type IncomingHttpHeaders, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  body: string;
  headers: IncomingHttpHeaders;
}

export interface WebhookReceiver {
  url: string;
  deliveries: Delivery[];
  /** Resolves with the first delivery `match` accepts (checked against past and future ones). */
  waitFor(match: (d: Delivery) => boolean, timeoutMs?: number): Promise<Delivery>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const deliveries: Delivery[] = [];
  const waiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      body += c;
    });
    req.on('end', () => {
      deliveries.push({ body, headers: req.headers });
      res.writeHead(204).end();
      for (const w of waiters.splice(0)) w();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    deliveries,
    waitFor(match, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no matching webhook delivery in time')), timeoutMs);
        const check = () => {
          const found = deliveries.find(match);
          if (found) {
            clearTimeout(timer);
            resolve(found);
          } else waiters.push(check);
        };
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
