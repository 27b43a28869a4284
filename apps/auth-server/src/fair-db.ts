// PGlite runs PostgreSQL compiled to WASM on the main thread: every query executes synchronously, and its
// internal mutex hands the session to the next waiter in a microtask, so a queue of N login queries ran
// back to back in one turn of the event loop (a 64-connection login flood blocked it for 100–300 ms at a
// time, which is what made /health slow). This wrapper keeps its own FIFO of statements and starts each one
// in a fresh macrotask (setImmediate), so sockets are served between queries and no request waits behind
// more than one statement. A real PostgreSQL server (`pg`) is asynchronous I/O and is returned unchanged.
import type { Db, QueryResult, Queryable } from '@cr/service-kit';

const DIRECT = Symbol('direct');

/**
 * The handle underneath `fairDb`, for the readiness probe: a `SELECT 1` waits for at most the statement that
 * is running, not for the whole login queue, so /health answers promptly during a flood and still proves the
 * database answers.
 */
export function directDb(db: Db): Db {
  return (db as Db & { [DIRECT]?: Db })[DIRECT] ?? db;
}

export function fairDb(db: Db): Db {
  if (db.kind !== 'pglite' || DIRECT in db) return db;
  let tail: Promise<unknown> = Promise.resolve();
  const turn = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = tail.then(() => new Promise<void>((resolve) => setImmediate(resolve))).then(fn);
    tail = run.catch(() => undefined);
    return run;
  };
  const fair: Db & { [DIRECT]: Db } = {
    [DIRECT]: db,
    kind: db.kind,
    query: <R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<R>> =>
      turn(() => db.query<R>(sql, params)),
    exec: (sql: string) => turn(() => db.exec(sql)),
    // A transaction holds the session for all its statements (they go through `tx`, not this queue).
    transaction: <T>(fn: (tx: Queryable) => Promise<T>) => turn(() => db.transaction(fn)),
    close: () => turn(() => db.close()),
  };
  return fair;
}
