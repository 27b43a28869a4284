// Whether a listener binds loopback only: the bind tests of the sandbox and of the metrics port ask it alike.
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';

/** Whether a TCP connection to host:port is accepted within 2 s. */
export function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(2000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Who a listener on `port` accepts: 127.0.0.1; another loopback address (127.0.0.2, which a listener bound to
 * 127.0.0.1 refuses); and the machine's network address (false when it has none).
 */
export async function whoReaches(
  port: number,
): Promise<{ loopback: boolean; otherLoopback: boolean; network: boolean }> {
  const external = Object.values(networkInterfaces())
    .flat()
    .find((a) => a && !a.internal && a.family === 'IPv4');
  return {
    loopback: await reachable('127.0.0.1', port),
    otherLoopback: await reachable('127.0.0.2', port),
    network: external ? await reachable(external.address, port) : false,
  };
}
