// The embedded default: PostgreSQL compiled to WASM, persisted under the service's data directory (or in
// memory for tests). PGlite runs one session; its own mutex serialises queries and transactions.
import { mkdirSync } from 'node:fs';
import { PGlite, types } from '@electric-sql/pglite';
import { traced } from './traced';
import type { Db, QueryResult, Queryable } from './types';

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

export async function openPglite(options: PgliteOptions = {}): Promise<Db> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const db = await PGlite.create({
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.extensions ? { extensions: options.extensions as never } : {}),
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
    transaction: <T>(fn: (tx: Queryable) => Promise<T>) =>
      turn(() => db.transaction((tx) => fn(wrap(tx as unknown as PgliteLike)))),
    async ping(): Promise<void> {
      await base.query('SELECT 1');
    },
    // The running statement counts as the session in use; the rest wait.
    poolStats: () => ({ total: 1, idle: queued === 0 ? 1 : 0, waiting: Math.max(0, queued - 1) }),
    close: () => turn(() => db.close()),
  };
}
