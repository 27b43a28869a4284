// Finished jobs go once past the retention, by the queue's own hourly job; waiting and running ones never do.
import type { TestDatabase } from '@cr/service-kit';
import {
  PRUNE_QUEUE,
  Worker,
  enqueue,
  getJob,
  pruneFinishedJobs,
  pruneJobs,
  pruneQueue,
  schedulePrune,
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
  const { id } = await enqueue(db, { queue: 'q', payload: {} });
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
    const waiting = (await enqueue(db, { queue: 'q', payload: {}, runAt: new Date(now - 30 * DAY) })).id;
    const running = (await enqueue(db, { queue: 'q', payload: {} })).id;
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

describe('the prune queue', () => {
  it('when its run comes, then what finished before the retention goes, batch after batch, and the next hour is scheduled', async () => {
    const clock = createClock(Date.parse('2026-12-02T14:20:00Z'));
    const now = clock.now().getTime();
    const old = [];
    for (let i = 0; i < 7; i++)
      old.push(await finished(new Date(now - 8 * DAY - i * HOUR), i % 2 ? 'failed' : 'done'));
    const recent = await finished(new Date(now - DAY));
    const waiting = (await enqueue(db, { queue: 'q', payload: {}, runAt: new Date(now + DAY) })).id;

    await schedulePrune(db, clock.now());
    // A restart (or another replica) in the same hour adds nothing.
    clock.advance(10 * 60_000);
    await schedulePrune(db, clock.now());
    const current = await getJob(db, { key: `${PRUNE_QUEUE}:2026-12-02T14:00:00.000Z` });
    expect(current).toMatchObject({ state: 'pending', queue: PRUNE_QUEUE });

    const worker = new Worker({
      db,
      now: clock.now,
      queues: pruneQueue({ db, retentionMs: 7 * DAY, batchSize: 3 }),
    });
    expect(await worker.runOnce()).toBe(1);

    expect(await ids()).toEqual([recent, waiting]);
    expect(await getJob(db, { key: `${PRUNE_QUEUE}:2026-12-02T14:00:00.000Z` })).toMatchObject({
      state: 'done',
    });
    const next = await getJob(db, { key: `${PRUNE_QUEUE}:2026-12-02T15:00:00.000Z` });
    expect(next).toMatchObject({ state: 'pending' });
    expect(next?.runAt.toISOString()).toBe('2026-12-02T15:00:00.000Z');
    const prune = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM jobs WHERE queue = $1', [
      PRUNE_QUEUE,
    ]);
    expect(prune.rows[0]?.n).toBe(2);
    // Nothing due before the next hour.
    expect(await worker.runOnce()).toBe(0);
  });
});
