// Which process listens on a loopback port, read from /proc. A port that freePort found free can be taken by
// another process before the child meant for it binds (two test runs side by side on one machine): the
// child then fails to listen, while its readiness poll is answered by the other run's server. Asking the
// kernel who holds the listening socket tells the two apart.
import { openFiles, readProcOrEmpty } from './process-cpu';

const LISTEN = '0A';

/**
 * The inodes of the sockets listening on `port` (any local address), from /proc/net/tcp and tcp6;
 * undefined where neither table can be read (a readable one always has its header line).
 */
function listeningInodes(port: number, procRoot: string): Set<string> | undefined {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const tables = ['tcp', 'tcp6'].map((table) => readProcOrEmpty(`${procRoot}/net/${table}`));
  if (tables.every((text) => text === '')) return undefined;
  const inodes = new Set<string>();
  // "sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …"
  for (const line of tables.flatMap((text) => text.split('\n').slice(1))) {
    const fields = line.trim().split(/\s+/);
    if (fields[1]?.endsWith(`:${hexPort}`) && fields[3] === LISTEN && fields[9]) inodes.add(fields[9]);
  }
  return inodes;
}

/**
 * Whether `pid` holds the socket listening on `port`: true or false on Linux, undefined where /proc
 * cannot tell (another system, a /proc without the socket tables, or the process has gone).
 */
export function listensOn(pid: number, port: number, procRoot = '/proc'): boolean | undefined {
  if (process.platform !== 'linux') return undefined;
  const inodes = listeningInodes(port, procRoot);
  const files = inodes && openFiles(pid, procRoot);
  if (!inodes || !files) return undefined;
  return files.some((file) => inodes.has(/^socket:\[(\d+)\]$/.exec(file)?.[1] ?? ''));
}
