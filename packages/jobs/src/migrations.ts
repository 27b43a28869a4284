// The queue's table, as migrations the app appends to its own list (`migrate(db, [...appMigrations,
// ...jobsMigrations])`). Kept as TypeScript strings so a bundled app needs no SQL files beside it.
import type { Migration } from '@cr/service-kit';

export const JOBS_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS jobs (
  id            bigserial PRIMARY KEY,
  queue         text        NOT NULL,
  key           text        UNIQUE,
  payload       jsonb       NOT NULL DEFAULT '{}'::jsonb,
  state         text        NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'running', 'done', 'failed')),
  run_at        timestamptz NOT NULL,
  nudge_at      timestamptz,
  attempts      integer     NOT NULL DEFAULT 0,
  max_attempts  integer,
  locked_by     text,
  locked_until  timestamptz,
  last_error    text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  finished_at   timestamptz
);
CREATE INDEX IF NOT EXISTS jobs_pending_due ON jobs (queue, run_at) WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS jobs_running_lease ON jobs (queue, locked_until) WHERE state = 'running';
CREATE INDEX IF NOT EXISTS jobs_finished ON jobs (finished_at) WHERE state IN ('done', 'failed');
`;

/** Append to the app's migrations; the id is namespaced so it never collides with the app's `NNNN_name`. */
export const jobsMigrations: Migration[] = [
  { id: 'jobs_0001_create', sql: JOBS_SCHEMA_SQL },
  // The request that enqueued a job: its id goes on every log line of the job's runs and its trace
  // continues into them (HTTP → job → database → Hacienda in one trace).
  {
    id: 'jobs_0002_request_context',
    sql: 'ALTER TABLE jobs ADD COLUMN IF NOT EXISTS request_id text, ADD COLUMN IF NOT EXISTS traceparent text;',
  },
];
