import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPglite } from '../src';

/** A scratch parent directory for one test, removed after it. */
async function inScratch(fn: (parent: string) => Promise<void>): Promise<void> {
  const parent = mkdtempSync(join(tmpdir(), 'pglite-cluster-'));
  try {
    await fn(parent);
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
}

/** Mounts a tmpfs at `dir` if this user may (root, as in CI's container); false if refused. */
function mountTmpfs(dir: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256m', 'none', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The data directory holds a cluster and nothing a creation left behind (its `.creating-` directories). */
function expectWholeCluster(dataDir: string): void {
  expect(readdirSync(dataDir)).toContain('PG_VERSION');
  expect(readdirSync(dataDir).filter((name) => name.startsWith('.'))).toEqual([]);
}

/** Opens the data directory, writes and reads a row back: the cluster works. */
async function usable(dataDir: string): Promise<void> {
  const db = await openPglite({ dataDir, maintenanceIntervalMs: false });
  try {
    await db.exec('CREATE TABLE t (v text); INSERT INTO t VALUES ($$kept$$)');
    expect((await db.query<{ v: string }>('SELECT v FROM t')).rows).toEqual([{ v: 'kept' }]);
  } finally {
    await db.close();
  }
}

describe('a new data directory gets its cluster whole or not at all (ADR 0061)', () => {
  it(
    'when a new directory is opened, then its name appears only with the whole cluster under it, and nothing is left beside it',
    () =>
      inScratch(async (parent) => {
        const dataDir = join(parent, 'db');
        // PGlite writes the cluster over a few hundred milliseconds; a service killed meanwhile left a partial one.
        const seenWithoutVersion: number[] = [];
        const watch = setInterval(() => {
          if (existsSync(dataDir) && !existsSync(join(dataDir, 'PG_VERSION')))
            seenWithoutVersion.push(Date.now());
        }, 2);
        try {
          await usable(dataDir);
        } finally {
          clearInterval(watch);
        }
        expect(seenWithoutVersion).toEqual([]);
        expect(readdirSync(parent)).toEqual(['db']);
      }),
    120_000,
  );

  it(
    'when a creation did not finish, then what it left is cleared and the cluster is made',
    () =>
      inScratch(async (parent) => {
        const dataDir = join(parent, 'db');
        // What a killed creation leaves: part of a cluster without PG_VERSION, a cluster being moved up inside it
        // (a volume's directory), one being made beside it.
        mkdirSync(join(dataDir, 'base'), { recursive: true });
        writeFileSync(join(dataDir, 'base', 'unfinished'), 'x');
        mkdirSync(join(dataDir, 'pg_wal'));
        mkdirSync(join(dataDir, '.creating-1-00aa00aa'));
        writeFileSync(join(dataDir, '.creating-1-00aa00aa', 'PG_VERSION'), '18\n');
        mkdirSync(join(parent, '.db.creating-2-00bb00bb'));
        writeFileSync(join(parent, '.db.creating-2-00bb00bb', 'PG_VERSION'), '18\n');
        await usable(dataDir);
        expect(readdirSync(parent)).toEqual(['db']);
        expect(existsSync(join(dataDir, 'base', 'unfinished'))).toBe(false);
        expectWholeCluster(dataDir);
      }),
    120_000,
  );

  it(
    'when the directory holds files that are not a database, then it is refused and they are kept',
    () =>
      inScratch(async (parent) => {
        const dataDir = join(parent, 'db');
        mkdirSync(dataDir);
        writeFileSync(join(dataDir, 'notes.txt'), 'mine');
        await expect(openPglite({ dataDir, maintenanceIntervalMs: false })).rejects.toThrow(
          `${dataDir} holds files that are not a database (notes.txt)`,
        );
        expect(readdirSync(dataDir)).toEqual(['notes.txt']);
        expect(readFileSync(join(dataDir, 'notes.txt'), 'utf8')).toBe('mine');
      }),
    60_000,
  );

  it(
    'when the data directory is a mounted file system, then its cluster is made in it',
    () =>
      inScratch(async (parent) => {
        const dataDir = join(parent, 'volume');
        mkdirSync(dataDir);
        if (!mountTmpfs(dataDir)) {
          console.warn(
            'skipped: this user may not mount a tmpfs; the existing empty directory below takes the same path',
          );
          return;
        }
        try {
          await usable(dataDir);
          expectWholeCluster(dataDir);
          expect(readdirSync(parent)).toEqual(['volume']);
        } finally {
          execFileSync('umount', [dataDir]);
        }
      }),
    120_000,
  );

  it(
    'when the data directory is a symbolic link to a directory elsewhere, then the cluster is made and opened there, and the link kept',
    () =>
      inScratch(async (parent) => {
        const elsewhere = join(parent, 'disk');
        mkdirSync(elsewhere);
        const dataDir = join(parent, 'db');
        symlinkSync(elsewhere, dataDir);
        await usable(dataDir);
        expect(lstatSync(dataDir).isSymbolicLink()).toBe(true);
        expectWholeCluster(elsewhere);
        expect(readdirSync(parent).sort()).toEqual(['db', 'disk']);
        const again = await openPglite({ dataDir, maintenanceIntervalMs: false });
        try {
          expect((await again.query<{ v: string }>('SELECT v FROM t')).rows).toEqual([{ v: 'kept' }]);
        } finally {
          await again.close();
        }
      }),
    120_000,
  );

  it('when the data directory is a symbolic link to nothing, then it is refused by name and the link kept', () =>
    inScratch(async (parent) => {
      const dataDir = join(parent, 'db');
      symlinkSync(join(parent, 'unmounted'), dataDir);
      await expect(openPglite({ dataDir, maintenanceIntervalMs: false })).rejects.toThrow(
        `${dataDir} is a symbolic link to ${join(parent, 'unmounted')}, which does not exist`,
      );
      expect(lstatSync(dataDir).isSymbolicLink()).toBe(true);
      expect(readdirSync(parent)).toEqual(['db']);
    }));

  it(
    'when an existing empty directory is opened, then the cluster is made inside it and moved up, and nothing is left',
    () =>
      inScratch(async (parent) => {
        const dataDir = join(parent, 'db');
        mkdirSync(dataDir);
        await usable(dataDir);
        expect(readdirSync(parent)).toEqual(['db']);
        expectWholeCluster(dataDir);
      }),
    120_000,
  );
});
