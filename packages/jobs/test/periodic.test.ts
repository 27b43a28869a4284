// A periodic job runs once per period, chained: each run enqueues the next period's, and schedules at start
// (replicas, restarts) add nothing to a period that has its run.
import type { TestDatabase } from '@cr/service-kit';
import {
  type Period,
  type PeriodicJob,
  Worker,
  fixedPeriod,
  getJob,
  periodicQueues,
  schedulePeriodicRuns,
} from '../src';
import { createClock, useJobsDatabase } from './helpers';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const suite = useJobsDatabase();
let db: TestDatabase;
beforeEach(() => {
  db = suite.db;
});

/** Days of UTC, named by their date, each due at 06:00: a period whose runs do not fall on its start. */
const utcMornings: Period = {
  nameAt: (at) => at.toISOString().slice(0, 10),
  nextStart: (at) => new Date(Date.parse(`${at.toISOString().slice(0, 10)}T06:00:00Z`) + DAY),
};

function recordingJob(queue: string, period: Period, runs: Date[], failFirst = 0): PeriodicJob {
  let failures = failFirst;
  return {
    queue,
    period,
    run: async (now) => {
      if (failures-- > 0) throw new Error('the work failed');
      runs.push(now);
      return 'done';
    },
  };
}

async function keys(queue: string): Promise<Array<{ key: string; state: string; run_at: string }>> {
  const r = await db.query<{ key: string; state: string; run_at: Date }>(
    'SELECT key, state, run_at FROM jobs WHERE queue = $1 ORDER BY run_at',
    [queue],
  );
  return r.rows.map((row) => ({ ...row, run_at: new Date(row.run_at).toISOString() }));
}

describe('a periodic job', () => {
  it('when scheduled at start, then it runs now once, and each run enqueues the next period’s at its start', async () => {
    const clock = createClock(Date.parse('2026-12-02T14:20:00Z'));
    const runs: Date[] = [];
    const job = recordingJob('daily', utcMornings, runs);
    const worker = new Worker({ db, now: clock.now, queues: periodicQueues(db, [job]) });

    await schedulePeriodicRuns(db, [job], clock.now());
    clock.advance(10 * MINUTE);
    await schedulePeriodicRuns(db, [job], clock.now());
    expect(await worker.runOnce()).toBe(1);
    expect(await worker.runOnce()).toBe(0);
    // A restart later the same day: the day has had its run.
    await schedulePeriodicRuns(db, [job], clock.now());
    expect(await worker.runOnce()).toBe(0);

    clock.advance(Date.parse('2026-12-03T06:00:00Z') - clock.now().getTime());
    expect(await worker.runOnce()).toBe(1);
    expect(runs.map((d) => d.toISOString())).toEqual([
      '2026-12-02T14:30:00.000Z',
      '2026-12-03T06:00:00.000Z',
    ]);
    expect(await keys('daily')).toEqual([
      { key: 'daily:2026-12-02', state: 'done', run_at: '2026-12-02T14:20:00.000Z' },
      { key: 'daily:2026-12-03', state: 'done', run_at: '2026-12-03T06:00:00.000Z' },
      { key: 'daily:2026-12-04', state: 'pending', run_at: '2026-12-04T06:00:00.000Z' },
    ]);
  });

  it('when the service was down for several periods and restarts, then the waiting run catches up once and the chain goes on from now', async () => {
    const clock = createClock(Date.parse('2026-12-02T14:20:00Z'));
    const runs: Date[] = [];
    const job = recordingJob('hourly', fixedPeriod(HOUR), runs);
    const worker = new Worker({ db, now: clock.now, queues: periodicQueues(db, [job]) });
    await schedulePeriodicRuns(db, [job], clock.now());
    expect(await worker.runOnce()).toBe(1);

    clock.advance(5 * HOUR);
    // The restart schedules nothing beside the run that waits since 15:00.
    await schedulePeriodicRuns(db, [job], clock.now());
    expect(await worker.runOnce()).toBe(1);
    expect(await worker.runOnce()).toBe(0);
    expect(runs.map((d) => d.toISOString())).toEqual([
      '2026-12-02T14:20:00.000Z',
      '2026-12-02T19:20:00.000Z',
    ]);
    expect(await getJob(db, { key: 'hourly:2026-12-02T20:00:00.000Z' })).toMatchObject({ state: 'pending' });
    const waiting = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM jobs WHERE queue = 'hourly' AND state = 'pending'",
    );
    expect(waiting.rows[0]?.n).toBe(1);
  });

  it('when a run throws, then the next period is not enqueued until the retried run succeeds', async () => {
    const clock = createClock(Date.parse('2026-12-02T14:20:00Z'));
    const runs: Date[] = [];
    const job = recordingJob('flaky', fixedPeriod(HOUR), runs, 1);
    const worker = new Worker({ db, now: clock.now, random: () => 0.5, queues: periodicQueues(db, [job]) });
    await schedulePeriodicRuns(db, [job], clock.now());

    expect(await worker.runOnce()).toBe(1);
    expect(await keys('flaky')).toEqual([
      expect.objectContaining({ key: 'flaky:2026-12-02T14:00:00.000Z', state: 'pending' }),
    ]);
    clock.advance(10 * MINUTE);
    expect(await worker.runOnce()).toBe(1);
    expect(runs).toHaveLength(1);
    expect(await keys('flaky')).toEqual([
      expect.objectContaining({ key: 'flaky:2026-12-02T14:00:00.000Z', state: 'done' }),
      { key: 'flaky:2026-12-02T15:00:00.000Z', state: 'pending', run_at: '2026-12-02T15:00:00.000Z' },
    ]);
  });

  it('when the chain broke (its run failed for good), then the next start schedules the current period’s run', async () => {
    const clock = createClock(Date.parse('2026-12-02T14:20:00Z'));
    const runs: Date[] = [];
    const job = recordingJob('broken', fixedPeriod(HOUR), runs);
    await schedulePeriodicRuns(db, [job], clock.now());
    await db.query("UPDATE jobs SET state = 'failed', finished_at = $1 WHERE queue = 'broken'", [
      clock.now(),
    ]);

    clock.advance(3 * HOUR);
    await schedulePeriodicRuns(db, [job], clock.now());
    const worker = new Worker({ db, now: clock.now, queues: periodicQueues(db, [job]) });
    expect(await worker.runOnce()).toBe(1);
    expect(runs.map((d) => d.toISOString())).toEqual(['2026-12-02T17:20:00.000Z']);
    expect(await getJob(db, { key: 'broken:2026-12-02T18:00:00.000Z' })).toMatchObject({ state: 'pending' });
  });

  it('when a run is interrupted by its worker stopping, then it waits to run again and the next period is left to that run', async () => {
    const clock = createClock(Date.parse('2026-12-02T14:20:00Z'));
    let interrupt = true;
    const runs: Date[] = [];
    const job: PeriodicJob = {
      queue: 'stopped',
      period: fixedPeriod(HOUR),
      run: async (now) => {
        runs.push(now);
        return interrupt ? 'interrupted' : 'done';
      },
    };
    const worker = new Worker({ db, now: clock.now, queues: periodicQueues(db, [job]) });
    await schedulePeriodicRuns(db, [job], clock.now());

    expect(await worker.runOnce()).toBe(1);
    expect(await keys('stopped')).toEqual([
      { key: 'stopped:2026-12-02T14:00:00.000Z', state: 'pending', run_at: '2026-12-02T14:20:00.000Z' },
    ]);
    // The next start finds the run waiting and adds nothing; the run finishes and chains.
    interrupt = false;
    clock.advance(MINUTE);
    await schedulePeriodicRuns(db, [job], clock.now());
    expect(await worker.runOnce()).toBe(1);
    expect(runs).toHaveLength(2);
    expect(await keys('stopped')).toEqual([
      expect.objectContaining({ key: 'stopped:2026-12-02T14:00:00.000Z', state: 'done' }),
      { key: 'stopped:2026-12-02T15:00:00.000Z', state: 'pending', run_at: '2026-12-02T15:00:00.000Z' },
    ]);
  });

  it('when two periodic jobs name one queue, then composing them is refused', () => {
    const a = recordingJob('same', fixedPeriod(HOUR), []);
    const b = recordingJob('same', utcMornings, []);
    expect(() => periodicQueues(db, [a, b])).toThrow('two periodic jobs share the queue same');
  });
});
