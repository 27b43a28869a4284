// A new data directory's cluster appears whole or not at all (ADR 0061). PGlite creates a cluster by writing
// ~970 files into the directory over a few hundred milliseconds, PG_VERSION near the end but not last, and
// without a flush. A service killed (or a machine lost) in that window left a directory that later starts
// either took for a database (PG_VERSION there, the rest partial) or handed back to PGlite to write over. The
// cluster is now made in a directory of its own, flushed, and put in place: a new data directory in one rename,
// an existing one (a mounted volume) entry by entry with PG_VERSION last. A directory without PG_VERSION is
// never a database, so what an unfinished creation left there is cleared.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { flushPath, flushTree } from './flush-tree';

const execFileAsync = promisify(execFile);

/** What a PostgreSQL cluster made by PGlite holds at its top level (PG_VERSION aside). */
const CLUSTER_ENTRIES = new Set([
  'base',
  'global',
  'pg_commit_ts',
  'pg_dynshmem',
  'pg_hba.conf',
  'pg_ident.conf',
  'pg_logical',
  'pg_multixact',
  'pg_notify',
  'pg_replslot',
  'pg_serial',
  'pg_snapshots',
  'pg_stat',
  'pg_stat_tmp',
  'pg_subtrans',
  'pg_tblspc',
  'pg_twophase',
  'pg_wal',
  'pg_xact',
  'postgresql.auto.conf',
  'postgresql.conf',
  'postmaster.opts',
  'postmaster.pid',
]);

const CREATING = '.creating-';

/**
 * Runs PGlite's cluster creation in a child process. PGlite's initdb runs a second WASM instance whose memory
 * (≈ 450 MB) the service's process would otherwise keep as RSS long after it is freed; run in a child, it is
 * returned to the system when the child exits, and the service opens an existing cluster.
 */
async function createClusterIn(dir: string): Promise<void> {
  const script =
    'const [, module, dir] = process.argv;' +
    'require(module).PGlite.create({ dataDir: dir }).then((db) => db.close()).catch((err) => {' +
    ' console.error(err); process.exit(1); });';
  await execFileAsync(process.execPath, ['-e', script, require.resolve('@electric-sql/pglite'), dir], {
    env: { PATH: process.env.PATH ?? '' },
  });
  // PGlite creates the cluster without a flush; from here on every commit is flushed.
  flushTree(dir);
}

/** A fresh name for a cluster being made in `parent`; `prefix` lets an unfinished one be found and removed. */
function creatingDir(parent: string, prefix: string): string {
  return join(parent, `${prefix}${CREATING}${process.pid}-${randomBytes(4).toString('hex')}`);
}

/**
 * Clears what an unfinished creation left in `dataDir`; refuses a directory that holds anything else, which
 * is not ours to delete.
 */
function clearUnfinished(dataDir: string): void {
  const entries = readdirSync(dataDir);
  const foreign = entries.filter((name) => !CLUSTER_ENTRIES.has(name) && !name.startsWith(CREATING));
  if (foreign.length > 0) {
    throw new Error(
      `${dataDir} holds files that are not a database (${foreign.slice(0, 3).join(', ')}): ` +
        'move them away, or point the data directory elsewhere',
    );
  }
  for (const name of entries) rmSync(join(dataDir, name), { recursive: true, force: true });
}

/**
 * Makes the cluster inside an existing `dataDir` and moves it up, PG_VERSION last: a directory that exists may be
 * where a volume is mounted, or sit in a parent this process may not write, so it is never replaced.
 */
async function createClusterInside(dataDir: string): Promise<void> {
  const creating = creatingDir(dataDir, '');
  try {
    await createClusterIn(creating);
    for (const name of readdirSync(creating)) {
      if (name !== 'PG_VERSION') renameSync(join(creating, name), join(dataDir, name));
    }
    flushPath(dataDir);
    renameSync(join(creating, 'PG_VERSION'), join(dataDir, 'PG_VERSION'));
  } finally {
    rmSync(creating, { recursive: true, force: true });
  }
  flushPath(dataDir);
}

/**
 * The directory behind `given`: a symbolic link's target. A link whose target is missing (a disk not mounted) is
 * refused by name before any cluster is made; the rename below failed on it with a bare ENOTDIR.
 */
function directoryToOpen(given: string): string {
  if (existsSync(given)) return realpathSync(given);
  if (lstatSync(given, { throwIfNoEntry: false })?.isSymbolicLink()) {
    throw new Error(
      `${given} is a symbolic link to ${readlinkSync(given)}, which does not exist: ` +
        'create or mount it, or point the data directory elsewhere',
    );
  }
  return given;
}

/**
 * Creates the data directory's cluster unless it has one, and returns the directory PGlite is to open: the
 * link's target where the data directory is a symbolic link, which PGlite's file system cannot open through.
 * One data directory belongs to one process at a time.
 */
export async function ensureCluster(given: string): Promise<string> {
  const dataDir = directoryToOpen(given);
  if (existsSync(join(dataDir, 'PG_VERSION'))) return dataDir;
  const parent = dirname(dataDir);
  const prefix = `.${basename(dataDir)}`;
  for (const name of existsSync(parent) ? readdirSync(parent) : []) {
    if (name.startsWith(`${prefix}${CREATING}`)) rmSync(join(parent, name), { recursive: true, force: true });
  }
  if (existsSync(dataDir)) {
    clearUnfinished(dataDir);
    await createClusterInside(dataDir);
    return dataDir;
  }
  mkdirSync(parent, { recursive: true });
  // Made beside the data directory and renamed into place: its name appears with the whole cluster under it.
  const creating = creatingDir(parent, prefix);
  try {
    await createClusterIn(creating);
    renameSync(creating, dataDir);
  } finally {
    rmSync(creating, { recursive: true, force: true });
  }
  // The rename is an entry of the parent directory: flushed, the cluster's name survives a power loss too.
  flushPath(parent);
  return dataDir;
}
