// One process at a time opens an embedded data directory. PGlite takes no lock of its own (it writes no
// postmaster.pid), and a second process that opened a directory another was writing left a WAL the next start
// could not replay ("xlog flush request … is not satisfied"): every stored document lost (the crash audit
// of 2026-12-07: a second tenant-api started on the same DATA_DIR, failed on its port, and had already
// opened the database). The lock is a listening socket named after the directory, which the kernel closes
// when its process ends, however it ends: no stale lock after a SIGKILL, no timeout to guess. On Linux it is
// an abstract socket and on Windows a named pipe, neither a file; elsewhere a socket file in the temporary
// directory, which a killed process leaves behind, so a refused listen first asks whether anyone answers.
import { createHash } from 'node:crypto';
import { existsSync, realpathSync, unlinkSync } from 'node:fs';
import { type Server, createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';

export class DataDirInUseError extends Error {
  constructor(dataDir: string, waitedMs: number) {
    super(
      `${dataDir} is open in another process (still after ${Math.round(waitedMs / 1000)} s): one process at a ` +
        'time may open an embedded database. Stop the other one, give this one another data directory, or use ' +
        'PostgreSQL (DATABASE_URL) to run several.',
    );
    this.name = 'DataDirInUseError';
  }
}

/** The directory as every process names it: symbolic links resolved, a part that does not exist yet kept. */
function canonical(path: string): string {
  const absolute = resolve(path);
  if (existsSync(absolute)) return realpathSync(absolute);
  const parent = dirname(absolute);
  return parent === absolute ? absolute : join(canonical(parent), basename(absolute));
}

/** The socket that stands for `dataDir`'s lock. */
export function lockAddress(dataDir: string, platform: NodeJS.Platform = process.platform): string {
  const key = createHash('sha256').update(canonical(dataDir)).digest('hex').slice(0, 32);
  const name = `cr-einvoice-pglite-${key}`;
  if (platform === 'linux') return `\0${name}`;
  if (platform === 'win32') return `\\\\.\\pipe\\${name}`;
  return join(tmpdir(), `${name}.sock`);
}

function listen(address: string): Promise<Server | 'in-use'> {
  return new Promise((resolveListen, reject) => {
    // A prober (below) is answered by being hung up on.
    const server = createServer((socket) => socket.destroy());
    server.once('error', (err: NodeJS.ErrnoException) =>
      err.code === 'EADDRINUSE' ? resolveListen('in-use') : reject(err),
    );
    server.listen(address, () => resolveListen(server));
  });
}

/** Whether a process listens at a socket file (one killed before it closed its server leaves the file). */
function answers(address: string): Promise<boolean> {
  return new Promise((resolveProbe) => {
    const probe = createConnection(address);
    probe.once('connect', () => {
      probe.destroy();
      resolveProbe(true);
    });
    probe.once('error', () => resolveProbe(false));
  });
}

async function tryLock(address: string): Promise<Server | undefined> {
  const first = await listen(address);
  if (first !== 'in-use') return first;
  // An abstract socket or a pipe goes with its process: in use means a process holds it.
  if (address.startsWith('\0') || address.startsWith('\\\\.\\pipe\\')) return undefined;
  if (await answers(address)) return undefined;
  unlinkSync(address);
  const second = await listen(address);
  return second === 'in-use' ? undefined : second;
}

export interface DataDirLock {
  release(): Promise<void>;
}

/**
 * Takes `dataDir`'s lock, waiting up to `waitMs` for another process to let go (a restart whose predecessor is
 * still draining), else throws DataDirInUseError. The lock does not keep the process alive.
 */
export async function lockDataDir(
  dataDir: string,
  options: { waitMs?: number; onWait?: () => void; platform?: NodeJS.Platform } = {},
): Promise<DataDirLock> {
  const address = lockAddress(dataDir, options.platform);
  const waitMs = options.waitMs ?? 15_000;
  const started = Date.now();
  let told = false;
  for (;;) {
    const server = await tryLock(address);
    if (server) {
      server.unref();
      return { release: () => new Promise((done) => server.close(() => done())) };
    }
    if (Date.now() - started >= waitMs) throw new DataDirInUseError(dataDir, Date.now() - started);
    if (!told) {
      told = true;
      options.onWait?.();
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
