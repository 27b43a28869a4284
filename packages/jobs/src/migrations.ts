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

const RECORD_SIGNATURE = `jobs_record(p_id bigint, p_worker text, p_attempts integer, p_outcome text,
                                       p_error text, p_run_at timestamptz, p_now timestamptz)`;

/**
 * The fenced update of every version of jobs_record (its parameters are the function's). From jobs_0008 a
 * recorded outcome also ends a streak of runs that died (lease_expiries): the versions before it are kept as
 * they were, since a new database creates them before that column exists.
 */
const recordUpdate = (endsDeathStreak: boolean) => `UPDATE jobs SET${
  endsDeathStreak
    ? `
      lease_expiries = 0,`
    : ''
}
      state = CASE p_outcome WHEN 'done' THEN 'done' WHEN 'fail' THEN 'failed' ELSE 'pending' END,
      locked_by = NULL,
      locked_until = NULL,
      finished_at = CASE WHEN p_outcome = 'retry' THEN finished_at ELSE p_now END,
      last_error = CASE WHEN p_outcome = 'done' THEN last_error ELSE COALESCE(p_error, last_error) END,
      -- A reschedule() that arrived while running (nudge_at) wins when it is sooner.
      run_at = CASE WHEN p_outcome = 'retry' THEN LEAST(p_run_at, COALESCE(nudge_at, p_run_at)) ELSE run_at END,
      nudge_at = CASE WHEN p_outcome = 'retry' THEN NULL ELSE nudge_at END,
      updated_at = now()
    WHERE id = p_id AND state = 'running' AND locked_by = p_worker AND attempts = p_attempts`;

/**
 * A run's outcome, guarded by the claim's fencing token (worker id + attempt): the one statement that
 * finishes or reschedules a job, for the worker and for a handler's own transaction (JobContext.finishIn).
 * SECURITY DEFINER with EXECUTE revoked from PUBLIC: an app may grant it to a restricted role that cannot
 * otherwise touch jobs, and holding that grant changes only a job whose token the caller presents.
 */
export const JOBS_RECORD_SQL = `
CREATE OR REPLACE FUNCTION ${RECORD_SIGNATURE}
RETURNS boolean LANGUAGE sql SECURITY DEFINER SET search_path FROM CURRENT AS $$
  WITH recorded AS (
    ${recordUpdate(false)}
    RETURNING 1
  )
  SELECT count(*) > 0 FROM recorded
$$;
REVOKE EXECUTE ON FUNCTION jobs_record(bigint, text, integer, text, text, timestamptz, timestamptz) FROM PUBLIC;
`;

/**
 * jobs_record as PL/pgSQL, the same statement and the same guard: a LANGUAGE sql function with SECURITY
 * DEFINER is never inlined, so PostgreSQL parsed and planned its UPDATE on every call; PL/pgSQL keeps the
 * plan for the session. 500 records in a row: 0.56–0.64 → 0.38–0.40 ms each on PostgreSQL, 0.45–0.59 →
 * 0.40–0.49 ms on PGlite (where the trip through its thread is most of it). Replacing a function keeps its
 * owner and grants (the tenant role's EXECUTE).
 */
const recordPlpgsql = (endsDeathStreak: boolean) => `
CREATE OR REPLACE FUNCTION ${RECORD_SIGNATURE}
RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
  ${recordUpdate(endsDeathStreak)};
  RETURN FOUND;
END
$$;
`;
export const JOBS_RECORD_PLPGSQL_SQL = recordPlpgsql(false);

/**
 * Runs that ended with their process in a row (their lease expired with no outcome recorded): what the wait
 * before the next run grows with (worker.ts, RECLAIM_EXPIRED_SQL). Counted apart from `attempts`, which also
 * counts the runs that asked to be retried (Hacienda's 429s and 503s): a job with twenty such retries whose
 * next run died with its process waited an hour, where a first death is due when its lease ends.
 */
export const JOBS_LEASE_EXPIRIES_SQL = `
ALTER TABLE jobs ADD COLUMN IF NOT EXISTS lease_expiries integer NOT NULL DEFAULT 0;
${recordPlpgsql(true)}`;

/**
 * The fair claim (see worker.ts for how it chooses) as a function: inside PL/pgSQL its plan is prepared once
 * per session and, with plan_cache_mode forced to generic, never planned again. As a prepared statement of
 * its own PostgreSQL judged every plan custom (a CTE this size plans for ~0.7 ms) and planned it on every call:
 * half of the claim's time on PGlite (docs/performance.md, "jobs (claim)"). The generic plan is the same shape:
 * the lanes' index, then each lane's oldest due jobs. Pending jobs only: expired leases are returned to pending
 * by their own statement (worker.ts).
 */
export const JOBS_CLAIM_SQL = `
CREATE OR REPLACE FUNCTION jobs_claim(p_worker text, p_locked_until timestamptz, p_queues text[],
                                      p_now timestamptz, p_limit integer)
RETURNS SETOF jobs LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  RETURN QUERY
  WITH offered AS (
    SELECT due.id, due.run_at, l.tenant, l.served_at
    FROM job_lanes l
    CROSS JOIN LATERAL (
      SELECT j.id, j.run_at FROM jobs j
      WHERE j.queue = l.queue AND j.tenant = l.tenant AND j.state = 'pending' AND j.run_at <= p_now
      ORDER BY j.run_at, j.id
      LIMIT p_limit) due
    WHERE l.queue = ANY(p_queues)
  ), ranked AS (
    SELECT o.id, o.run_at,
           row_number() OVER (PARTITION BY o.tenant ORDER BY o.run_at, o.id) AS round,
           max(o.served_at) OVER (PARTITION BY o.tenant) AS served_at
    FROM offered o
  ), chosen AS (
    SELECT r.id FROM ranked r ORDER BY r.round, r.served_at NULLS FIRST, r.run_at, r.id LIMIT p_limit
  ), claimed AS (
    UPDATE jobs SET state = 'running', attempts = attempts + 1, locked_by = p_worker,
           locked_until = p_locked_until, nudge_at = NULL, updated_at = now()
    WHERE jobs.id IN (
      SELECT j.id FROM jobs j
      WHERE j.id IN (SELECT c.id FROM chosen c) AND j.state = 'pending' AND j.run_at <= p_now
      FOR UPDATE SKIP LOCKED)
    RETURNING jobs.*
  ), stamped AS (
    -- Strictly after every lane served so far: claims within one millisecond of the worker's clock (or from
    -- a process whose clock is behind) would otherwise tie, and a tie goes to the oldest job, not the turn.
    UPDATE job_lanes SET served_at = GREATEST(p_now,
      (SELECT max(m.served_at) FROM job_lanes m WHERE m.queue = ANY(p_queues)) + interval '1 microsecond')
    WHERE (job_lanes.queue, job_lanes.tenant) IN (
      SELECT l.queue, l.tenant FROM job_lanes l
      WHERE (l.queue, l.tenant) IN (SELECT c.queue, c.tenant FROM claimed c)
      FOR UPDATE SKIP LOCKED)
  )
  SELECT * FROM claimed;
END
$$;
-- Only the service's own role claims; a role an app gives less (a tenant's) has no use for it.
REVOKE EXECUTE ON FUNCTION jobs_claim(text, timestamptz, text[], timestamptz, integer) FROM PUBLIC;
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
  { id: 'jobs_0005_claim_function', sql: JOBS_CLAIM_SQL },
  { id: 'jobs_0006_record_plpgsql', sql: JOBS_RECORD_PLPGSQL_SQL },
  // The claim stamps a lane strictly after the last one served (two claims in one millisecond tied, and the
  // tie went to one tenant twice). 0005 runs the same text on a new database; this replaces the function on
  // one that already had it.
  { id: 'jobs_0007_claim_served_in_order', sql: JOBS_CLAIM_SQL },
  { id: 'jobs_0008_lease_expiries', sql: JOBS_LEASE_EXPIRIES_SQL },
];
