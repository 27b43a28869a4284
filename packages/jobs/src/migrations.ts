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

export const JOBS_LANES_SQL = `
ALTER TABLE jobs ADD COLUMN IF NOT EXISTS tenant text NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN IF NOT EXISTS pending_key text;
CREATE UNIQUE INDEX IF NOT EXISTS jobs_pending_key ON jobs (pending_key) WHERE state IN ('pending', 'running');
CREATE INDEX IF NOT EXISTS jobs_lane_due ON jobs (queue, tenant, run_at, id) WHERE state = 'pending';
CREATE TABLE IF NOT EXISTS job_lanes (
  queue     text NOT NULL,
  tenant    text NOT NULL,
  served_at timestamptz,
  PRIMARY KEY (queue, tenant)
);
INSERT INTO job_lanes (queue, tenant) SELECT DISTINCT queue, tenant FROM jobs ON CONFLICT DO NOTHING;
`;

/**
 * A run's outcome, guarded by the claim's fencing token (worker id + attempt): the one statement that
 * finishes or reschedules a job, for the worker and for a handler's own transaction (JobContext.finishIn).
 * SECURITY DEFINER with EXECUTE revoked from PUBLIC: an app may grant it to a restricted role that cannot
 * otherwise touch jobs, and holding that grant changes only a job whose token the caller presents.
 */
export const JOBS_RECORD_SQL = `
CREATE OR REPLACE FUNCTION jobs_record(p_id bigint, p_worker text, p_attempts integer, p_outcome text,
                                       p_error text, p_run_at timestamptz, p_now timestamptz)
RETURNS boolean LANGUAGE sql SECURITY DEFINER SET search_path FROM CURRENT AS $$
  WITH recorded AS (
    UPDATE jobs SET
      state = CASE p_outcome WHEN 'done' THEN 'done' WHEN 'fail' THEN 'failed' ELSE 'pending' END,
      locked_by = NULL,
      locked_until = NULL,
      finished_at = CASE WHEN p_outcome = 'retry' THEN finished_at ELSE p_now END,
      last_error = CASE WHEN p_outcome = 'done' THEN last_error ELSE COALESCE(p_error, last_error) END,
      -- A reschedule() that arrived while running (nudge_at) wins when it is sooner.
      run_at = CASE WHEN p_outcome = 'retry' THEN LEAST(p_run_at, COALESCE(nudge_at, p_run_at)) ELSE run_at END,
      nudge_at = CASE WHEN p_outcome = 'retry' THEN NULL ELSE nudge_at END,
      updated_at = now()
    WHERE id = p_id AND state = 'running' AND locked_by = p_worker AND attempts = p_attempts
    RETURNING 1
  )
  SELECT count(*) > 0 FROM recorded
$$;
REVOKE EXECUTE ON FUNCTION jobs_record(bigint, text, integer, text, text, timestamptz, timestamptz) FROM PUBLIC;
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
  // Fair claims (issue 11, item 2): every job belongs to a tenant ('' for the service's own jobs) and a
  // lane is one (queue, tenant) pair that has ever had a job. A claim walks the lanes (a few per tenant)
  // and takes each one's oldest due jobs through jobs_lane_due, so its cost grows with the number of
  // tenants and the batch size, never with how many jobs one tenant has queued. served_at is the lane's
  // last claim: the tenant served longest ago goes first, so even one-job claims take turns. Lanes are only
  // added (one per queue and tenant).
  // pending_key: at most one pending or running job per key; it is free again once that job finishes.
  { id: 'jobs_0003_tenant_lanes', sql: JOBS_LANES_SQL },
  { id: 'jobs_0004_record_function', sql: JOBS_RECORD_SQL },
];
