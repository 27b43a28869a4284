// The embedded default: PostgreSQL compiled to WASM, persisted under the service's data directory (or in
// memory for tests). PGlite runs one session; its own mutex serialises queries and transactions.
import { mkdirSync } from 'node:fs';
import { PGlite, types } from '@electric-sql/pglite';
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
      const r = await handle.query<R>(sql, params, { parsers });
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
  return {
    kind: 'pglite',
    query: base.query,
    exec: base.exec,
    transaction: <T>(fn: (tx: Queryable) => Promise<T>) =>
      db.transaction((tx) => fn(wrap(tx as unknown as PgliteLike))),
    close: () => db.close(),
  };
}
