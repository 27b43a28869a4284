// The database seen by the services: the same SQL runs on a real PostgreSQL server (`pg`) and on the
// embedded PGlite default. Inside a transaction use only the `tx` handed to the callback: PGlite has one
// session, so waiting on the outer handle while a transaction is open would deadlock.

export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<R>>;
  /** Runs several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Db extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /**
   * `SELECT 1` for readiness probes. On PGlite it skips the queue of waiting statements (it waits for at most
   * the one running), so a probe answers promptly under load and still proves the database answers.
   */
  ping(): Promise<void>;
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
  close(): Promise<void>;
  /** Connections in use and callers waiting, for the metrics (PGlite: one session and its queue). */
  poolStats?(): DbPoolStats;
}

export interface TransactionOptions {
  /**
   * Statements without parameters that open every such transaction (e.g. transaction-local settings), one per
   * element. On PostgreSQL they travel with the BEGIN and the callback's first statement in one round trip
   * (ADR 0046); on PGlite they are the transaction's first exec, and the callback's first statements follow
   * without waiting for it (ADR 0039). If they fail, the transaction fails with their error, and no statement of
   * the callback runs.
   */
  begin?: readonly string[];
  /**
   * The transaction is the callback's one statement: its COMMIT follows it without waiting for the callback
   * (ADR 0047). On PostgreSQL the opening, the statement and the COMMIT then take one round trip (once the
   * statement is prepared on the connection); on PGlite one message to its thread. A second statement, or an
   * exec, is refused and fails the transaction, and what the callback does once the statement has answered
   * cannot undo it: for a read, or a write that is the last thing its callback does.
   */
  oneStatement?: boolean;
  /**
   * The transaction may take as long as it needs (migrations): on PostgreSQL it runs on a connection of its own,
   * without the statement, idle-transaction and client bounds of ADR 0068. No effect on PGlite.
   */
  longRunning?: boolean;
}

export interface DbPoolStats {
  /** Connections open (PGlite: 1). */
  total: number;
  idle: number;
  /** Callers waiting for a connection (PGlite: statements queued for the session). */
  waiting: number;
}
