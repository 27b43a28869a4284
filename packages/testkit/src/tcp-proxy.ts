// A TCP proxy in front of a real server that a test can make go silent: connections stay open and nothing is
// forwarded either way, as when a database host freezes or a network path drops packets without a reset.
import { type Server, type Socket, createServer, connect } from 'node:net';

export interface TcpProxy {
  /** The port the proxy listens on (127.0.0.1). */
  readonly port: number;
  /** Stops forwarding on every connection, open and new; nothing is closed. */
  freeze(): void;
  /** Forwards again, what waited included. */
  thaw(): void;
  /** Connections accepted so far. */
  readonly accepted: number;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let frozen = false;
  let accepted = 0;
  const pairs = new Set<[Socket, Socket]>();
  // What arrived while frozen, per direction, written on thaw in the order it came.
  const held: Array<{ to: Socket; chunk: Buffer }> = [];
  const forward = (from: Socket, to: Socket): void => {
    from.on('data', (chunk: Buffer) => {
      if (frozen) held.push({ to, chunk });
      else to.write(chunk);
    });
  };
  const server: Server = createServer((inbound) => {
    accepted += 1;
    const outbound = connect(target.port, target.host);
    const pair: [Socket, Socket] = [inbound, outbound];
    pairs.add(pair);
    forward(inbound, outbound);
    forward(outbound, inbound);
    const end = (): void => {
      pairs.delete(pair);
      inbound.destroy();
      outbound.destroy();
    };
    inbound.on('error', end).on('close', end);
    outbound.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    get accepted() {
      return accepted;
    },
    freeze() {
      frozen = true;
    },
    thaw() {
      frozen = false;
      for (const { to, chunk } of held.splice(0)) if (!to.destroyed) to.write(chunk);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const [a, b] of pairs) {
          a.destroy();
          b.destroy();
        }
        server.close(() => resolve());
      }),
  };
}
