// Finished jobs deleted once they are older than the retention, by a job of the queue itself. Every document
// leaves four or five finished jobs behind (submission, status, webhook, e-mail); kept for good, the table
// and its indexes grow with every document a service ever handled, and the vacuum thresholds, a share of
// the table's size, let ever more dead rows build up before anything is vacuumed. A finished job is kept for
// the retention because its key still deduplicates enqueues and its last_error still says why it failed.
//
// One run per period (key `jobs.prune:<period's start>`): each run enqueues the next period's, so replicas
// and restarts never run a period twice, and a service that was down for a while catches up in one run.
import type { Db, Logger } from '@cr/service-kit';
import { type Job, enqueue, pruneJobs } from './queue';
import { type JobResult, type QueueOptions, jobResult } from './worker';

export const PRUNE_QUEUE = 'jobs.prune';

const HOUR_MS = 3_600_000;
/** Rows per DELETE: each statement's locks and WAL stay small however long the backlog. */
const PRUNE_BATCH = 1_000;

export interface PruneOptions {
  db: Db;
  /** Finished jobs older than this are deleted. */
  retentionMs: number;
  /** How often a run happens; default hourly. */
  everyMs?: number;
  batchSize?: number;
  logger?: Logger;
}

function periodStart(now: Date, everyMs: number): Date {
  return new Date(Math.floor(now.getTime() / everyMs) * everyMs);
}

function pruneKey(start: Date): string {
  return `${PRUNE_QUEUE}:${start.toISOString()}`;
}

/** Makes sure the current period's run exists (it runs now if it has not run yet); call at start. */
export async function schedulePrune(db: Db, now: Date, everyMs = HOUR_MS): Promise<void> {
  await enqueue(db, {
    queue: PRUNE_QUEUE,
    key: pruneKey(periodStart(now, everyMs)),
    payload: {},
    runAt: now,
  });
}

/** Deletes the finished jobs past the retention, batch by batch; returns how many. */
export async function pruneFinishedJobs(
  db: Db,
  before: Date,
  batchSize = PRUNE_BATCH,
  signal?: AbortSignal,
): Promise<number> {
  let pruned = 0;
  for (;;) {
    const deleted = await pruneJobs(db, before, batchSize);
    pruned += deleted;
    if (deleted < batchSize || signal?.aborted) return pruned;
  }
}

export function pruneQueue(options: PruneOptions): Record<string, QueueOptions<Record<string, never>>> {
  const everyMs = options.everyMs ?? HOUR_MS;
  return {
    [PRUNE_QUEUE]: {
      handler: async (_job: Job<Record<string, never>>, context): Promise<JobResult> => {
        const now = context.now();
        const before = new Date(now.getTime() - options.retentionMs);
        const pruned = await pruneFinishedJobs(options.db, before, options.batchSize, context.signal);
        if (pruned > 0)
          options.logger?.info('finished jobs pruned', { pruned, before: before.toISOString() });
        const next = new Date(periodStart(now, everyMs).getTime() + everyMs);
        await enqueue(options.db, { queue: PRUNE_QUEUE, key: pruneKey(next), payload: {}, runAt: next });
        return jobResult.done();
      },
    },
  };
}
