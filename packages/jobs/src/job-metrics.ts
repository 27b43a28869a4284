// Scrape-time gauges of the queue table: jobs by queue and state, and how long the oldest due job has
// waited (the alert on queue age reads it). Finished 'done' rows are history, not queue, and are left out.
// When the read fails (the database is unreachable) the gauges keep their last values: service-kit's
// onScrape logs it and sets metrics_collector_up{collector="jobs"} to 0, which the MetricsCollectorFailing
// alert reads, since JobQueueBacklog/JobQueueStalled cannot see a queue they cannot read.
import { type Db, metrics, onScrape } from '@cr/service-kit';

export function collectJobMetrics(db: Db, now: () => Date = () => new Date()): () => void {
  return onScrape('jobs', async () => {
    const at = now();
    const r = await db.query<{ queue: string; state: string; n: number; oldest_due: Date | string | null }>(
      `SELECT queue, state, count(*)::int AS n,
              min(run_at) FILTER (WHERE state = 'pending' AND run_at <= $1) AS oldest_due
         FROM jobs WHERE state <> 'done' GROUP BY queue, state`,
      [at],
    );
    metrics.jobs.queued.reset();
    metrics.jobs.oldestDueAge.reset();
    for (const row of r.rows) {
      metrics.jobs.queued.set({ queue: row.queue, state: row.state }, row.n);
      if (row.state === 'pending') {
        const oldest = row.oldest_due === null ? at : new Date(row.oldest_due);
        metrics.jobs.oldestDueAge.set(
          { queue: row.queue },
          Math.max(0, (at.getTime() - oldest.getTime()) / 1000),
        );
      }
    }
  });
}
