// Forward-only SQL migrations (`NNNN_name.sql`), applied in order inside one transaction under an
// advisory lock, so several replicas starting together apply each migration exactly once.
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

/** Applies what is missing; returns the ids applied now. */
export async function migrate(db: Db, migrations: Migration[], lockKey = 7_310_506): Promise<string[]> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [lockKey]);
    await tx.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set(
      (await tx.query<{ id: string }>('SELECT id FROM schema_migrations')).rows.map((r) => r.id),
    );
    const applied: string[] = [];
    for (const m of migrations) {
      if (done.has(m.id)) continue;
      await tx.exec(m.sql);
      await tx.query('INSERT INTO schema_migrations (id) VALUES ($1)', [m.id]);
      applied.push(m.id);
    }
    return applied;
  });
}
