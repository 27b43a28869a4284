// A real PostgreSQL server through node-postgres' pool.
import pg from 'pg';
import { OneStatementRefusals } from './one-statement';
import { canFollowOpening, queryAfterOpening, wireOf } from './postgres-opening';
import { PreparedStatements } from './prepared-statements';
import { traced } from './traced';
import type { Db, QueryResult, Queryable, TransactionOptions } from './types';

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
}

function wrap(client: pg.PoolClient | pg.Pool, prepared: PreparedStatements | undefined): Queryable {
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
          if (!name || !prepared?.retireAfter(sql, err) || 'release' in client) throw err;
          return await run(sql, params, undefined);
        }
      });
      return { rows: r.rows as R[], rowCount: r.rowCount ?? 0 };
    },
    async exec(sql: string): Promise<void> {
      await client.query(sql);
    },
  };
}

/** in_failed_sql_transaction: the error PGlite gives for a COMMIT that rolled back. */
function rolledBackInsteadOfCommitted(): Error {
  return Object.assign(new Error('Transaction was rolled back instead of committed'), { code: '25P02' });
}

export function openPostgres(options: PostgresOptions): Db {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    application_name: options.applicationName,
    idleTimeoutMillis: 30_000,
  });
  // An idle client that loses its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const prepared = options.preparedStatements === false ? undefined : new PreparedStatements();
  const base = wrap(pool, prepared);
  return {
    kind: 'postgres',
    query: base.query,
    exec: base.exec,
    async transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T> {
      const client = await pool.connect();
      const wire = wireOf(client);
      const inside = wrap(client, prepared);
      const opening = ['BEGIN', ...(options?.begin ?? [])];
      const oneStatement = options?.oneStatement === true;
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
        const end = await client.query('COMMIT');
        // A statement that failed aborted the transaction; if the callback caught its error and returned,
        // PostgreSQL answers COMMIT with ROLLBACK and no error, and nothing the callback wrote was kept. That is
        // a failure, as PGlite reports it (same code and message), never a success.
        if (end.command === 'ROLLBACK') throw rolledBackInsteadOfCommitted();
      };
      const tx: Queryable = {
        query<R>(sql: string, params?: unknown[]): Promise<QueryResult<R>> {
          if (oneStatement && (opened || refusals.refused)) return refusals.secondStatement();
          const name = prepared?.nameOf(sql, params);
          if (!opened && wire && canFollowOpening(wire, name, sql)) {
            const statement = { text: sql, values: params ?? [], name };
            const sent = queryAfterOpening(client, opening, statement, oneStatement ? ['COMMIT'] : []);
            opened = sent.opening;
            if (oneStatement) committed = sent.result;
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
        exec: (sql: string) => (oneStatement ? refusals.exec() : open().then(() => inside.exec(sql))),
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
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    async ping(): Promise<void> {
      await pool.query('SELECT 1');
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => pool.end(),
  };
}
