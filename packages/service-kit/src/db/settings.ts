// The database settings every service reads besides DATABASE_URL (docs/configuration.md).
import { Type } from '@sinclair/typebox';

export const databaseSettingsProperties = {
  /**
   * Prepare parameterised statements once per connection (docs/decisions/0030). Set false behind a pooler in
   * transaction mode that cannot keep prepared statements (PgBouncer before 1.21).
   */
  DATABASE_PREPARED_STATEMENTS: Type.Boolean({ default: true }),
};
