import type { TestDatabase } from '@cr/service-kit';
import { enqueue, getJob, Worker } from '../src';
import { createClock, useJobsDatabase, deferred } from './helpers';

const suite = useJobsDatabase();
let db: TestDatabase;
beforeEach(() => {
  db = suite.db;
});

describe('leases', () => {
  it("when a worker 'crashes' mid-job, then after the lease another worker runs it and the stale result is ignored", async () => {
    const clockA = createClock();
    const hung = deferred();
    const startedA = deferred();
    const runs: string[] = [];
    const crashed = new Worker({
      db,
      now: clockA.now,
      leaseMs: 30_000,
      workerId: 'A',
      queues: {
        submit: {
          handler: async () => {
            runs.push('A');
            startedA.resolve();
            await hung.promise;
          },
        },
      },
    });
    const { id } = await enqueue(db, { queue: 'submit', payload: {} });
    const runA = crashed.runOnce();
    await startedA.promise;

    const clockB = createClock(clockA.now().getTime());
    const survivor = new Worker({
      db,
      now: clockB.now,
      leaseMs: 30_000,
      workerId: 'B',
      queues: { submit: { handler: async () => void runs.push('B') } },
    });
    expect(await survivor.runOnce()).toBe(0);
    clockB.advance(30_001);
    expect(await survivor.runOnce()).toBe(1);
    expect(await getJob(db, { id })).toMatchObject({ state: 'done', attempts: 2 });

    // The "crashed" worker comes back to life: its completion no longer matches the claim and changes nothing.
    hung.resolve();
    await runA;
    expect(runs).toEqual(['A', 'B']);
    expect(await getJob(db, { id })).toMatchObject({ state: 'done', attempts: 2 });
  });

  it('when a handler outlives the lease, then the heartbeat keeps the job from being taken', async () => {
    const gate = deferred();
    const started = deferred();
    const owner = new Worker({
      db,
      leaseMs: 150,
      workerId: 'owner',
      queues: {
        q: {
          handler: async () => {
            started.resolve();
            await gate.promise;
          },
        },
      },
    });
    const other = new Worker({
      db,
      leaseMs: 150,
      workerId: 'other',
      queues: { q: { handler: async () => undefined } },
    });
    const { id } = await enqueue(db, { queue: 'q', payload: {} });
    const run = owner.runOnce();
    await started.promise;
    await new Promise((r) => setTimeout(r, 400));
    expect(await other.runOnce()).toBe(0);
    gate.resolve();
    await run;
    expect(await getJob(db, { id })).toMatchObject({ state: 'done', attempts: 1 });
  });
});

describe('parallel workers', () => {
  it('when two workers poll the same queue at once, then every job runs exactly once', async () => {
    const total = 120;
    await db.transaction(async (tx) => {
      for (let i = 0; i < total; i++) await enqueue(tx, { queue: 'p', payload: { i } });
    });
    const seen = new Map<number, number>();
    const handler = async (job: { payload: { i: number } }) => {
      seen.set(job.payload.i, (seen.get(job.payload.i) ?? 0) + 1);
      await new Promise((r) => setImmediate(r));
    };
    const workers = [1, 2].map(
      (n) => new Worker({ db, concurrency: 5, workerId: `p${n}`, queues: { p: { handler } } }),
    );
    const drain = async (w: Worker) => {
      while ((await w.runOnce()) > 0) {
        /* keep claiming until nothing is due */
      }
    };
    await Promise.all(workers.map(drain));
    expect(seen.size).toBe(total);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    const states = await db.query<{ state: string; n: number }>(
      'SELECT state, count(*)::int AS n FROM jobs GROUP BY state',
    );
    expect(states.rows).toEqual([{ state: 'done', n: total }]);
    const byWorker = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM jobs WHERE attempts <> 1');
    expect(byWorker.rows[0]?.n).toBe(0);
  });
});
