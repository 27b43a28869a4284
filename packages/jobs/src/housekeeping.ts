// The hourly housekeeping run, a job of the queue itself: finished jobs older than the retention are
// deleted, then whatever else the app registers (rows that lapse, such as expired idempotency keys). Every
// document leaves four or five finished jobs behind (submission, status, webhook, e-mail); kept for good, the
// table and its indexes grow with every document a service ever handled, and the vacuum thresholds, a share
// of the table's size, let ever more dead rows build up before anything is vacuumed (ADR 0050). A finished
// job is kept for the retention because its key still deduplicates enqueues and its last_error still says
// why it failed.
//
// One run per hour, a periodic job (periodic.ts): replicas and restarts never run an hour twice, and a
// service that was down for a while catches up in one run.
import type { Db, Logger } from '@cr/service-kit';
import { type PeriodicJob, fixedPeriod } from './periodic';
import { pruneJobs } from './queue';

export const HOUSEKEEPING_QUEUE = 'housekeeping';

const HOUR_MS = 3_600_000;
/** Rows per DELETE: each statement's locks and WAL stay small however long the backlog. */
const HOUSEKEEPING_BATCH = 1_000;

/**
 * One more kind of row the run deletes (or empties): up to `limit` of them that have lapsed by `now`,
 * returning how many went. The run calls it again until it returns fewer than `limit`.
 */
export type HousekeepingTask = (now: Date, limit: number) => Promise<number>;

/** A task whose rows are heavier than a job's: fewer of them per statement than the run's batch size. */
export interface SizedHousekeepingTask {
  task: HousekeepingTask;
  batchSize: number;
}

export interface HousekeepingOptions {
  db: Db;
  /** Finished jobs older than this are deleted. */
  jobRetentionMs: number;
  /** The app's own lapsed rows, by a name for the log. */
  tasks?: Record<string, HousekeepingTask | SizedHousekeepingTask>;
  /** How often a run happens; default hourly. */
  everyMs?: number;
  batchSize?: number;
  logger?: Logger;
}

/** Runs `deleteBatch` until a batch comes back short (or the worker stops); returns the rows deleted. */
async function inBatches(
  deleteBatch: (limit: number) => Promise<number>,
  batchSize: number,
  signal?: AbortSignal,
): Promise<number> {
  let deleted = 0;
  while (!signal?.aborted) {
    const n = await deleteBatch(batchSize);
    deleted += n;
    if (n < batchSize) break;
  }
  return deleted;
}

/** Deletes the finished jobs that finished before `before`, batch by batch; returns how many. */
export function pruneFinishedJobs(
  db: Db,
  before: Date,
  batchSize = HOUSEKEEPING_BATCH,
  signal?: AbortSignal,
): Promise<number> {
  return inBatches((limit) => pruneJobs(db, before, limit), batchSize, signal);
}

/** The hourly run (every `everyMs`), for `periodicQueues` and `schedulePeriodicRuns`. */
export function housekeepingJob(options: HousekeepingOptions): PeriodicJob {
  const batchSize = options.batchSize ?? HOUSEKEEPING_BATCH;
  return {
    queue: HOUSEKEEPING_QUEUE,
    period: fixedPeriod(options.everyMs ?? HOUR_MS),
    run: async (now, context) => {
      const deleted: Record<string, number> = {};
      const before = new Date(now.getTime() - options.jobRetentionMs);
      deleted['finished jobs'] = await pruneFinishedJobs(options.db, before, batchSize, context.signal);
      for (const [name, entry] of Object.entries(options.tasks ?? {})) {
        const { task, batchSize: size } = typeof entry === 'function' ? { task: entry, batchSize } : entry;
        deleted[name] = await inBatches((limit) => task(now, limit), size, context.signal);
      }
      if (Object.values(deleted).some((n) => n > 0)) options.logger?.info('housekeeping', { deleted });
      // A stopping worker cut a batch loop short: what is left goes when the service starts again.
      return context.signal.aborted ? 'interrupted' : 'done';
    },
  };
}
