// One process at a time opens an embedded data directory: another process holding it (here a child that
// took the lock, as a second service would) makes the open wait and then refuse, before anything in the
// directory is touched; the lock goes with its process, however it ends.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirInUseError, openPglite } from '../src';
import { lockAddress, lockDataDir } from '../src/db/pglite-lock';

let scratch: string;
beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'pglite-lock-'));
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

/** A process listening at `address` (what holding a lock is), resolved once it listens. */
function holder(address: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `require('node:net').createServer((s) => s.destroy()).listen(${JSON.stringify(address)}, () => console.log('ready'))`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    child.stdout?.once('data', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`the holder exited (${code})`)));
  });
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

describe('the embedded data directory lock', () => {
  it('when another process holds the directory, then opening it waits, refuses naming the directory and touches nothing', async () => {
    const dataDir = join(scratch, 'db');
    const other = await holder(lockAddress(dataDir));
    try {
      const started = Date.now();
      const opening = openPglite({ dataDir, lockWaitMs: 600, maintenanceIntervalMs: false });
      await expect(opening).rejects.toBeInstanceOf(DataDirInUseError);
      await expect(opening).rejects.toThrow(`${dataDir} is open in another process`);
      expect(Date.now() - started).toBeGreaterThanOrEqual(600);
      // Not even the cluster was created: the holder's files are as it left them.
      expect(existsSync(dataDir)).toBe(false);
      expect(readdirSync(scratch)).toEqual([]);
    } finally {
      await killed(other);
    }
  });

  it('when the holder is killed (SIGKILL) while opening waits, then the directory opens at once, and its lock is released on close', async () => {
    const dataDir = join(scratch, 'db');
    const other = await holder(lockAddress(dataDir));
    const opening = openPglite({ dataDir, lockWaitMs: 30_000, maintenanceIntervalMs: false });
    await new Promise((r) => setTimeout(r, 300));
    await killed(other);
    const db = await opening;
    await db.exec('CREATE TABLE t (v int)');
    await db.close();
    const again = await openPglite({ dataDir, lockWaitMs: 0, maintenanceIntervalMs: false });
    expect((await again.query('SELECT count(*)::int AS n FROM t')).rows).toEqual([{ n: 0 }]);
    await again.close();
  });

  it('when two opens in one process name one directory, then the second is refused while the first is open', async () => {
    const dataDir = join(scratch, 'db');
    const first = await lockDataDir(dataDir, { waitMs: 0 });
    await expect(lockDataDir(join(scratch, '.', 'db'), { waitMs: 0 })).rejects.toBeInstanceOf(
      DataDirInUseError,
    );
    await first.release();
    await (await lockDataDir(dataDir, { waitMs: 0 })).release();
  });

  it('when the lock is a socket file (macOS and other systems), then a file left by a killed holder is taken over, and a live holder refuses', async () => {
    const dataDir = join(scratch, 'db');
    const address = lockAddress(dataDir, 'darwin');
    const live = await holder(address);
    await expect(lockDataDir(dataDir, { waitMs: 0, platform: 'darwin' })).rejects.toBeInstanceOf(
      DataDirInUseError,
    );
    await killed(live);
    expect(existsSync(address)).toBe(true);
    const lock = await lockDataDir(dataDir, { waitMs: 0, platform: 'darwin' });
    await lock.release();
    expect(existsSync(address)).toBe(false);
  });
});
