// The embedded default: PostgreSQL compiled to WASM, persisted under the service's data directory (or in
// memory for tests), run in a thread of its own (ADR 0039). PGlite has one session: queries and transactions
// take it in turn.
import type { Logger } from '../logger';
import { ensureCluster } from './pglite-cluster';
import { type DataDirLock, lockDataDir } from './pglite-lock';
import { startPgliteMaintenance } from './pglite-maintenance';
import { OneStatementRefusals } from './one-statement';
import { PgliteThread } from './pglite-thread';
import { traced } from './traced';
import type { Db, QueryResult, Queryable, TransactionOptions } from './types';

export interface PgliteOptions {
  /** Directory for the data files; omitted → in memory. */
  dataDir?: string;
  /**
   * Told once if the database's thread fails or exits while open (e.g. out of memory): every statement fails
   * from then on. The services log it and exit, so what supervises them starts them again (ADR 0039).
   */
  onStopped?: (err: Error) => void;
  /** The thread's old generation in MB (V8's default when omitted): beyond it the thread stops, not the process. */
  threadHeapMb?: number;
  /**
   * The vacuum and analyse PostgreSQL's autovacuum would do (pglite-maintenance.ts, ADR 0041): how often the
   * statistics are read (default 10 s), `false` for none.
   */
  maintenanceIntervalMs?: number | false;
  /** Where maintenance reports what it did (debug) and what failed (warn), and a wait for the lock (info). */
  logger?: Logger;
  /**
   * How long to wait for another process to close `dataDir` (default 15 s: a restart whose predecessor is still
   * draining) before refusing to open it (pglite-lock.ts).
   */
  lockWaitMs?: number;
}

// PGlite's default shared_buffers is 160 MB of WASM heap, sized for a database server, not for an embedded
// default whose working set is a few thousand documents. Measured on 50,000 2-KB rows: WASM memory 198 → 138
// MB and process RSS 325 → 179 MB with 16 MB (docs/performance.md, "PGlite memory").
// default_statistics_target: ANALYZE (ADR 0041) samples 300 rows per unit, and the WebAssembly memory it
// touches stays resident: on a 20,000-row table RSS grew 42 MB at PostgreSQL's 100 and 6 MB at 10, which still
// gives the planner 3,000 sampled rows and 10 common values per column for tables like ours.
export const PGLITE_SETTINGS = [
  'shared_buffers=16MB',
  'wal_buffers=1MB',
  'temp_buffers=2MB',
  'default_statistics_target=10',
];

export async function openPglite(options: PgliteOptions = {}): Promise<Db> {
  // Taken before anything in the directory is read or written, the creation of its cluster included.
  const lock = options.dataDir ? await lockFor(options.dataDir, options) : undefined;
  let thread: PgliteThread;
  try {
    const dataDir = options.dataDir ? await ensureCluster(options.dataDir) : undefined;
    thread = await PgliteThread.start(
      { ...(dataDir ? { dataDir } : {}), settings: PGLITE_SETTINGS },
      {
        ...(options.onStopped ? { onStopped: options.onStopped } : {}),
        ...(options.threadHeapMb ? { heapMb: options.threadHeapMb } : {}),
      },
    );
  } catch (err) {
    await lock?.release();
    throw err;
  }
  let transactions = 0;
  const session = (tx?: number): Queryable => ({
    async query<R>(sql: string, params?: unknown[]): Promise<QueryResult<R>> {
      const r = await traced('pglite', sql, () =>
        thread.send({ op: 'query', sql, ...(params ? { params } : {}), ...(tx === undefined ? {} : { tx }) }),
      );
      return { rows: r.rows as R[], rowCount: r.rowCount };
    },
    async exec(sql: string): Promise<void> {
      await thread.send({ op: 'exec', sql, ...(tx === undefined ? {} : { tx }) });
    },
  });
  const base = session();
  /** The `begin` statements as the one `sql` the thread runs first (begin and transaction messages). */
  const opening = (options?: TransactionOptions) =>
    options?.begin?.length ? { sql: options.begin.join(';\n') } : {};
  /**
   * The callback's one statement is the transaction (ADR 0047): its opening, the statement and COMMIT go to the
   * thread in one message. A second statement or an exec is refused, and fails the transaction.
   */
  const oneStatementTransaction = async <T>(
    fn: (tx: Queryable) => Promise<T>,
    options: TransactionOptions,
  ): Promise<T> => {
    const begin = opening(options);
    let sent: Promise<{ rows: unknown[]; rowCount: number }> | undefined;
    const refusals = new OneStatementRefusals();
    const tx: Queryable = {
      async query<R>(sql: string, params?: unknown[]): Promise<QueryResult<R>> {
        if (sent || refusals.refused) return refusals.secondStatement();
        const answered = thread.send({
          op: 'transaction',
          ...begin,
          statement: { sql, ...(params ? { params } : {}) },
        });
        sent = answered;
        const r = await traced('pglite', sql, () => answered);
        return { rows: r.rows as R[], rowCount: r.rowCount };
      },
      exec: () => refusals.exec(),
    };
    let result: T;
    try {
      result = await fn(tx);
    } catch (err) {
      await sent?.catch(() => undefined); // the thread finishes it before the session's next turn
      throw err;
    }
    if (refusals.refused) throw refusals.refused;
    // A statement error the callback swallowed still fails the transaction; with no statement, the opening runs
    // and commits, so its errors are reported.
    await (sent ?? thread.send({ op: 'transaction', ...begin }));
    return result;
  };
  // PGlite has one session. A statement or a transaction takes it in turn, in order of arrival, so the thread
  // holds at most the one running and a ping (below) waits for that one only, not for the queue.
  let tail: Promise<unknown> = Promise.resolve();
  let queued = 0;
  const turn = <T>(fn: () => Promise<T>): Promise<T> => {
    queued += 1;
    const run = tail.then(fn).finally(() => {
      queued -= 1;
    });
    tail = run.catch(() => undefined);
    return run;
  };
  const query = <R>(sql: string, params?: unknown[]) => turn(() => base.query<R>(sql, params));
  const exec = (sql: string) => turn(() => base.exec(sql));
  const maintenance =
    options.maintenanceIntervalMs === false
      ? undefined
      : startPgliteMaintenance(
          { query, exec },
          {
            ...(options.maintenanceIntervalMs ? { intervalMs: options.maintenanceIntervalMs } : {}),
            ...(options.logger ? { logger: options.logger } : {}),
          },
        );
  return {
    kind: 'pglite',
    query,
    exec,
    transaction: <T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions) =>
      turn(async () => {
        if (options?.oneStatement) return oneStatementTransaction(fn, options);
        transactions += 1;
        const tx = transactions;
        // Not awaited before the callback: its first statement follows the BEGIN without a round trip of its
        // own, and fails with the BEGIN's error if the transaction could not open.
        const opened = thread.send({
          op: 'begin',
          tx,
          ...opening(options),
        });
        opened.catch(() => undefined);
        let result: T;
        try {
          result = await fn(session(tx));
          await opened;
        } catch (err) {
          await opened; // the BEGIN's own error comes first
          await thread.send({ op: 'end', tx, commit: false }).catch(() => undefined);
          throw err;
        }
        await thread.send({ op: 'end', tx, commit: true });
        return result;
      }),
    async ping(): Promise<void> {
      await base.query('SELECT 1');
    },
    // The running statement counts as the session in use; the rest wait.
    poolStats: () => ({ total: 1, idle: queued === 0 ? 1 : 0, waiting: Math.max(0, queued - 1) }),
    async close() {
      await maintenance?.stop();
      await turn(() => thread.close());
      await lock?.release();
    },
  };
}

function lockFor(dataDir: string, options: PgliteOptions): Promise<DataDirLock> {
  return lockDataDir(dataDir, {
    ...(options.lockWaitMs === undefined ? {} : { waitMs: options.lockWaitMs }),
    onWait: () =>
      options.logger?.info('database: waiting for another process to close the data directory', { dataDir }),
  });
}
