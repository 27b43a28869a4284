// Runs jobs: claims due ones with one UPDATE … FOR UPDATE SKIP LOCKED statement (no transaction is held
// while a handler runs, which PGlite's single session requires), leases them (`locked_until`, extended
// while the handler works) so a crashed worker's jobs come back, and records the outcome guarded by the
// claim's fencing token (worker id + attempt), so a worker that lost its lease cannot overwrite a newer run.
import { randomUUID } from 'node:crypto';
import {
  CteWrites,
  type Db,
  type Logger,
  type Queryable,
  type Span,
  SpanKind,
  contextFromTraceparent,
  metrics,
  recordSpanError,
  runWithRequestContext,
  withSpan,
} from '@cr/service-kit';
import { computeBackoff } from './backoff';
import { JOB_COLUMNS, type Job, type JobRow, jobEvents, toJob } from './queue';

export type JobResult =
  | { kind: 'done' }
  | { kind: 'retry'; at: Date; error?: string }
  | { kind: 'fail'; error: string };

export const jobResult = {
  done: (): JobResult => ({ kind: 'done' }),
  /** Run again at `at` (not counted as a failure beyond the attempt itself). */
  retryAt: (at: Date, error?: string): JobResult =>
    error === undefined ? { kind: 'retry', at } : { kind: 'retry', at, error },
  /** Give up for good. */
  fail: (error: string): JobResult => ({ kind: 'fail', error }),
};

export interface JobContext {
  /** Aborted when the worker stops; long handlers should give up and let the lease bring the job back. */
  signal: AbortSignal;
  /** The worker's clock. */
  now(): Date;
  /**
   * Records `result` for this run inside the handler's own transaction `tx`, guarded like the worker's own
   * record: the job's outcome then commits with the handler's last writes or not at all, and costs no
   * statement (nor commit) of its own. The handler must then return that same result. Returns whether the
   * run still held its lease (false: another run owns the job; the result was not recorded).
   *
   * `writes`, the handler's last writes, go in the record's statement (one round trip for both). They are
   * made whether or not the run still held its lease, as writes made before finishIn would be; what they
   * select (`CteWrites.select`) is in their `selected()` afterwards (`recorded` is the record's column).
   */
  finishIn(tx: Queryable, result: JobResult, writes?: CteWrites): Promise<boolean>;
}

/** Returns a result, or nothing for done; a thrown error retries on the queue's backoff. */
export type JobHandler<P = unknown> = (
  job: Job<P>,
  context: JobContext,
) => Promise<JobResult | undefined> | Promise<void>;

export interface QueueOptions<P = unknown> {
  handler: JobHandler<P>;
  /** Delays for retries after a thrown error; default [1s, 5s, 30s, 2min, 10min]. */
  backoff?: readonly number[];
  backoffCapMs?: number;
  /** Fails a job whose handler has thrown this many times; a job's own `maxAttempts` wins. Default unlimited. */
  maxAttempts?: number;
}

export interface WorkerOptions {
  db: Db;
  // biome-ignore lint/suspicious/noExplicitAny: each queue has its own payload type
  queues: Record<string, QueueOptions<any>>;
  /** Handlers running at once in this worker; default 4. */
  concurrency?: number;
  /** Polling interval when idle; default 1000 ms. */
  pollIntervalMs?: number;
  /**
   * While handlers run, a claim waits until this many slots are free (default half the concurrency) or
   * until `coalesceMs` has passed since it was wanted: one claim statement then fills several slots instead
   * of one per finished job. With nothing running a claim goes at once.
   */
  minClaim?: number;
  /** The longest a wanted claim waits for more free slots; default 10 ms. */
  coalesceMs?: number;
  /** How long a claim lasts without a heartbeat; default 60 s. Extended every lease/3 while running. */
  leaseMs?: number;
  /** Injected clock (tests). */
  now?: () => Date;
  random?: () => number;
  logger?: Logger;
  workerId?: string;
}

/**
 * One statement claims a batch fairly (jobs_claim, migrations.ts). Each lane (queue, tenant) offers its oldest
 * due jobs (at most a batch, through the jobs_lane_due index); the offers are numbered per tenant (round 1 is
 * every tenant's oldest, round 2 its next…) and taken round by round, within a round the tenant served longest
 * ago first (job_lanes.served_at), then the oldest job. A tenant with 10,000 queued jobs gets its turn like
 * everyone else instead of the next 10,000 slots, and even one-slot claims rotate.
 * The window sits in a CTE because FOR UPDATE is not allowed beside one; the locking SELECT repeats the
 * due condition, which PostgreSQL rechecks on the newest row version, so a job another worker claimed
 * meanwhile is not claimed twice. The served lanes are stamped with SKIP LOCKED: a lane another claim is
 * stamping right now is being stamped anyway, and no claim waits for (or deadlocks with) another.
 * Plain SQL that PGlite runs too: LATERAL, window functions, data-modifying CTEs, SKIP LOCKED.
 */
const CLAIM_SQL = `SELECT ${JOB_COLUMNS} FROM jobs_claim($1, $2, $3::text[], $4, $5)`;

/** last_error of a job failed because its runs kept ending with its process (no error was ever thrown). */
export const LEASE_EXPIRED_ERROR =
  'its lease expired on its last attempt: the run ended with its process or hung';

/**
 * Expired leases go back to pending, so the next claim takes them fairly like any other due job; the attempt
 * they count stays, and the dead run's late outcome no longer matches its fencing token. A job whose last
 * run died is due when its lease ended, however many retries it had asked for before; one whose runs keep
 * dying in a row (a handler that kills its process, say; lease_expiries, reset by any recorded outcome)
 * waits 1, 3, 7… minutes more each time, up to an hour, instead of taking the process down every lease; past
 * its maxAttempts (the job's, else its queue's: $3, aligned with $1) it fails as a throwing handler would. A
 * reschedule() that arrived during the dead run (nudge_at) still wins when it is sooner, as in jobs_record.
 * Also says when the next lease of these queues ends, so the worker looks again exactly then. Kept out of the
 * claim, which runs for every batch, because leases rarely expire (a worker crashed or hung).
 */
const RECLAIM_EXPIRED_SQL = `
WITH expired AS (
  SELECT j.id, j.attempts >= COALESCE(j.max_attempts, ($3::int[])[array_position($1::text[], j.queue)])
           AS spent,
         LEAST(interval '1 minute' * (power(2, LEAST(j.lease_expiries, 7)) - 1), interval '1 hour') AS backoff
  FROM jobs j
  WHERE j.queue = ANY($1::text[]) AND j.state = 'running' AND j.locked_until <= $2
  FOR UPDATE SKIP LOCKED
), returned AS (
  UPDATE jobs j SET state = CASE WHEN e.spent THEN 'failed' ELSE 'pending' END,
         run_at = LEAST(j.locked_until + e.backoff, COALESCE(j.nudge_at, j.locked_until + e.backoff)),
         finished_at = CASE WHEN e.spent THEN $2 ELSE j.finished_at END,
         last_error = CASE WHEN e.spent THEN '${LEASE_EXPIRED_ERROR}' ELSE j.last_error END,
         lease_expiries = j.lease_expiries + 1,
         locked_by = NULL, locked_until = NULL, nudge_at = NULL, updated_at = now()
  FROM expired e
  WHERE j.id = e.id
  RETURNING j.id
)
SELECT (SELECT array_agg(id ORDER BY id)::text[] FROM returned) AS expired,
       (SELECT min(j.locked_until) FROM jobs j
        WHERE j.queue = ANY($1::text[]) AND j.state = 'running' AND j.locked_until > $2) AS next_expiry`;

const DEFAULT_BACKOFF = [1_000, 5_000, 30_000, 120_000, 600_000];
const MAX_ERROR_LENGTH = 2_000;
/** After an in-process "due" event, the worker looks again this long after it (ms): see onDue. */
const REWAKE_AFTER_DUE_MS = [25, 250];

function describeError(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.slice(0, MAX_ERROR_LENGTH);
}

export class Worker {
  readonly id: string;
  private readonly db: Db;
  // biome-ignore lint/suspicious/noExplicitAny: each queue has its own payload type
  private readonly queues: Record<string, QueueOptions<any>>;
  private readonly queueNames: string[];
  private readonly concurrency: number;
  private readonly pollIntervalMs: number;
  private readonly minClaim: number;
  private readonly coalesceMs: number;
  private readonly leaseMs: number;
  private readonly now: () => Date;
  private readonly random: () => number;
  private readonly logger: Logger | undefined;
  private readonly running = new Map<string, Promise<void>>();
  /** When (worker clock, ms) expired leases are next looked for: at the earliest one's end, or lease/3. */
  private nextLeaseCheck = Number.NEGATIVE_INFINITY;
  private readonly abort = new AbortController();
  private started = false;
  private stopping = false;
  private polling: Promise<void> | undefined;
  private pollAgain = false;
  private timer: NodeJS.Timeout | undefined;
  private coalesceTimer: NodeJS.Timeout | undefined;
  private readonly onDue = (queue: string) => {
    if (!this.queues[queue]) return;
    this.wake();
    // The enqueuing transaction may not have committed yet: look again shortly after, and once more later
    // for a commit slowed by a loaded machine (the poll interval is the last resort).
    for (const ms of REWAKE_AFTER_DUE_MS) setTimeout(() => this.wake(), ms).unref();
  };

  constructor(options: WorkerOptions) {
    this.db = options.db;
    this.queues = options.queues;
    this.queueNames = Object.keys(options.queues);
    if (this.queueNames.length === 0) throw new TypeError('Worker: at least one queue is required');
    this.concurrency = Math.max(1, options.concurrency ?? 4);
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.minClaim = Math.min(
      this.concurrency,
      Math.max(1, options.minClaim ?? Math.ceil(this.concurrency / 2)),
    );
    this.coalesceMs = options.coalesceMs ?? 10;
    this.leaseMs = options.leaseMs ?? 60_000;
    this.now = options.now ?? (() => new Date());
    this.random = options.random ?? Math.random;
    this.logger = options.logger;
    this.id = options.workerId ?? `w-${randomUUID()}`;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    jobEvents.on('due', this.onDue);
    this.wake();
  }

  /**
   * Looks for due jobs (also called on in-process enqueue): now when nothing runs or enough slots are free,
   * else once more slots free up or `coalesceMs` has passed.
   */
  wake(): void {
    if (!this.started || this.stopping) return;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    const free = this.concurrency - this.running.size;
    if (free <= 0) return; // the next handler to finish wakes the worker again
    if (this.running.size > 0 && free < this.minClaim) {
      this.coalesceTimer ??= setTimeout(() => {
        this.coalesceTimer = undefined;
        this.claimNow();
      }, this.coalesceMs).unref();
      return;
    }
    this.claimNow();
  }

  private claimNow(): void {
    if (!this.started || this.stopping) return;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    if (this.coalesceTimer) {
      clearTimeout(this.coalesceTimer);
      this.coalesceTimer = undefined;
    }
    this.polling = this.poll().finally(() => {
      this.polling = undefined;
      if (this.pollAgain) {
        this.pollAgain = false;
        this.wake();
      } else {
        this.schedule();
      }
    });
  }

  /**
   * Claims and runs what is due, once, and waits for those handlers (tests and scripts drive the worker
   * with this instead of the timer). Returns how many jobs ran.
   */
  async runOnce(): Promise<number> {
    const jobs = await this.claim(this.concurrency - this.running.size);
    await Promise.all(jobs.map((job) => this.launch(job)));
    return jobs.length;
  }

  /** Stops claiming, aborts the signal handlers see, and waits for running handlers (up to `timeoutMs`). */
  async stop(timeoutMs = 30_000): Promise<void> {
    this.stopping = true;
    jobEvents.off('due', this.onDue);
    if (this.timer) clearTimeout(this.timer);
    if (this.coalesceTimer) clearTimeout(this.coalesceTimer);
    await this.polling;
    this.abort.abort();
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.running.values()]),
      new Promise<void>((resolve) => {
        timeout = setTimeout(resolve, timeoutMs);
      }),
    ]);
    if (timeout) clearTimeout(timeout);
    if (this.running.size > 0) {
      this.logger?.warn('jobs: stopped with handlers still running; their leases will expire', {
        worker: this.id,
        running: this.running.size,
      });
    }
  }

  /** Number of handlers running now. */
  get busy(): number {
    return this.running.size;
  }

  private schedule(): void {
    if (this.stopping || !this.started) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), this.pollIntervalMs);
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    const free = this.concurrency - this.running.size;
    if (free <= 0) return;
    try {
      const jobs = await this.claim(free);
      for (const job of jobs) void this.launch(job);
      // A full batch suggests more is due.
      if (jobs.length === free) this.pollAgain = true;
    } catch (err) {
      this.logger?.error('jobs: claim failed', { worker: this.id, error: describeError(err) });
    }
  }

  private async claim(limit: number): Promise<Job[]> {
    if (limit <= 0) return [];
    const now = this.now();
    if (now.getTime() >= this.nextLeaseCheck) await this.reclaimExpired(now);
    const leaseUntil = new Date(now.getTime() + this.leaseMs);
    const r = await this.db.query<JobRow>(CLAIM_SQL, [this.id, leaseUntil, this.queueNames, now, limit]);
    return r.rows.map((row) => toJob(row));
  }

  /**
   * Returns this worker's queues' expired leases to pending. Looked for again when the earliest lease still
   * running ends, and at the latest after lease/3: a job claimed after this look, by a worker with the same
   * lease, ends later than that.
   */
  private async reclaimExpired(now: Date): Promise<void> {
    const r = await this.db.query<{ expired: string[] | null; next_expiry: Date | string | null }>(
      RECLAIM_EXPIRED_SQL,
      [this.queueNames, now, this.queueNames.map((q) => this.queues[q]!.maxAttempts ?? null)],
    );
    const row = r.rows[0];
    const nextExpiry = row?.next_expiry ? new Date(row.next_expiry).getTime() : Number.POSITIVE_INFINITY;
    this.nextLeaseCheck = Math.min(nextExpiry, now.getTime() + Math.floor(this.leaseMs / 3));
    if (row?.expired?.length) {
      this.logger?.warn('jobs: leases expired; their jobs are due again, or failed past maxAttempts', {
        worker: this.id,
        jobs: row.expired,
      });
    }
  }

  private launch(job: Job): Promise<void> {
    const run = this.execute(job).finally(() => {
      this.running.delete(job.id);
      if (this.started && !this.stopping) this.wake();
    });
    this.running.set(job.id, run);
    return run;
  }

  /**
   * One run inside the context of the request that enqueued the job: its log lines carry that request id
   * (or the job's own `job_<id>`), and its span continues the request's trace.
   */
  private execute(job: Job): Promise<void> {
    const requestId = job.requestId ?? `job_${job.id}`;
    return runWithRequestContext({ requestId }, () =>
      withSpan(
        `job ${job.queue}`,
        {
          kind: SpanKind.CONSUMER,
          parent: contextFromTraceparent(job.traceparent ?? undefined),
          attributes: { 'job.queue': job.queue, 'job.id': job.id, 'job.attempt': job.attempts },
        },
        (span) => this.executeInContext(job, span),
      ),
    );
  }

  private async executeInContext(job: Job, span: Span): Promise<void> {
    const queue = this.queues[job.queue];
    if (!queue) return;
    metrics.jobs.running.inc();
    const started = process.hrtime.bigint();
    const heartbeat = setInterval(
      () => void this.extendLease(job),
      Math.max(10, Math.floor(this.leaseMs / 3)),
    );
    heartbeat.unref();
    let result: JobResult;
    let recorded: { result: JobResult; held: boolean } | undefined;
    let threw = false;
    try {
      const returned: JobResult | undefined = (await queue.handler(job, {
        signal: this.abort.signal,
        now: this.now,
        finishIn: async (tx, r, writes) => {
          const held = await this.record(tx, job, r, writes);
          recorded = { result: r, held };
          return held;
        },
      })) as JobResult | undefined;
      result = returned ?? { kind: 'done' };
    } catch (err) {
      // Whatever finishIn wrote was rolled back with the handler's transaction, or the handler failed after
      // it committed: either way the worker records the outcome (a job already recorded is left as it is).
      recorded = undefined;
      threw = true;
      const limit = job.maxAttempts ?? queue.maxAttempts;
      const error = describeError(err);
      if (limit !== undefined && limit !== null && job.attempts >= limit) {
        result = { kind: 'fail', error };
      } else {
        const delay = computeBackoff(job.attempts, {
          schedule: queue.backoff ?? DEFAULT_BACKOFF,
          ...(queue.backoffCapMs === undefined ? {} : { capMs: queue.backoffCapMs }),
          random: this.random,
        });
        result = { kind: 'retry', at: new Date(this.now().getTime() + delay), error };
      }
      // withSpan never sees the error (the worker handles it), so the span is marked here.
      recordSpanError(span, err);
      this.reportThrown(job, result, err);
    } finally {
      clearInterval(heartbeat);
      metrics.jobs.running.dec();
      metrics.jobs.duration.observe({ queue: job.queue }, Number(process.hrtime.bigint() - started) / 1e9);
    }
    metrics.jobs.finished.inc({ queue: job.queue, outcome: result.kind });
    if (recorded) {
      // Said only now: until the handler returned, its transaction (and the outcome in it) could still roll back.
      this.reportRecorded(job, recorded.result, recorded.held, false);
      if (recorded.result.kind !== result.kind) {
        this.logger?.error('jobs: a handler returned another result than the one it recorded', {
          queue: job.queue,
          job: job.id,
          recorded: recorded.result.kind,
          returned: result.kind,
        });
      }
      return;
    }
    try {
      await this.complete(job, result, threw);
    } catch (err) {
      // The lease will bring the job back; running it again is the safe side.
      this.logger?.error('jobs: could not record a result', {
        worker: this.id,
        job: job.id,
        error: describeError(err),
      });
    }
  }

  private async extendLease(job: Job): Promise<void> {
    try {
      await this.db.query(
        "UPDATE jobs SET locked_until = $1 WHERE id = $2::bigint AND state = 'running' AND locked_by = $3 AND attempts = $4",
        [new Date(this.now().getTime() + this.leaseMs), job.id, this.id, job.attempts],
      );
    } catch (err) {
      this.logger?.warn('jobs: lease extension failed', {
        worker: this.id,
        job: job.id,
        error: describeError(err),
      });
    }
  }

  private async complete(job: Job, result: JobResult, thrown: boolean): Promise<void> {
    this.reportRecorded(job, result, await this.record(this.db, job, result), thrown);
  }

  /**
   * Writes a run's outcome through `db` (the pool, or a handler's transaction), after the handler's `writes`
   * in the same statement when it has some; false if the lease was lost.
   */
  private async record(db: Queryable, job: Job, result: JobResult, writes?: CteWrites): Promise<boolean> {
    const error = result.kind === 'done' ? null : (result.error?.slice(0, MAX_ERROR_LENGTH) ?? null);
    const retryAt = result.kind === 'retry' ? result.at : null;
    const row = await (writes ?? new CteWrites()).run<{ recorded: boolean }>(
      db,
      (p) =>
        `jobs_record(${p(job.id)}::bigint, ${p(this.id)}, ${p(job.attempts)}, ${p(result.kind)}, ${p(error)}, ${p(retryAt)}, ${p(this.now())}) AS recorded`,
    );
    return row.recorded === true;
  }

  /**
   * One line per run whose handler threw, with the error itself (the logger keeps its stack, redacted):
   * last_error keeps only its name and message. A warning while the job will run again, an error when it
   * gave up. Said before the outcome is written, so a database that refuses the write loses no exception.
   */
  private reportThrown(job: Job, result: JobResult, err: unknown): void {
    const fields = { err, tenant: job.tenant, queue: job.queue, job: job.id, attempt: job.attempts };
    if (result.kind === 'retry') {
      this.logger?.warn('jobs: handler threw; the job runs again later', { ...fields, retryAt: result.at });
    } else {
      this.logger?.error('jobs: job failed: its handler threw on its last attempt', fields);
    }
  }

  /**
   * Logs a recorded outcome once it stands: a failure the handler returned (one it threw is already said,
   * by reportThrown), or a result the lost lease made the worker drop.
   */
  private reportRecorded(job: Job, result: JobResult, held: boolean, thrown: boolean): void {
    if (result.kind === 'fail' && !thrown) {
      this.logger?.error('jobs: job failed', {
        tenant: job.tenant,
        queue: job.queue,
        job: job.id,
        attempt: job.attempts,
        error: result.error,
      });
    }
    if (!held) {
      this.logger?.warn('jobs: lease lost before completion; result ignored', {
        job: job.id,
        worker: this.id,
      });
    }
  }
}
