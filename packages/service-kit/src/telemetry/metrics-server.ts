// /metrics on its own port (METRICS_PORT), never on the public one: the gateway does not route to it, so
// operators scrape it from inside the network and tenants never see cross-tenant counts.
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger';
import { renderMetrics } from './metrics';

export interface MetricsServer {
  port: number;
  /** Where the listener is bound, as the socket reports it (`0.0.0.0:9401`, `127.0.0.1:9401`, `[::]:9401`). */
  listening: string;
  /** A URL this machine reaches it at (loopback when bound to every interface). */
  url: string;
  close(): Promise<void>;
}

export async function startMetricsServer(options: {
  port: number;
  host?: string;
  logger?: Logger;
  /** Default: this process's registry; a cluster primary passes its workers' aggregate. */
  render?: () => Promise<{ contentType: string; body: string }>;
}): Promise<MetricsServer> {
  const render = options.render ?? renderMetrics;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('only GET /metrics here\n');
      return;
    }
    render().then(
      ({ contentType, body }) => res.writeHead(200, { 'Content-Type': contentType }).end(body),
      (err: unknown) => {
        options.logger?.error('metrics scrape failed', { err });
        res.writeHead(500, { 'Content-Type': 'text/plain' }).end('metrics unavailable\n');
      },
    );
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  const { address, family, port } = server.address() as AddressInfo;
  const bound = family === 'IPv6' ? `[${address}]` : address;
  const local = address === '0.0.0.0' || address === '::' ? '127.0.0.1' : bound;
  return {
    port,
    listening: `${bound}:${port}`,
    url: `http://${local}:${port}/metrics`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
