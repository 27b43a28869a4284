// The database settings every service reads besides DATABASE_URL (docs/configuration.md).
import { Type } from '@sinclair/typebox';
import type { OpenDatabaseOptions } from './open';
import { POSTGRES_BOUNDS } from './postgres';

export const databaseSettingsProperties = {
  /**
   * Prepare parameterised statements once per connection (docs/decisions/0030). Set false behind a pooler in
   * transaction mode that cannot keep prepared statements (PgBouncer before 1.21).
   */
  DATABASE_PREPARED_STATEMENTS: Type.Boolean({ default: true }),
  /** PostgreSQL: longest wait for a connection (ms; 0: no bound). ADR 0068. */
  DATABASE_CONNECT_TIMEOUT_MS: Type.Integer({
    minimum: 0,
    maximum: 600_000,
    default: POSTGRES_BOUNDS.connectTimeoutMs,
  }),
  /** PostgreSQL: the sessions' statement_timeout; the client waits 5 s more (ms; 0: neither). ADR 0068. */
  DATABASE_STATEMENT_TIMEOUT_MS: Type.Integer({
    minimum: 0,
    maximum: 3_600_000,
    default: POSTGRES_BOUNDS.statementTimeoutMs,
  }),
  /** PostgreSQL: the sessions' idle_in_transaction_session_timeout (ms; 0: the server's own). ADR 0068. */
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: Type.Integer({
    minimum: 0,
    maximum: 3_600_000,
    default: POSTGRES_BOUNDS.idleInTransactionTimeoutMs,
  }),
};

export interface DatabaseSettings {
  DATABASE_PREPARED_STATEMENTS: boolean;
  DATABASE_CONNECT_TIMEOUT_MS: number;
  DATABASE_STATEMENT_TIMEOUT_MS: number;
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: number;
}

/** The options of openDatabase that these settings give. */
export function databaseOptionsOf(
  settings: DatabaseSettings,
): Pick<
  OpenDatabaseOptions,
  'preparedStatements' | 'connectTimeoutMs' | 'statementTimeoutMs' | 'idleInTransactionTimeoutMs'
> {
  return {
    preparedStatements: settings.DATABASE_PREPARED_STATEMENTS,
    connectTimeoutMs: settings.DATABASE_CONNECT_TIMEOUT_MS,
    statementTimeoutMs: settings.DATABASE_STATEMENT_TIMEOUT_MS,
    idleInTransactionTimeoutMs: settings.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
  };
}
