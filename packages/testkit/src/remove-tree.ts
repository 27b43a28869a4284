// Removes a test's scratch directory after the processes that used it have exited. Once, a clean-up after a
// tenant-api had exited failed with ENOTEMPTY inside its fresh PGlite data directory: something created a file
// there while `rmSync` was emptying it, and the error named nothing. A process that outlives the service it
// belongs to is a defect, so one found holding the directory (an open file, its working directory, or the path
// in its command line, as PGlite's initdb child has) fails the clean-up by name. Without one, the removal is
// tried again a few times and what was left is written to stderr, so that the next such failure leaves evidence.
import { readdirSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openFiles, readProcOrEmpty } from './process-cpu';

const RETRIES = 5;
const RETRY_DELAY_MS = 100;

function isLeftBehind(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOTEMPTY' || code === 'EBUSY' || code === 'EEXIST';
}

function readOrEmpty(read: () => string): string {
  try {
    return read();
  } catch {
    return ''; // the process exited meanwhile, or is not ours to read
  }
}

/** Processes (other than this one) whose open files, working directory or command line are under `dir`. */
export function processesHolding(dir: string): string[] {
  const root = resolve(dir);
  const under = (path: string) => path === root || path.startsWith(`${root}/`);
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid);
  } catch {
    return []; // not Linux: nothing to look at
  }
  const holders: string[] = [];
  for (const pid of pids) {
    const cmdline = readProcOrEmpty(`/proc/${pid}/cmdline`).split('\0');
    const cwd = readOrEmpty(() => readlinkSync(`/proc/${pid}/cwd`));
    const files = openFiles(pid) ?? [];
    const why = [
      ...files.filter(under).map((file) => `has ${file} open`),
      ...(under(cwd) ? [`works in ${cwd}`] : []),
      ...(cmdline.some((arg) => arg.includes(root)) ? ['names it in its command line'] : []),
    ];
    if (why.length) holders.push(`${pid} (${cmdline.join(' ').trim().slice(0, 120)}): ${why.join(', ')}`);
  }
  return holders;
}

/** Up to `limit` paths left under `dir`, with their modification times. */
function leftUnder(dir: string, limit = 20): string[] {
  const found: string[] = [];
  const walk = (path: string) => {
    if (found.length >= limit) return;
    let names: string[];
    try {
      names = readdirSync(path);
    } catch {
      return;
    }
    for (const name of names) {
      const child = join(path, name);
      const stat = readOrEmpty(() => statSync(child).mtime.toISOString());
      found.push(`${child.slice(dir.length + 1)} ${stat}`);
      if (found.length >= limit) return;
      walk(child);
    }
  };
  walk(dir);
  return found;
}

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** `remove` is the removal itself: its tests stand in one that meets a file created meanwhile. */
export function removeTree(
  dir: string,
  remove: (dir: string) => void = (path) => rmSync(path, { recursive: true, force: true }),
): void {
  for (let attempt = 0; ; attempt++) {
    try {
      remove(dir);
      return;
    } catch (err) {
      if (!isLeftBehind(err)) throw err;
      const holders = processesHolding(dir);
      const left = leftUnder(dir);
      const what = `${(err as Error).message}; left under it: ${left.join('; ') || 'nothing'}`;
      if (holders.length)
        throw new Error(`${dir} is still in use after its processes exited: ${holders.join('; ')}. ${what}`);
      if (attempt === RETRIES) throw new Error(`${dir} could not be removed: ${what}`);
      process.stderr.write(`removeTree: no process holds ${dir}, trying again: ${what}\n`);
      pause(RETRY_DELAY_MS);
    }
  }
}
