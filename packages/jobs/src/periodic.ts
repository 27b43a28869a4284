// Periodic jobs: work that runs once per period (an hour, a Costa Rica day) as a job of the queue itself.
// A period's run is the job keyed `<queue>:<period's name>`; the run enqueues the next period's before it
// records done, and the service makes sure a run is to come at start. The key is what makes it once:
// replicas and restarts enqueue the same key, which the queue keeps once, and a service that was down for
// several periods runs the waiting one now and chains on from there (no run per missed period).
import type { Db } from '@cr/service-kit';
import { type Job, enqueue } from './queue';
import { type JobContext, type JobResult, type QueueOptions, jobResult } from './worker';

/** How time divides into a periodic job's periods. */
export interface Period {
  /** The name of the period that holds `at`; two instants of one period give the same name. */
  nameAt(at: Date): string;
  /** When the period after the one that holds `at` begins: the time its run is due. */
  nextStart(at: Date): Date;
}

export interface PeriodicJob {
  /** The queue its runs go through; one periodic job per queue. */
  queue: string;
  period: Period;
  /**
   * One period's work, at the worker's `now`; a throw retries the run as any job's would. 'interrupted'
   * (the worker stopped it half-way, `context.signal`): the run waits to run again at the next start, and
   * the next period is enqueued by that run instead of this one.
   */
  run(now: Date, context: JobContext): Promise<'done' | 'interrupted'>;
}

/** Periods of `ms` each, counted from the Unix epoch (hours start on the hour), named by their start. */
export function fixedPeriod(ms: number): Period {
  const start = (at: Date) => Math.floor(at.getTime() / ms) * ms;
  return {
    nameAt: (at) => new Date(start(at)).toISOString(),
    nextStart: (at) => new Date(start(at) + ms),
  };
}

function periodicKey(job: Pick<PeriodicJob, 'queue' | 'period'>, at: Date): string {
  return `${job.queue}:${job.period.nameAt(at)}`;
}

/**
 * Makes sure each job has a run to come; call at start. A job whose chain holds (a run waiting or running,
 * however old its period) is left to it: after a service was down, its waiting run catches up alone rather
 * than beside a second one for the current period. Otherwise (a first start, a run that failed for good) the
 * current period's run is enqueued to run now, unless that period already had it (its key).
 */
export async function schedulePeriodicRuns(db: Db, jobs: readonly PeriodicJob[], now: Date): Promise<void> {
  for (const job of jobs) {
    const chained = await db.query(
      "SELECT 1 FROM jobs WHERE queue = $1 AND state IN ('pending', 'running') LIMIT 1",
      [job.queue],
    );
    if (chained.rows.length > 0) continue;
    await enqueue(db, { queue: job.queue, tenant: '', key: periodicKey(job, now), payload: {}, runAt: now });
  }
}

/** The jobs' queues for a worker: each run does its period's work, then enqueues the next period's run. */
export function periodicQueues(
  db: Db,
  jobs: readonly PeriodicJob[],
): Record<string, QueueOptions<Record<string, never>>> {
  const queues: Record<string, QueueOptions<Record<string, never>>> = {};
  for (const job of jobs) {
    if (queues[job.queue]) throw new Error(`two periodic jobs share the queue ${job.queue}`);
    queues[job.queue] = {
      handler: async (_job: Job<Record<string, never>>, context): Promise<JobResult> => {
        const now = context.now();
        if ((await job.run(now, context)) === 'interrupted') {
          return jobResult.retryAt(now, 'interrupted by the worker stopping');
        }
        const next = job.period.nextStart(now);
        await enqueue(db, {
          queue: job.queue,
          tenant: '',
          key: periodicKey(job, next),
          payload: {},
          runAt: next,
        });
        return jobResult.done();
      },
    };
  }
  return queues;
}
