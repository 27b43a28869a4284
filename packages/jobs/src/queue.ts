// Writing jobs: `enqueue` runs inside the caller's transaction so a document and its first job commit
// together (or not at all); `reschedule` brings a waiting job forward (the Hacienda callback uses it).
import { EventEmitter } from 'node:events';
import { type Queryable, currentRequestId, currentTraceparent } from '@cr/service-kit';

export type JobState = 'pending' | 'running' | 'done' | 'failed';

export interface Job<P = unknown> {
  id: string;
  queue: string;
  /** Whose work this is ('' for the service's own); claims take turns between tenants. */
  tenant: string;
  key: string | null;
  payload: P;
  state: JobState;
  runAt: Date;
  /** Claims so far, the current one included while running. */
  attempts: number;
  maxAttempts: number | null;
  lockedBy: string | null;
  lockedUntil: Date | null;
  lastError: string | null;
  createdAt: Date;
  finishedAt: Date | null;
  /** The request that enqueued the job (its log lines carry this id). */
  requestId: string | null;
  /** W3C traceparent of the span that enqueued the job; its runs continue that trace. */
  traceparent: string | null;
}

export interface JobRow {
  id: string;
  queue: string;
  tenant: string;
  key: string | null;
  payload: unknown;
  state: JobState;
  run_at: Date | string;
  attempts: number;
  max_attempts: number | null;
  locked_by: string | null;
  locked_until: Date | string | null;
  last_error: string | null;
  created_at: Date | string;
  finished_at: Date | string | null;
  request_id: string | null;
  traceparent: string | null;
}

function toDate(v: Date | string): Date {
  return v instanceof Date ? v : new Date(v);
}

export function toJob<P>(row: JobRow): Job<P> {
  return {
    id: String(row.id),
    queue: row.queue,
    tenant: row.tenant,
    key: row.key,
    payload: (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as P,
    state: row.state,
    runAt: toDate(row.run_at),
    attempts: Number(row.attempts),
    maxAttempts: row.max_attempts === null ? null : Number(row.max_attempts),
    lockedBy: row.locked_by,
    lockedUntil: row.locked_until === null ? null : toDate(row.locked_until),
    lastError: row.last_error,
    createdAt: toDate(row.created_at),
    finishedAt: row.finished_at === null ? null : toDate(row.finished_at),
    requestId: row.request_id ?? null,
    traceparent: row.traceparent ?? null,
  };
}

export const JOB_COLUMNS =
  'id, queue, tenant, key, payload, state, run_at, attempts, max_attempts, locked_by, locked_until, last_error, created_at, finished_at, request_id, traceparent';

/** In-process wake-ups: workers in this process poll as soon as something is enqueued or brought forward. */
export const jobEvents = new EventEmitter();
jobEvents.setMaxListeners(100);

export function notifyJobsDue(queue: string): void {
  jobEvents.emit('due', queue);
}

export interface EnqueueOptions<P> {
  queue: string;
  payload: P;
  /** When the job becomes due; default now. */
  runAt?: Date;
  /**
   * The tenant whose work this is, '' for the service's own. Claims take turns between tenants. Required:
   * a tenant's job enqueued without it joined the service's lane, first in first out with every other
   * tenant's (the e-mail jobs did, until 2026-12-03).
   */
  tenant: string;
  /** Dedupe key: a second enqueue with the same key (in any state) creates nothing. */
  key?: string;
  /**
   * At most one pending or running job with this key: a second enqueue while one waits or runs creates
   * nothing and returns that job's id; once it has finished, the key is free again.
   */
  pendingKey?: string;
  /** Claims before the job fails for good when its handler keeps throwing; default unlimited. */
  maxAttempts?: number;
}

export interface EnqueueResult {
  id: string;
  /** false when a job with the same key (or a waiting one with the same pendingKey) existed: its id. */
  created: boolean;
}

/**
 * Adds a job inside the caller's transaction (pass the `tx` of `db.transaction`, or the db itself for a
 * standalone insert). Nothing is visible to workers until that transaction commits.
 */
export async function enqueue<P>(tx: Queryable, options: EnqueueOptions<P>): Promise<EnqueueResult> {
  if (!options.queue) throw new TypeError('enqueue: queue is required');
  // A pending key whose job finished between the insert and the read is free again: one more try.
  return (await tryEnqueue(tx, options)) ?? (await tryEnqueue(tx, options)) ?? raceLost(options);
}

function raceLost(options: EnqueueOptions<unknown>): never {
  throw new Error(`enqueue: the job holding ${options.pendingKey} kept changing; try again`);
}

const JOB_INSERT_COLUMNS =
  'queue, key, payload, run_at, max_attempts, request_id, traceparent, tenant, pending_key';

/** The values of JOB_INSERT_COLUMNS, in that order (the queue's and the tenant's are also the lane's). */
function jobValues(options: EnqueueOptions<unknown>): unknown[] {
  return [
    options.queue,
    options.key ?? null,
    JSON.stringify(options.payload ?? null),
    options.runAt ?? new Date(),
    options.maxAttempts ?? null,
    currentRequestId() ?? null,
    currentTraceparent() ?? null,
    options.tenant,
    options.pendingKey ?? null,
  ];
}

/**
 * The enqueue as two common table expressions (`lane`, `job`) for the caller's own statement, so a row and
 * its first job are one round trip: they insert the lane and the job once per row that the CTE `source`
 * returns (e.g. a document's `INSERT … RETURNING`), and nothing when it returns none. Parameters are numbered
 * from `firstParam`. Unlike `enqueue` there is no read-back: a job whose key exists is not added, so use a
 * key that is new with the row (and no pendingKey). Call `notifyJobsDue(queue)` once the statement ran.
 * `prefix` names the CTEs (`<prefix>lane`, `<prefix>job`), so one statement can enqueue several jobs; the
 * `<prefix>job` CTE returns the id of a job it added.
 */
export function enqueueCtes(
  options: Omit<EnqueueOptions<unknown>, 'pendingKey'>,
  source: string,
  firstParam: number,
  prefix = '',
): { sql: string; params: unknown[] } {
  if (!options.queue) throw new TypeError('enqueueCtes: queue is required');
  if (!/^([a-z_][a-z0-9_]*)?$/.test(prefix)) throw new TypeError('enqueueCtes: prefix must be an SQL name');
  const $ = (i: number) => `$${firstParam + i}`;
  // Parameters in a SELECT list have no type of their own (they would be text): each is cast to its column's.
  return {
    sql: `${prefix}lane AS (
       INSERT INTO job_lanes (queue, tenant) SELECT ${$(0)}::text, ${$(7)}::text FROM ${source} ON CONFLICT DO NOTHING
     ),
     ${prefix}job AS (
       INSERT INTO jobs (${JOB_INSERT_COLUMNS})
       SELECT ${$(0)}::text, ${$(1)}::text, ${$(2)}::jsonb, ${$(3)}::timestamptz, ${$(4)}::integer, ${$(5)}::text,
         ${$(6)}::text, ${$(7)}::text, ${$(8)}::text
       FROM ${source}
       ON CONFLICT DO NOTHING
       RETURNING id
     )`,
    params: jobValues(options),
  };
}

async function tryEnqueue<P>(tx: Queryable, options: EnqueueOptions<P>): Promise<EnqueueResult | undefined> {
  // The lane insert rides in the same statement; ON CONFLICT DO NOTHING takes no lock on an existing lane,
  // so concurrent enqueues of one tenant never wait for each other here.
  const inserted = await tx.query<{ id: string }>(
    `WITH lane AS (INSERT INTO job_lanes (queue, tenant) VALUES ($1, $8) ON CONFLICT DO NOTHING)
     INSERT INTO jobs (${JOB_INSERT_COLUMNS})
     VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7, $8, $9)
     ON CONFLICT DO NOTHING
     RETURNING id`,
    jobValues(options),
  );
  const row = inserted.rows[0];
  // Workers re-poll briefly after a wake-up, so a nudge that arrives before the commit is not lost.
  if (row) {
    notifyJobsDue(options.queue);
    return { id: String(row.id), created: true };
  }
  const existing = await tx.query<{ id: string }>(
    `SELECT id FROM jobs WHERE key = $1 OR (pending_key = $2 AND state IN ('pending', 'running'))
     ORDER BY id LIMIT 1`,
    [options.key ?? null, options.pendingKey ?? null],
  );
  const found = existing.rows[0];
  return found ? { id: String(found.id), created: false } : undefined;
}

export type JobRef = { id: string } | { key: string };

function refClause(ref: JobRef): [string, string] {
  return 'id' in ref ? ['id = $1::bigint', ref.id] : ['key = $1', ref.key];
}

/** The UPDATE of `reschedule`, for the jobs `where` selects, `runAt` in `at`. */
function rescheduleUpdate(where: string, at: string): string {
  return `UPDATE jobs SET
       run_at = CASE WHEN state = 'pending' THEN LEAST(run_at, ${at}) ELSE run_at END,
       nudge_at = CASE WHEN state = 'running' THEN LEAST(COALESCE(nudge_at, ${at}), ${at}) ELSE nudge_at END,
       updated_at = now()
     WHERE ${where} AND state IN ('pending', 'running')
     RETURNING queue`;
}

/**
 * Brings a job forward to `runAt` (never pushes it back). A pending job becomes due then; a running job is
 * marked so that, if its handler asks for a later retry, it runs again no later than `runAt`.
 * Returns whether a pending or running job was found.
 */
export async function reschedule(db: Queryable, ref: JobRef, runAt: Date = new Date()): Promise<boolean> {
  const [where, value] = refClause(ref);
  const r = await db.query<{ queue: string }>(rescheduleUpdate(where, '$2::timestamptz'), [value, runAt]);
  const queue = r.rows[0]?.queue;
  if (queue) notifyJobsDue(queue);
  return queue !== undefined;
}

/**
 * `reschedule` as a CTE of a caller's statement, `<prefix>brought` (it returns the queue of each job it found),
 * for the jobs whose keys `keys` selects (a subquery over the statement's other CTEs), to `runAt`; its one
 * parameter is `$firstParam`. Call `notifyJobsDue(queue)` for what it returned once the statement ran.
 */
export function rescheduleCtes(
  keys: string,
  firstParam: number,
  runAt: Date = new Date(),
  prefix = '',
): { sql: string; params: unknown[] } {
  if (!/^([a-z_][a-z0-9_]*)?$/.test(prefix))
    throw new TypeError('rescheduleCtes: prefix must be an SQL name');
  return {
    sql: `${prefix}brought AS (${rescheduleUpdate(`key IN (${keys})`, `$${firstParam}::timestamptz`)})`,
    params: [runAt],
  };
}

export async function getJob<P = unknown>(db: Queryable, ref: JobRef): Promise<Job<P> | undefined> {
  const [where, value] = refClause(ref);
  const r = await db.query<JobRow>(`SELECT ${JOB_COLUMNS} FROM jobs WHERE ${where}`, [value]);
  return r.rows[0] ? toJob<P>(r.rows[0]) : undefined;
}

/**
 * Deletes finished (done or failed) jobs that finished before `before`, the oldest first and at most `limit`
 * of them (all when omitted); returns how many. Their keys become free again, so keep finished jobs at least
 * as long as a duplicate enqueue could still arrive. A limit keeps each statement's locks and WAL small when
 * a long backlog of finished jobs goes at once (see housekeeping.ts).
 */
export async function pruneJobs(db: Queryable, before: Date, limit?: number): Promise<number> {
  // LIMIT NULL is no limit: one statement for both.
  const r = await db.query(
    `DELETE FROM jobs WHERE id IN (
       SELECT id FROM jobs WHERE state IN ('done', 'failed') AND finished_at < $1
       ORDER BY finished_at LIMIT $2)`,
    [before, limit ?? null],
  );
  return r.rowCount;
}
