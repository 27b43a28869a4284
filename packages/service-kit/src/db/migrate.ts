// Forward-only SQL migrations (`NNNN_name.sql`), applied in order inside one transaction under an
// advisory lock, so several replicas starting together apply each migration exactly once. A database that
// holds a migration this build does not have was migrated by a later release: it is refused, never served
// (docs/operations/upgrade.md).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from './types';

export interface Migration {
  id: string;
  sql: string;
}

export function readMigrations(dir: string): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ id: f.replace(/\.sql$/, ''), sql: readFileSync(join(dir, f), 'utf8') }));
}

/**
 * The database holds migrations this build does not have: a later release migrated it (an earlier release
 * would misread what those migrations changed, a column it no longer has, a row it cannot fill, and report
 * healthy all the same), or it is another service's database (whose tables would collide with this one's).
 */
export class SchemaNewerThanReleaseError extends Error {
  constructor(readonly unknownMigrations: string[]) {
    const shown = unknownMigrations.slice(0, 5).join(', ');
    const more = unknownMigrations.length > 5 ? ` and ${unknownMigrations.length - 5} more` : '';
    super(
      `database schema is newer than this release: it holds migrations ${shown}${more}, which this release does not have: a later release applied them, or the database is another service's. Run that release, give this service a database of its own, or restore the backup taken before the upgrade (docs/operations/upgrade.md)`,
    );
    this.name = 'SchemaNewerThanReleaseError';
  }
}

/** Applies what is missing; returns the ids applied now. Refuses a database a later release migrated. */
export async function migrate(db: Db, migrations: Migration[], lockKey = 7_310_506): Promise<string[]> {
  return db.transaction(
    async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [lockKey]);
      await tx.exec(
        'CREATE TABLE IF NOT EXISTS schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const done = new Set(
        (await tx.query<{ id: string }>('SELECT id FROM schema_migrations')).rows.map((r) => r.id),
      );
      const known = new Set(migrations.map((m) => m.id));
      const unknown = [...done].filter((id) => !known.has(id)).sort();
      if (unknown.length > 0) throw new SchemaNewerThanReleaseError(unknown);
      const applied: string[] = [];
      for (const m of migrations) {
        if (done.has(m.id)) continue;
        await tx.exec(m.sql);
        await tx.query('INSERT INTO schema_migrations (id) VALUES ($1)', [m.id]);
        applied.push(m.id);
      }
      return applied;
    },
    { longRunning: true },
  );
}
