// Which process listens on a loopback port, read from /proc. A port that freePort found free can be taken by
// another process before the child meant for it binds (two test runs side by side on one machine): the
// child then fails to listen, while its readiness poll is answered by the other run's server. Asking the
// kernel who holds the listening socket tells the two apart.
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

const LISTEN = '0A';

/**
 * The inodes of the sockets listening on `port` (any local address), from /proc/net/tcp and tcp6;
 * undefined where neither table can be read.
 */
function listeningInodes(port: number, procRoot: string): Set<string> | undefined {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  let read = false;
  for (const table of ['tcp', 'tcp6']) {
    let text: string;
    try {
      text = readFileSync(`${procRoot}/net/${table}`, 'utf8');
      read = true;
    } catch {
      continue;
    }
    // "sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …"
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[1]?.endsWith(`:${hexPort}`) && fields[3] === LISTEN && fields[9]) inodes.add(fields[9]);
    }
  }
  return read ? inodes : undefined;
}

/**
 * Whether `pid` holds the socket listening on `port`: true or false on Linux, undefined where /proc
 * cannot tell (another system, a /proc without the socket tables, or the process has gone).
 */
export function listensOn(pid: number, port: number, procRoot = '/proc'): boolean | undefined {
  if (process.platform !== 'linux') return undefined;
  const inodes = listeningInodes(port, procRoot);
  if (!inodes) return undefined;
  let fds: string[];
  try {
    fds = readdirSync(`${procRoot}/${pid}/fd`);
  } catch {
    return undefined;
  }
  if (inodes.size === 0) return false;
  return fds.some((fd) => {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`${procRoot}/${pid}/fd/${fd}`))?.[1];
      return inode !== undefined && inodes.has(inode);
    } catch {
      return false; // closed while we looked
    }
  });
}
