// The queue's hourly housekeeping run: finished jobs go once past the retention (waiting and running ones
// never do), then the rows the app's own tasks find lapsed.
import type { TestDatabase } from '@cr/service-kit';
import {
  HOUSEKEEPING_QUEUE,
  type HousekeepingTask,
  type JobContext,
  type SizedHousekeepingTask,
  Worker,
  enqueue,
  getJob,
  housekeepingJob,
  periodicQueues,
  pruneFinishedJobs,
  pruneJobs,
  schedulePeriodicRuns,
} from '../src';
import { createClock, useJobsDatabase } from './helpers';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const suite = useJobsDatabase();
let db: TestDatabase;
beforeEach(() => {
  db = suite.db;
});

/** A job of queue `q` that finished (done, or failed) at `finishedAt`. */
async function finished(finishedAt: Date, state: 'done' | 'failed' = 'done'): Promise<string> {
  const { id } = await enqueue(db, { tenant: '', queue: 'q', payload: {} });
  await db.query('UPDATE jobs SET state = $2, finished_at = $3 WHERE id = $1', [id, state, finishedAt]);
  return id;
}

async function ids(): Promise<string[]> {
  const r = await db.query<{ id: string }>("SELECT id::text AS id FROM jobs WHERE queue = 'q' ORDER BY id");
  return r.rows.map((row) => row.id);
}

describe('pruneJobs with a limit', () => {
  it('deletes the oldest finished jobs first, at most the limit, and never a waiting or running one', async () => {
    const now = Date.now();
    await finished(new Date(now - 10 * HOUR), 'failed');
    const byAge = [];
    for (const hours of [5, 4, 3, 2, 1]) byAge.push(await finished(new Date(now - hours * HOUR)));
    const waiting = (
      await enqueue(db, { tenant: '', queue: 'q', payload: {}, runAt: new Date(now - 30 * DAY) })
    ).id;
    const running = (await enqueue(db, { tenant: '', queue: 'q', payload: {} })).id;
    await db.query("UPDATE jobs SET state = 'running', locked_by = 'w', locked_until = $2 WHERE id = $1", [
      running,
      new Date(now + HOUR),
    ]);
    const before = new Date(now - 90 * 60_000);

    expect(await pruneJobs(db, before, 2)).toBe(2);
    expect(await ids()).toEqual([...byAge.slice(1), waiting, running]);

    expect(await pruneFinishedJobs(db, before, 2)).toBe(3);
    expect(await ids()).toEqual([byAge[4], waiting, running]);
    expect(await pruneFinishedJobs(db, before, 2)).toBe(0);
  });
});

/** A week's retention, three jobs per statement, and the app's `tasks`. */
function weeklyHousekeeping(tasks: Record<string, HousekeepingTask | SizedHousekeepingTask>) {
  return housekeepingJob({ db, jobRetentionMs: 7 * DAY, batchSize: 3, tasks });
}

describe('the housekeeping run', () => {
  beforeAll(async () => {
    await suite.db.exec(
      'CREATE TABLE IF NOT EXISTS lapsing (id serial PRIMARY KEY, expires_at timestamptz NOT NULL)',
    );
  });

  it('when its hour comes, then finished jobs past the retention go batch after batch, then the lapsed rows of each task in its own batch size, and the next hour is scheduled once', async () => {
    const clock = createClock(Date.parse('2026-12-02T14:20:00Z'));
    const now = clock.now().getTime();
    for (let i = 0; i < 7; i++) await finished(new Date(now - 8 * DAY - i * HOUR), i % 2 ? 'failed' : 'done');
    const recent = await finished(new Date(now - DAY));
    const waiting = (await enqueue(db, { tenant: '', queue: 'q', payload: {}, runAt: new Date(now + DAY) }))
      .id;
    await db.exec('DELETE FROM lapsing');
    for (let i = 0; i < 5; i++)
      await db.query('INSERT INTO lapsing (expires_at) VALUES ($1)', [new Date(now - HOUR)]);
    await db.query('INSERT INTO lapsing (expires_at) VALUES ($1)', [new Date(now + HOUR)]);
    const taskCalls: number[] = [];

    // Heavier rows than a job's: two per statement while the jobs go three at a time.
    const housekeeping = weeklyHousekeeping({
      'lapsed rows': {
        batchSize: 2,
        task: async (at, limit) => {
          const r = await db.query(
            'DELETE FROM lapsing WHERE id IN (SELECT id FROM lapsing WHERE expires_at <= $1 ORDER BY id LIMIT $2)',
            [at, limit],
          );
          taskCalls.push(r.rowCount);
          return r.rowCount;
        },
      },
    });

    await schedulePeriodicRuns(db, [housekeeping], clock.now());
    // A restart (or another replica) in the same hour adds nothing.
    clock.advance(10 * 60_000);
    await schedulePeriodicRuns(db, [housekeeping], clock.now());
    expect(await getJob(db, { key: `${HOUSEKEEPING_QUEUE}:2026-12-02T14:00:00.000Z` })).toMatchObject({
      state: 'pending',
    });

    const worker = new Worker({ db, now: clock.now, queues: periodicQueues(db, [housekeeping]) });
    expect(await worker.runOnce()).toBe(1);

    expect(await ids()).toEqual([recent, waiting]);
    expect(taskCalls).toEqual([2, 2, 1]);
    const left = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM lapsing');
    expect(left.rows[0]?.n).toBe(1);
    expect(await getJob(db, { key: `${HOUSEKEEPING_QUEUE}:2026-12-02T14:00:00.000Z` })).toMatchObject({
      state: 'done',
    });
    const next = await getJob(db, { key: `${HOUSEKEEPING_QUEUE}:2026-12-02T15:00:00.000Z` });
    expect(next).toMatchObject({ state: 'pending' });
    expect(next?.runAt.toISOString()).toBe('2026-12-02T15:00:00.000Z');
    const runs = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM jobs WHERE queue = $1', [
      HOUSEKEEPING_QUEUE,
    ]);
    expect(runs.rows[0]?.n).toBe(2);
    // Nothing due before the next hour.
    expect(await worker.runOnce()).toBe(0);
  });

  it('when the worker stops it half-way, then no further batch starts and the run says it was interrupted', async () => {
    const now = Date.parse('2026-12-02T14:20:00Z');
    for (let i = 0; i < 7; i++) await finished(new Date(now - 8 * DAY - i * HOUR));
    const stopping = new AbortController();
    const calls: string[] = [];
    const job = weeklyHousekeeping({
      // The worker is asked to stop during this task's first batch, which had a full batch to delete.
      first: async () => {
        calls.push('first');
        stopping.abort();
        return 3;
      },
      second: async () => {
        calls.push('second');
        return 0;
      },
    });
    const context = { signal: stopping.signal, now: () => new Date(now) } as unknown as JobContext;

    expect(await job.run(new Date(now), context)).toBe('interrupted');
    expect(await ids()).toEqual([]);
    expect(calls).toEqual(['first']);
  });
});
