// A real PostgreSQL server through node-postgres' pool.
import pg from 'pg';
import { OneStatementRefusals } from './one-statement';
import { canFollowOpening, queryAfterOpening, wireOf } from './postgres-opening';
import { PreparedStatements } from './prepared-statements';
import { traced } from './traced';
import type { Db, QueryResult, Queryable, TransactionOptions } from './types';
import { DatabaseUnavailableError, brokeTheConnection, readsOnly, unavailableOr } from './unavailable';

// Keep BIGINT and NUMERIC as strings (never floats), and COUNT-style int8 readable: callers cast to int
// in SQL where they want numbers. DATE stays a string so no time zone shifts a calendar day.
pg.types.setTypeParser(1082, (v) => v);

export interface PostgresOptions {
  connectionString: string;
  max?: number;
  applicationName?: string;
  /**
   * Prepare each parameterised statement once per connection (default true). Turn off behind a pooler in
   * transaction mode that cannot carry prepared statements between server sessions (PgBouncer before 1.21).
   */
  preparedStatements?: boolean;
  /** Longest wait for a connection, to open one or for a free one of the pool (ms; 0: no bound). ADR 0068. */
  connectTimeoutMs?: number;
  /**
   * The server's `statement_timeout` for every session (ms; 0: the server's own, and no client bound either).
   * The client gives up on an answer `clientMarginMs` later, and closes that connection: a server that went
   * silent cannot hold the pool for good.
   */
  statementTimeoutMs?: number;
  /** The server's `idle_in_transaction_session_timeout` (ms; 0: the server's own). */
  idleInTransactionTimeoutMs?: number;
  /** How much longer than the statement timeout the client waits for an answer (ms; default 5 000). */
  clientMarginMs?: number;
}

/** The bounds of ADR 0068 when a setting does not say otherwise. */
export const POSTGRES_BOUNDS = {
  connectTimeoutMs: 10_000,
  statementTimeoutMs: 60_000,
  idleInTransactionTimeoutMs: 30_000,
  clientMarginMs: 5_000,
  /** A readiness probe answers within this, whatever the pool is doing. */
  pingTimeoutMs: 5_000,
  /** TCP keepalive: a peer that vanished without a word is found by the OS's probes after this idle time. */
  keepAliveMs: 10_000,
} as const;

function wrap(client: pg.ClientBase | pg.Pool, prepared: PreparedStatements | undefined): Queryable {
  const pooled = client instanceof pg.Pool;
  const run = (sql: string, params: unknown[] | undefined, name: string | undefined) =>
    client.query(
      name ? { name, text: sql, values: params as unknown[] } : { text: sql, values: params as unknown[] },
    );
  return {
    async query<R>(sql: string, params?: unknown[]): Promise<QueryResult<R>> {
      const r = await traced('postgresql', sql, async () => {
        const name = prepared?.nameOf(sql, params);
        try {
          return await run(sql, params, name);
        } catch (err) {
          // Inside a transaction the failed statement has aborted it: the caller's retry decides, not us.
          if (!name || !prepared?.retireAfter(sql, err) || !pooled) throw err;
          return await run(sql, params, undefined);
        }
      }).catch((err: unknown) => {
        // On its own a statement commits as it runs: a write whose answer was lost may have taken effect.
        throw pooled ? unavailableOr(err, !readsOnly(sql)) : err;
      });
      return { rows: r.rows as R[], rowCount: r.rowCount ?? 0 };
    },
    async exec(sql: string): Promise<void> {
      await client.query(sql).catch((err: unknown) => {
        throw pooled ? unavailableOr(err, true) : err;
      });
    },
  };
}

const ignore = (): undefined => undefined;

/** Rejects with a DatabaseUnavailableError when `work` has not settled within `ms`. */
function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new DatabaseUnavailableError(false, new Error(`${what}: no answer within ${ms} ms`))),
      ms,
    );
  });
  work.catch(ignore); // it may settle after the deadline: nobody waits for it then
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** in_failed_sql_transaction: the error PGlite gives for a COMMIT that rolled back. */
function rolledBackInsteadOfCommitted(): Error {
  return Object.assign(new Error('Transaction was rolled back instead of committed'), { code: '25P02' });
}

/**
 * Runs `fn` as one transaction on `client` (ADR 0046/0047 for how it opens and commits). Returns the error that
 * broke the connection, if one did, through `broken`: such a connection is closed, never reused, and no
 * ROLLBACK is sent on it (the server rolls back a session that ends; a ROLLBACK would wait behind the statement
 * that never answered).
 */
async function runTransaction<T>(
  client: pg.ClientBase,
  prepared: PreparedStatements | undefined,
  fn: (tx: Queryable) => Promise<T>,
  options: TransactionOptions | undefined,
  broken: { error?: unknown },
): Promise<T> {
  const wire = wireOf(client as pg.PoolClient);
  const inside = wrap(client, prepared);
  const opening = ['BEGIN', ...(options?.begin ?? [])];
  const oneStatement = options?.oneStatement === true;
  // Set once a COMMIT is on its way: from then on a lost connection leaves the outcome unknown, if the
  // transaction wrote anything (a read-only one commits nothing).
  let committing = false;
  let wrote = false;
  // Settles with the opening's outcome once it is sent: with the callback's first statement (ADR 0046), or
  // on its own before a first statement that cannot carry it (an exec, a named statement this connection
  // has not parsed yet). Every later statement waits for it, so none runs if the transaction did not open.
  let opened: Promise<void> | undefined;
  const open = (): Promise<void> => {
    opened ??= client.query(opening.join('; ')).then(() => undefined);
    return opened;
  };
  // A one-statement transaction (ADR 0047): settles once the COMMIT that follows its statement has answered.
  let committed: Promise<unknown> | undefined;
  const refusals = new OneStatementRefusals();
  const commit = async (): Promise<void> => {
    committing = true;
    const end = await client.query('COMMIT');
    // A statement that failed aborted the transaction; if the callback caught its error and returned,
    // PostgreSQL answers COMMIT with ROLLBACK and no error, and nothing the callback wrote was kept. That is
    // a failure, as PGlite reports it (same code and message), never a success.
    if (end.command === 'ROLLBACK') throw rolledBackInsteadOfCommitted();
  };
  const tx: Queryable = {
    query<R>(sql: string, params?: unknown[]): Promise<QueryResult<R>> {
      if (oneStatement && (opened || refusals.refused)) return refusals.secondStatement();
      if (!wrote && !readsOnly(sql)) wrote = true;
      const name = prepared?.nameOf(sql, params);
      if (!opened && wire && canFollowOpening(wire, name, sql)) {
        const statement = { text: sql, values: params ?? [], name };
        const sent = queryAfterOpening(
          client as pg.PoolClient,
          opening,
          statement,
          oneStatement ? ['COMMIT'] : [],
        );
        opened = sent.opening;
        if (oneStatement) {
          committing = true;
          committed = sent.result;
        }
        return traced('postgresql', sql, async () => {
          const r = await sent.result;
          return { rows: r.rows as R[], rowCount: r.rowCount ?? 0 };
        });
      }
      const answered = open().then(() => inside.query<R>(sql, params));
      if (!oneStatement) return answered;
      const settled = answered.then(async (r) => {
        await commit();
        return r;
      });
      committed = settled;
      return settled;
    },
    exec: (sql: string) => {
      if (oneStatement) return refusals.exec();
      wrote = true;
      return open().then(() => inside.exec(sql));
    },
  };
  try {
    const result = await fn(tx);
    if (refusals.refused) throw refusals.refused;
    if (committed) {
      // Its COMMIT was sent with the statement; a statement error the callback swallowed still fails it.
      await committed;
      return result;
    }
    // The opening's error fails the transaction even if the callback swallowed it, or sent nothing at all.
    await open();
    await commit();
    return result;
  } catch (err) {
    if (brokeTheConnection(err)) broken.error = err;
    else {
      // A ROLLBACK that fails or gets no answer (it waited behind a statement the server never answered) leaves
      // the connection in no state to be handed to anyone else.
      await client.query('ROLLBACK').catch((rollbackFailed: unknown) => {
        broken.error ??= rollbackFailed;
      });
    }
    throw unavailableOr(err, committing && wrote);
  }
}

export function openPostgres(options: PostgresOptions): Db {
  const connectTimeoutMs = options.connectTimeoutMs ?? POSTGRES_BOUNDS.connectTimeoutMs;
  const statementTimeoutMs = options.statementTimeoutMs ?? POSTGRES_BOUNDS.statementTimeoutMs;
  const idleInTransactionTimeoutMs =
    options.idleInTransactionTimeoutMs ?? POSTGRES_BOUNDS.idleInTransactionTimeoutMs;
  const clientMarginMs = options.clientMarginMs ?? POSTGRES_BOUNDS.clientMarginMs;
  // What every connection shares, the long-running one of a migration included (ADR 0068).
  const connection: pg.ClientConfig = {
    connectionString: options.connectionString,
    application_name: options.applicationName,
    connectionTimeoutMillis: connectTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: POSTGRES_BOUNDS.keepAliveMs,
  };
  const pool = new pg.Pool({
    ...connection,
    max: options.max ?? 10,
    idleTimeoutMillis: 30_000,
    // Startup parameters: the server applies them to the session from its first statement.
    ...(statementTimeoutMs > 0
      ? { statement_timeout: statementTimeoutMs, query_timeout: statementTimeoutMs + clientMarginMs }
      : {}),
    ...(idleInTransactionTimeoutMs > 0
      ? { idle_in_transaction_session_timeout: idleInTransactionTimeoutMs }
      : {}),
  });
  // An idle client that loses its connection must not crash the process; the pool replaces it.
  pool.on('error', ignore);
  const prepared = options.preparedStatements === false ? undefined : new PreparedStatements();
  const base = wrap(pool, prepared);

  /** A transaction without the bounds, on a connection of its own (migrations: TransactionOptions.longRunning). */
  async function longRunning<T>(
    fn: (tx: Queryable) => Promise<T>,
    txOptions: TransactionOptions,
  ): Promise<T> {
    const client = new pg.Client(connection);
    client.on('error', ignore); // what it reports, the statement in flight reports too
    await client.connect().catch((err: unknown) => {
      throw unavailableOr(err, false);
    });
    const unbounded = [
      'SET LOCAL statement_timeout = 0',
      'SET LOCAL idle_in_transaction_session_timeout = 0',
    ];
    try {
      return await runTransaction(
        client,
        undefined,
        fn,
        { ...txOptions, begin: [...unbounded, ...(txOptions.begin ?? [])] },
        {},
      );
    } finally {
      await client.end().catch(ignore);
    }
  }

  return {
    kind: 'postgres',
    query: base.query,
    exec: base.exec,
    async transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T> {
      if (options?.longRunning) return longRunning(fn, options);
      const client = await pool.connect().catch((err: unknown) => {
        throw unavailableOr(err, false);
      });
      // While it is held the pool does not listen to it: a session the server ends between two statements
      // (a restart, a failover, pg_terminate_backend) would be an unhandled 'error' event and end the process.
      const broken: { error?: unknown } = {};
      const onError = (err: Error): void => {
        broken.error ??= err;
      };
      client.on('error', onError);
      try {
        return await runTransaction(client, prepared, fn, options, broken);
      } finally {
        client.removeListener('error', onError);
        client.release(broken.error === undefined ? undefined : (broken.error as Error));
      }
    },
    async ping(): Promise<void> {
      const ms = POSTGRES_BOUNDS.pingTimeoutMs;
      await within(pool.query({ text: 'SELECT 1', query_timeout: ms } as pg.QueryConfig), ms, 'ping').catch(
        (err: unknown) => {
          throw unavailableOr(err, false);
        },
      );
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => pool.end(),
  };
}
