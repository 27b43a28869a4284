// Chooses the engine: `DATABASE_URL` → a PostgreSQL server; otherwise PGlite under the data directory.
import { randomBytes } from 'node:crypto';
import type { Logger } from '../logger';
import { openPglite } from './pglite';
import { openPostgres } from './postgres';
import type { Db } from './types';

export interface OpenDatabaseOptions {
  databaseUrl?: string | undefined;
  dataDir?: string | undefined;
  applicationName?: string;
  poolSize?: number;
  /** PostgreSQL: prepare parameterised statements once per connection (default true; ADR 0030). */
  preparedStatements?: boolean;
  /** PostgreSQL: the bounds of ADR 0068 (PostgresOptions); their defaults when left out. */
  connectTimeoutMs?: number;
  statementTimeoutMs?: number;
  idleInTransactionTimeoutMs?: number;
  /** PGlite: told once if the embedded database's thread stops while open (see PgliteOptions). */
  onStopped?: (err: Error) => void;
  /** PGlite: where its maintenance (the autovacuum PGlite lacks, ADR 0041) reports. */
  logger?: Logger;
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Db> {
  if (options.databaseUrl) {
    const db = openPostgres({
      connectionString: options.databaseUrl,
      ...(options.applicationName ? { applicationName: options.applicationName } : {}),
      ...(options.poolSize ? { max: options.poolSize } : {}),
      ...(options.preparedStatements === undefined ? {} : { preparedStatements: options.preparedStatements }),
      ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
      ...(options.statementTimeoutMs === undefined ? {} : { statementTimeoutMs: options.statementTimeoutMs }),
      ...(options.idleInTransactionTimeoutMs === undefined
        ? {}
        : { idleInTransactionTimeoutMs: options.idleInTransactionTimeoutMs }),
    });
    await db.query('SELECT 1');
    return db;
  }
  return openPglite({
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.onStopped ? { onStopped: options.onStopped } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
}

export interface TestDatabase extends Db {
  /** The connection string of the throw-away database (PostgreSQL only). */
  readonly url?: string;
}

/**
 * A fresh, empty database for one test file (or a bench's run): a new database on the server named by
 * `adminUrl`, by default `TEST_DATABASE_URL` (dropped on close), or an in-memory PGlite when there is none.
 */
export async function createTestDatabase(
  adminUrl: string | undefined = process.env.TEST_DATABASE_URL,
): Promise<TestDatabase> {
  if (!adminUrl) return openPglite();
  const name = `t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = openPostgres({ connectionString: adminUrl, max: 1 });
  await admin.exec(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = openPostgres({ connectionString: url.toString(), max: 10 });
  return {
    ...db,
    kind: 'postgres',
    url: url.toString(),
    async close() {
      await db.close();
      await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.close();
    },
  };
}
