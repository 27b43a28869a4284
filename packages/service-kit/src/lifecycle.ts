// Listening and graceful shutdown: on SIGINT/SIGTERM stop accepting, drain in-flight requests, then run the
// service's own closers (job workers, database) in order, with a deadline so a stuck close cannot hang.
import type { Server } from 'node:http';
import type { Express } from 'express';
import type { Logger } from './logger';

export interface RunningServer {
  server: Server;
  port: number;
  url: string;
  close(): Promise<void>;
}

/** Binds loopback unless told otherwise: reachable from other machines only when a setting says so. */
export function listen(app: Express, port: number, host = '127.0.0.1'): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host);
    server.keepAliveTimeout = 65_000;
    server.once('error', reject);
    server.once('listening', () => {
      const address = server.address();
      const actual = typeof address === 'object' && address ? address.port : port;
      resolve({
        server,
        port: actual,
        url: `http://${host === '0.0.0.0' ? 'localhost' : host}:${actual}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeIdleConnections();
          }),
      });
    });
  });
}

export function onShutdown(
  logger: Logger,
  closers: Array<() => Promise<void> | void>,
  deadlineMs = 10_000,
): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    const timer = setTimeout(() => {
      logger.error('shutdown deadline passed; exiting');
      process.exit(1);
    }, deadlineMs);
    timer.unref();
    for (const close of closers) {
      try {
        await close();
      } catch (err) {
        logger.error('error while shutting down', { err });
      }
    }
    process.exit(0);
  };
  // Every signal is handled, the later ones ignored: with `once`, a second SIGTERM (a process group signalled
  // as a whole, which a cluster's primary also forwards to its workers) found no handler and killed the
  // process in the middle of its drain, its claimed jobs left running until their leases ended.
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

/**
 * For `openDatabase`'s `onStopped`: the embedded database's thread stopped under the service (e.g. out of
 * memory), so every statement now fails. Logged, and the process exits with 1 instead of answering every
 * request with an error: a container runtime's restart policy (infra/compose.yaml) starts it again on a fresh
 * thread; `pnpm start` stops the whole stack, the service's last line saying why.
 */
export function exitWhenDatabaseStops(logger: Logger): (err: Error) => void {
  return (err) => {
    logger.error('the embedded database stopped; exiting so that the service is started again', { err });
    process.exit(1);
  };
}
