import { MemoryTransport, createLogger, type TestDatabase } from '@cr/service-kit';
import { enqueue, getJob, LEASE_EXPIRED_ERROR, reschedule, Worker } from '../src';
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
    const { id } = await enqueue(db, { tenant: '', queue: 'submit', payload: {} });
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
    // Both workers read one clock, moved by the test in steps shorter than the lease; after each step the test
    // waits for the owner's heartbeat to reach the database. A stalled machine delays the test, never fails it.
    const clock = createClock();
    const gate = deferred();
    const started = deferred();
    const owner = new Worker({
      db,
      now: clock.now,
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
      now: clock.now,
      leaseMs: 150,
      workerId: 'other',
      queues: { q: { handler: async () => undefined } },
    });
    const { id } = await enqueue(db, { tenant: '', queue: 'q', payload: {}, runAt: clock.now() });
    const run = owner.runOnce();
    await started.promise;
    for (let step = 0; step < 4; step++) {
      clock.advance(100);
      const extended = clock.now().getTime() + 150;
      for (;;) {
        const job = await getJob(db, { id });
        if ((job?.lockedUntil?.getTime() ?? 0) >= extended) break;
        await new Promise((r) => setTimeout(r, 10));
      }
    }
    // 400 ms of the clock since the claim, past the 150 ms lease: only the heartbeats kept it.
    expect(await other.runOnce()).toBe(0);
    gate.resolve();
    await run;
    expect(await getJob(db, { id })).toMatchObject({ state: 'done', attempts: 1 });
  });
});

describe('expired leases', () => {
  let dying: Worker | undefined;
  afterEach(async () => {
    await dying?.stop(1_000);
    dying = undefined;
  });

  /** A worker that claims the job and never finishes it, as if its process had died (until the test ends). */
  async function claimAndHang(leaseMs: number, clock: ReturnType<typeof createClock>, queue = 'q') {
    const started = deferred();
    dying = new Worker({
      db,
      now: clock.now,
      leaseMs,
      workerId: 'dying',
      queues: {
        [queue]: {
          handler: (_job, { signal }) => {
            started.resolve();
            return new Promise<void>((_, reject) =>
              signal.addEventListener('abort', () => reject(signal.reason)),
            );
          },
        },
      },
    });
    void dying.runOnce();
    await started.promise;
  }

  it('when a worker with a long lease looked before a shorter lease ends, then it takes that job as soon as it ends', async () => {
    const clock = createClock();
    const { id } = await enqueue(db, { tenant: '', queue: 'q', payload: {} });
    await claimAndHang(30_000, clock);
    const logs = new MemoryTransport();
    const patient = new Worker({
      db,
      now: clock.now,
      leaseMs: 600_000, // its own leases: it would otherwise look again only after 200 s
      workerId: 'patient',
      logger: createLogger({ service: 'jobs', level: 'debug', transports: [logs] }),
      queues: { q: { handler: async () => undefined } },
    });
    expect(await patient.runOnce()).toBe(0);
    clock.advance(29_999);
    expect(await patient.runOnce()).toBe(0);
    expect(await getJob(db, { id })).toMatchObject({ state: 'running', lockedBy: 'dying' });
    clock.advance(2);
    expect(await patient.runOnce()).toBe(1);
    expect(await getJob(db, { id })).toMatchObject({ state: 'done', attempts: 2, lockedBy: null });
    expect(logs.text).toContain('leases expired');
    expect(logs.text).toContain(id);
  });

  it("when another queue's lease expires, then a worker returns only its own queues' jobs", async () => {
    const clock = createClock();
    const { id } = await enqueue(db, { tenant: '', queue: 'other', payload: {} });
    await claimAndHang(30_000, clock, 'other');
    const worker = new Worker({ db, now: clock.now, queues: { q: { handler: async () => undefined } } });
    clock.advance(60_000);
    expect(await worker.runOnce()).toBe(0);
    expect(await getJob(db, { id })).toMatchObject({ state: 'running', lockedBy: 'dying', attempts: 1 });
  });

  it('when an expired job is returned, then it is due from its lease end, before jobs due after that', async () => {
    const clock = createClock();
    const start = clock.now().getTime();
    const { id: old } = await enqueue(db, { tenant: '', queue: 'q', payload: { n: 'old' } });
    await claimAndHang(30_000, clock);
    clock.advance(60_000);
    // Due 45 s in: after the old job's lease ended (30 s), before the claim that finds it expired (60 s).
    await enqueue(db, { tenant: '', queue: 'q', payload: { n: 'newer' }, runAt: new Date(start + 45_000) });
    const order: string[] = [];
    const worker = new Worker({
      db,
      now: clock.now,
      concurrency: 1,
      queues: { q: { handler: async (job) => void order.push((job.payload as { n: string }).n) } },
    });
    expect(await worker.runOnce()).toBe(1);
    expect(await worker.runOnce()).toBe(1);
    expect(order).toEqual(['old', 'newer']);
    expect(await getJob(db, { id: old })).toMatchObject({ state: 'done', attempts: 2 });
  });
});

describe('jobs whose runs keep dying', () => {
  const hanging: Worker[] = [];
  afterEach(async () => {
    await Promise.all(hanging.splice(0).map((w) => w.stop(1_000)));
  });

  /** A worker whose handler never finishes, as if each run killed its process; 30-s leases. */
  function dyingWorker(clock: ReturnType<typeof createClock>, maxAttempts?: number) {
    const started = deferred();
    const w = new Worker({
      db,
      now: clock.now,
      leaseMs: 30_000,
      workerId: `dying-${hanging.length}`,
      queues: {
        q: {
          ...(maxAttempts === undefined ? {} : { maxAttempts }),
          handler: (_job, { signal }) => {
            started.resolve();
            return new Promise<void>((_, reject) =>
              signal.addEventListener('abort', () => reject(signal.reason)),
            );
          },
        },
      },
    });
    hanging.push(w);
    return {
      /** Claims the due job and dies in it. */
      takeAndDie: async () => {
        void w.runOnce();
        await started.promise;
      },
      /** Looks for work: returns what it claimed (0 when the job is not due yet). */
      look: () => w.runOnce(),
    };
  }

  /** A worker whose every run records a retry after 1 s, as a handler does for Hacienda's 429 or 503. */
  function retryingWorker(clock: ReturnType<typeof createClock>, answer: string) {
    return new Worker({
      db,
      now: clock.now,
      workerId: 'retrying',
      queues: {
        q: {
          backoff: [1_000],
          handler: async () => {
            throw new Error(`Hacienda answered ${answer}`);
          },
        },
      },
    });
  }

  it('when each run ends with its process, then the job waits 0, 1, 3 minutes more after each lease, and stays pending', async () => {
    const clock = createClock();
    const { id } = await enqueue(db, { tenant: '', queue: 'q', payload: {} });
    await dyingWorker(clock).takeAndDie(); // attempt 1
    clock.advance(30_001);
    await dyingWorker(clock).takeAndDie(); // attempt 1's lease is over: due at once, attempt 2
    const second = (await getJob(db, { id }))!;
    expect(second).toMatchObject({ state: 'running', attempts: 2 });
    clock.advance(30_001);
    expect(await dyingWorker(clock).look()).toBe(0); // attempt 2's lease is over: one minute more
    const waiting = (await getJob(db, { id }))!;
    expect(waiting).toMatchObject({ state: 'pending', attempts: 2 });
    expect(waiting.runAt.getTime()).toBe(second.lockedUntil!.getTime() + 60_000);
    clock.advance(60_000);
    await dyingWorker(clock).takeAndDie(); // attempt 3
    const third = (await getJob(db, { id }))!;
    clock.advance(30_001);
    expect(await dyingWorker(clock).look()).toBe(0);
    expect((await getJob(db, { id }))!.runAt.getTime()).toBe(third.lockedUntil!.getTime() + 180_000);
  });

  it('when a job that asked for retries (429s, 503s) dies in its next run, then it is due when that lease ends, not up to an hour later', async () => {
    const clock = createClock();
    const { id } = await enqueue(db, { tenant: '', queue: 'q', payload: {} });
    const retrying = retryingWorker(clock, '429');
    for (let i = 0; i < 6; i++) {
      expect(await retrying.runOnce()).toBe(1);
      clock.advance(2_000); // past the 1-s backoff and its jitter
    }
    expect(await getJob(db, { id })).toMatchObject({ state: 'pending', attempts: 6 });
    await dyingWorker(clock).takeAndDie(); // attempt 7 dies with its process
    clock.advance(30_001);
    const ran: string[] = [];
    const healthy = new Worker({
      db,
      now: clock.now,
      workerId: 'healthy',
      queues: { q: { handler: async (job) => void ran.push(job.id) } },
    });
    expect(await healthy.runOnce()).toBe(1);
    expect(ran).toEqual([id]);
    expect(await getJob(db, { id })).toMatchObject({ state: 'done', attempts: 8 });
  });

  it('when a run that died is followed by one that records an outcome, then the next death starts the wait again from none', async () => {
    const clock = createClock();
    const { id } = await enqueue(db, { tenant: '', queue: 'q', payload: {} });
    await dyingWorker(clock).takeAndDie(); // attempt 1 dies
    clock.advance(30_001);
    await dyingWorker(clock).takeAndDie(); // attempt 2 dies: a minute more after its lease
    clock.advance(30_001 + 60_000);
    const retrying = retryingWorker(clock, '503');
    expect(await retrying.runOnce()).toBe(1); // attempt 3 records a retry: the streak ends
    clock.advance(2_000);
    await dyingWorker(clock).takeAndDie(); // attempt 4 dies
    const fourth = (await getJob(db, { id }))!;
    clock.advance(30_001);
    await dyingWorker(clock).takeAndDie(); // due when its lease ended: attempt 5
    expect(await getJob(db, { id })).toMatchObject({ state: 'running', attempts: 5 });
    expect(fourth.attempts).toBe(4);
  });

  it('when a reschedule arrived during the run that died, then it wins over the wait', async () => {
    const clock = createClock();
    const { id } = await enqueue(db, { tenant: '', queue: 'q', payload: {} });
    await dyingWorker(clock).takeAndDie();
    clock.advance(30_001);
    await dyingWorker(clock).takeAndDie(); // attempt 2, whose death would mean a minute's wait
    const second = (await getJob(db, { id }))!;
    await reschedule(db, { id }, new Date(second.lockedUntil!.getTime() + 5_000));
    clock.advance(30_001);
    expect(await dyingWorker(clock).look()).toBe(0);
    expect((await getJob(db, { id }))!.runAt.getTime()).toBe(second.lockedUntil!.getTime() + 5_000);
  });

  it('when the run of its last allowed attempt ends with its process, then the job fails saying so', async () => {
    const clock = createClock();
    const { id } = await enqueue(db, { tenant: '', queue: 'q', payload: {} });
    await dyingWorker(clock, 2).takeAndDie();
    clock.advance(30_001);
    await dyingWorker(clock, 2).takeAndDie();
    clock.advance(30_001);
    expect(await dyingWorker(clock, 2).look()).toBe(0);
    expect(await getJob(db, { id })).toMatchObject({
      state: 'failed',
      attempts: 2,
      lockedBy: null,
      lastError: LEASE_EXPIRED_ERROR,
    });
  });
});

describe('parallel workers', () => {
  it('when two workers poll the same queue at once, then every job runs exactly once', async () => {
    const total = 120;
    await db.transaction(async (tx) => {
      for (let i = 0; i < total; i++) await enqueue(tx, { tenant: '', queue: 'p', payload: { i } });
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
