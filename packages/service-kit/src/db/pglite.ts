// The embedded default: PostgreSQL compiled to WASM, persisted under the service's data directory (or in
// memory for tests). PGlite runs one session; its own mutex serialises queries and transactions.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PGlite, types } from '@electric-sql/pglite';
import { traced } from './traced';
import type { Db, QueryResult, Queryable, TransactionOptions } from './types';

export interface PgliteOptions {
  /** Directory for the data files; omitted → in memory. */
  dataDir?: string;
  /** PGlite extensions (e.g. pg_trgm, unaccent) keyed by name. */
  extensions?: Record<string, unknown>;
}

// Same value shapes as our node-postgres settings: int8 and numeric as strings, date as a string.
const parsers = {
  [types.INT8]: (v: string) => v,
  [types.NUMERIC]: (v: string) => v,
  [types.DATE]: (v: string) => v,
};

interface PgliteLike {
  query<R>(sql: string, params?: unknown[], options?: unknown): Promise<{ rows: R[]; affectedRows?: number }>;
  exec(sql: string): Promise<unknown>;
}

function wrap(handle: PgliteLike): Queryable {
  return {
    async query<R>(sql: string, params?: unknown[]): Promise<QueryResult<R>> {
      const r = await traced('pglite', sql, () => handle.query<R>(sql, params, { parsers }));
      return { rows: r.rows, rowCount: r.affectedRows || r.rows.length };
    },
    async exec(sql: string): Promise<void> {
      await handle.exec(sql);
    },
  };
}

// PGlite's default shared_buffers is 160 MB of WASM heap, sized for a database server, not for an embedded
// default whose working set is a few thousand documents. Measured on 50,000 2-KB rows: WASM memory 198 → 138
// MB and process RSS 325 → 179 MB with 16 MB (docs/performance.md, "PGlite memory").
export const PGLITE_SETTINGS = ['shared_buffers=16MB', 'wal_buffers=1MB', 'temp_buffers=2MB'];

const execFileAsync = promisify(execFile);

/**
 * Creates the cluster of a new data directory in a child process. PGlite's initdb runs a second WASM instance
 * whose memory (≈ 450 MB) the service's process would otherwise keep as RSS long after it is freed; run in a
 * child, it is returned to the system when the child exits, and the service opens an existing cluster.
 */
async function initialiseDataDir(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  mkdirSync(dataDir, { recursive: true });
  const script =
    'const [, module, dir] = process.argv;' +
    'require(module).PGlite.create({ dataDir: dir }).then((db) => db.close()).catch((err) => {' +
    ' console.error(err); process.exit(1); });';
  await execFileAsync(process.execPath, ['-e', script, require.resolve('@electric-sql/pglite'), dataDir], {
    env: { PATH: process.env.PATH ?? '' },
  });
}

export async function openPglite(options: PgliteOptions = {}): Promise<Db> {
  if (options.dataDir) await initialiseDataDir(options.dataDir);
  const db = await PGlite.create({
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.extensions ? { extensions: options.extensions as never } : {}),
    postgresqlconf: PGLITE_SETTINGS,
  });
  const base = wrap(db as unknown as PgliteLike);
  // PGlite executes each statement synchronously on the main thread, and its mutex hands the session to the
  // next waiter in a microtask: N queued statements used to run back to back in one event-loop turn (a login
  // flood blocked the loop for 100-460 ms, stalling /health). Statements therefore wait in our own FIFO and
  // each starts in a fresh macrotask, so sockets are served between them. A transaction holds the session
  // for all its statements, which go through its own `tx`.
  let tail: Promise<unknown> = Promise.resolve();
  let queued = 0;
  const turn = <T>(fn: () => Promise<T>): Promise<T> => {
    queued += 1;
    const run = tail
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(fn)
      .finally(() => {
        queued -= 1;
      });
    tail = run.catch(() => undefined);
    return run;
  };
  return {
    kind: 'pglite',
    query: <R>(sql: string, params?: unknown[]) => turn(() => base.query<R>(sql, params)),
    exec: (sql: string) => turn(() => base.exec(sql)),
    transaction: <T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions) =>
      turn(() =>
        db.transaction(async (raw) => {
          const tx = wrap(raw as unknown as PgliteLike);
          if (options?.begin) await tx.exec(options.begin);
          return fn(tx);
        }),
      ),
    async ping(): Promise<void> {
      await base.query('SELECT 1');
    },
    // The running statement counts as the session in use; the rest wait.
    poolStats: () => ({ total: 1, idle: queued === 0 ? 1 : 0, waiting: Math.max(0, queued - 1) }),
    close: () => turn(() => db.close()),
  };
}
