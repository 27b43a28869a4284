import type { TestDatabase } from '@cr/service-kit';
import {
  enqueue,
  enqueueCtes,
  getJob,
  jobResult,
  pruneJobs,
  reschedule,
  rescheduleCtes,
  Worker,
} from '../src';
import { createClock, useJobsDatabase, deferred } from './helpers';

const suite = useJobsDatabase();
let db: TestDatabase;
beforeEach(() => {
  db = suite.db;
});

describe('enqueue', () => {
  it('when the caller rolls its transaction back, then no job remains', async () => {
    await expect(
      db.transaction(async (tx) => {
        await enqueue(tx, { tenant: '', queue: 'submit', payload: { doc: 1 }, key: 'submit:1' });
        throw new Error('document insert failed');
      }),
    ).rejects.toThrow('document insert failed');
    const count = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM jobs');
    expect(count.rows[0]?.n).toBe(0);
  });

  it('when the transaction commits, then the job is there with its payload', async () => {
    const { id, created } = await db.transaction((tx) =>
      enqueue(tx, { tenant: '', queue: 'submit', payload: { doc: 'a', n: 2 } }),
    );
    expect(created).toBe(true);
    const job = await getJob<{ doc: string; n: number }>(db, { id });
    expect(job).toMatchObject({
      queue: 'submit',
      state: 'pending',
      attempts: 0,
      payload: { doc: 'a', n: 2 },
    });
  });

  it('when the same key is enqueued twice, then one job exists and the second call returns its id', async () => {
    const first = await enqueue(db, { tenant: '', queue: 'status', payload: {}, key: 'status:X' });
    const second = await enqueue(db, {
      tenant: '',
      queue: 'status',
      payload: { other: true },
      key: 'status:X',
    });
    expect(second).toEqual({ id: first.id, created: false });
    const count = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM jobs');
    expect(count.rows[0]?.n).toBe(1);
  });
});

describe('enqueueCtes', () => {
  // A caller's statement: a source CTE (here a VALUES list filtered by $1) and the job's CTEs after it.
  async function insertWith(rows: number, key: string, tenant = 'acme'): Promise<void> {
    const job = enqueueCtes(
      { queue: 'submit', tenant, key, payload: { doc: key }, maxAttempts: 3 },
      'source',
      2,
    );
    await db.query(
      `WITH source AS (SELECT n FROM (VALUES (1), (2)) AS v(n) WHERE n <= $1), ${job.sql} SELECT 1`,
      [rows, ...job.params],
    );
  }

  it('when the source returns a row, then its job and lane are inserted with every column', async () => {
    await insertWith(1, 'submit:one');
    const job = await getJob<{ doc: string }>(db, { key: 'submit:one' });
    expect(job).toMatchObject({
      queue: 'submit',
      tenant: 'acme',
      state: 'pending',
      payload: { doc: 'submit:one' },
      maxAttempts: 3,
      attempts: 0,
    });
    const lanes = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM job_lanes WHERE queue = 'submit' AND tenant = 'acme'",
    );
    expect(lanes.rows[0]?.n).toBe(1);
  });

  it('when the source returns no row, then neither a job nor a lane is inserted', async () => {
    await insertWith(0, 'submit:none', 'nobody');
    const jobs = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM jobs');
    const lanes = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM job_lanes WHERE tenant = 'nobody'",
    );
    expect([jobs.rows[0]?.n, lanes.rows[0]?.n]).toEqual([0, 0]);
  });

  it('when one statement enqueues two jobs under their own names, then both are added and each says so', async () => {
    const a = enqueueCtes({ queue: 'webhook', tenant: 'acme', key: 'two:a', payload: {} }, 'source', 1, 'a_');
    const b = enqueueCtes(
      { tenant: '', queue: 'mail', key: 'two:b', payload: {} },
      'source',
      1 + a.params.length,
      'b_',
    );
    const r = await db.query<{ a: number; b: number }>(
      `WITH source AS (SELECT 1), ${a.sql}, ${b.sql}
       SELECT (SELECT count(*) FROM a_job)::int AS a, (SELECT count(*) FROM b_job)::int AS b`,
      [...a.params, ...b.params],
    );
    expect(r.rows[0]).toEqual({ a: 1, b: 1 });
    expect(await getJob(db, { key: 'two:a' })).toMatchObject({ queue: 'webhook', tenant: 'acme' });
    expect(await getJob(db, { key: 'two:b' })).toMatchObject({ queue: 'mail', tenant: '' });
    expect(() => enqueueCtes({ tenant: '', queue: 'q', payload: {} }, 'source', 1, 'x; DROP')).toThrow(
      TypeError,
    );
  });

  it('when the key exists already, then the statement adds no second job and does not fail', async () => {
    await enqueue(db, { tenant: '', queue: 'submit', payload: { first: true }, key: 'submit:dup' });
    await insertWith(1, 'submit:dup');
    const jobs = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM jobs');
    expect(jobs.rows[0]?.n).toBe(1);
    expect(await getJob(db, { key: 'submit:dup' })).toMatchObject({ payload: { first: true } });
  });
});

describe('rescheduleCtes', () => {
  it('brings forward the pending jobs whose keys its subquery selects, never later, and returns their queues', async () => {
    const far = new Date(Date.now() + 3_600_000);
    await enqueue(db, { tenant: '', queue: 'status', payload: {}, key: 'cte:a', runAt: far });
    await enqueue(db, { tenant: '', queue: 'status', payload: {}, key: 'cte:b', runAt: far });
    await enqueue(db, { tenant: '', queue: 'status', payload: {}, key: 'cte:c', runAt: new Date(0) });
    const soon = new Date(Date.now() + 60_000);
    const forward = rescheduleCtes(
      `SELECT $1::text || n FROM (VALUES ('a'), ('c'), ('gone')) AS v(n)`,
      2,
      soon,
    );
    const r = await db.query<{ queue: string }>(`WITH ${forward.sql} SELECT queue FROM brought`, [
      'cte:',
      ...forward.params,
    ]);
    expect(r.rows).toEqual([{ queue: 'status' }, { queue: 'status' }]);
    expect((await getJob(db, { key: 'cte:a' }))?.runAt).toEqual(soon);
    expect((await getJob(db, { key: 'cte:b' }))?.runAt).toEqual(far);
    expect((await getJob(db, { key: 'cte:c' }))?.runAt).toEqual(new Date(0));
    expect(() => rescheduleCtes('SELECT 1', 1, soon, 'x; DROP')).toThrow(TypeError);
  });
});

describe('Worker', () => {
  it('when a job is due, then its handler runs once and the job is done', async () => {
    const clock = createClock();
    const seen: unknown[] = [];
    const worker = new Worker({
      db,
      now: clock.now,
      queues: { submit: { handler: async (job) => void seen.push(job.payload) } },
    });
    const { id } = await enqueue(db, { tenant: '', queue: 'submit', payload: { doc: 7 } });
    expect(await worker.runOnce()).toBe(1);
    expect(await worker.runOnce()).toBe(0);
    expect(seen).toEqual([{ doc: 7 }]);
    expect(await getJob(db, { id })).toMatchObject({ state: 'done', attempts: 1, lockedBy: null });
  });

  it('when a job is not yet due, then it waits for its time', async () => {
    const clock = createClock();
    const worker = new Worker({ db, now: clock.now, queues: { q: { handler: async () => undefined } } });
    await enqueue(db, {
      tenant: '',
      queue: 'q',
      payload: {},
      runAt: new Date(clock.now().getTime() + 60_000),
    });
    expect(await worker.runOnce()).toBe(0);
    clock.advance(60_001);
    expect(await worker.runOnce()).toBe(1);
  });

  it('when the handler throws, then the job is retried on the backoff schedule with the error recorded', async () => {
    const clock = createClock();
    let calls = 0;
    const worker = new Worker({
      db,
      now: clock.now,
      random: () => 0.5,
      queues: {
        q: {
          backoff: [2_000, 5_000],
          handler: async () => {
            calls += 1;
            if (calls < 3) throw new Error(`boom ${calls}`);
          },
        },
      },
    });
    const { id } = await enqueue(db, { tenant: '', queue: 'q', payload: {} });
    const t0 = clock.now().getTime();
    await worker.runOnce();
    let job = await getJob(db, { id });
    expect(job).toMatchObject({ state: 'pending', attempts: 1, lastError: 'Error: boom 1' });
    expect(job?.runAt.getTime()).toBe(t0 + 2_000);

    clock.advance(1_999);
    expect(await worker.runOnce()).toBe(0);
    clock.advance(1);
    await worker.runOnce();
    job = await getJob(db, { id });
    expect(job?.runAt.getTime()).toBe(t0 + 2_000 + 5_000);
    expect(job?.lastError).toBe('Error: boom 2');

    clock.advance(5_000);
    await worker.runOnce();
    expect(await getJob(db, { id })).toMatchObject({ state: 'done', attempts: 3 });
  });

  it('when the handler keeps throwing past maxAttempts, then the job fails for good', async () => {
    const clock = createClock();
    const worker = new Worker({
      db,
      now: clock.now,
      queues: {
        q: {
          maxAttempts: 2,
          backoff: [1_000],
          handler: async () => {
            throw new Error('always');
          },
        },
      },
    });
    const { id } = await enqueue(db, { tenant: '', queue: 'q', payload: {} });
    await worker.runOnce();
    clock.advance(5_000);
    await worker.runOnce();
    clock.advance(5_000);
    expect(await worker.runOnce()).toBe(0);
    expect(await getJob(db, { id })).toMatchObject({
      state: 'failed',
      attempts: 2,
      lastError: 'Error: always',
    });
  });

  it('when the handler returns retryAt or fail, then the job follows that result', async () => {
    const clock = createClock();
    const at = new Date(clock.now().getTime() + 3_600_000);
    const worker = new Worker({
      db,
      now: clock.now,
      queues: {
        later: { handler: async () => jobResult.retryAt(at, 'not final yet') },
        bad: { handler: async () => jobResult.fail('X-Error-Cause: clave inválida') },
      },
    });
    const later = await enqueue(db, { tenant: '', queue: 'later', payload: {} });
    const bad = await enqueue(db, { tenant: '', queue: 'bad', payload: {} });
    expect(await worker.runOnce()).toBe(2);
    const l = await getJob(db, later);
    expect(l).toMatchObject({ state: 'pending', attempts: 1, lastError: 'not final yet' });
    expect(l?.runAt.getTime()).toBe(at.getTime());
    expect(await getJob(db, bad)).toMatchObject({
      state: 'failed',
      lastError: 'X-Error-Cause: clave inválida',
    });
  });

  it('when a job is brought forward with reschedule, then it runs at the new time and never later', async () => {
    const clock = createClock();
    const worker = new Worker({ db, now: clock.now, queues: { status: { handler: async () => undefined } } });
    const far = new Date(clock.now().getTime() + 3_600_000);
    await enqueue(db, { tenant: '', queue: 'status', payload: {}, key: 'status:C1', runAt: far });
    expect(await worker.runOnce()).toBe(0);
    expect(await reschedule(db, { key: 'status:C1' }, new Date(far.getTime() + 10_000))).toBe(true);
    expect((await getJob(db, { key: 'status:C1' }))?.runAt.getTime()).toBe(far.getTime());
    expect(await reschedule(db, { key: 'status:C1' }, clock.now())).toBe(true);
    expect(await worker.runOnce()).toBe(1);
    expect(await reschedule(db, { key: 'status:C1' }, clock.now())).toBe(false);
    expect(await reschedule(db, { key: 'status:unknown' }, clock.now())).toBe(false);
  });

  it('when reschedule arrives while the job runs, then a later retry asked by the handler is brought forward', async () => {
    const clock = createClock();
    const gate = deferred();
    const started = deferred();
    const worker = new Worker({
      db,
      now: clock.now,
      queues: {
        status: {
          handler: async () => {
            started.resolve();
            await gate.promise;
            return jobResult.retryAt(new Date(clock.now().getTime() + 3_600_000));
          },
        },
      },
    });
    const { id } = await enqueue(db, { tenant: '', queue: 'status', payload: {}, key: 'status:C2' });
    const run = worker.runOnce();
    await started.promise;
    const soon = new Date(clock.now().getTime() + 1_000);
    expect(await reschedule(db, { id }, soon)).toBe(true);
    gate.resolve();
    await run;
    expect((await getJob(db, { id }))?.runAt.getTime()).toBe(soon.getTime());
  });

  it('when started, then an in-process enqueue wakes it without waiting for the poll interval', async () => {
    const done = deferred<unknown>();
    const worker = new Worker({
      db,
      pollIntervalMs: 60_000,
      queues: { wake: { handler: async (job) => done.resolve(job.payload) } },
    });
    worker.start();
    await new Promise((r) => setTimeout(r, 20));
    await db.transaction((tx) => enqueue(tx, { tenant: '', queue: 'wake', payload: { hello: 'world' } }));
    await expect(done.promise).resolves.toEqual({ hello: 'world' });
    await worker.stop();
  });

  it('when the enqueuing transaction commits well after the enqueue, then the worker still wakes for it', async () => {
    const done = deferred<unknown>();
    const worker = new Worker({
      db,
      pollIntervalMs: 60_000,
      queues: { late: { handler: async (job) => done.resolve(job.payload) } },
    });
    worker.start();
    await new Promise((r) => setTimeout(r, 20));
    // The "due" event fires at the INSERT; the commit comes 100 ms later, past the first look at 25 ms. (On
    // PGlite the one session queues the worker's claim behind the commit; on PostgreSQL the claim ran early.)
    await db.transaction(async (tx) => {
      await enqueue(tx, { tenant: '', queue: 'late', payload: { n: 1 } });
      await new Promise((r) => setTimeout(r, 100));
    });
    const ran = await Promise.race([
      done.promise,
      new Promise((r) => setTimeout(() => r('not woken'), 5_000)),
    ]);
    expect(ran).toEqual({ n: 1 });
    await worker.stop();
  });

  it('when one of several running handlers finishes, then the claim waits for a second free slot and fills both at once', async () => {
    const gates = new Map<number, ReturnType<typeof deferred<void>>>();
    const startedOrder: number[] = [];
    const worker = new Worker({
      db,
      pollIntervalMs: 60_000,
      concurrency: 4,
      minClaim: 2,
      coalesceMs: 60_000, // only the free-slot rule applies here
      queues: {
        q: {
          handler: async (job) => {
            const n = (job.payload as { n: number }).n;
            const gate = deferred<void>();
            gates.set(n, gate);
            startedOrder.push(n);
            await gate.promise;
          },
        },
      },
    });
    for (let n = 1; n <= 8; n++) {
      await enqueue(db, { tenant: '', queue: 'q', payload: { n }, runAt: new Date(Date.now() - 1000 + n) });
    }
    const until = async (count: number) => {
      for (let i = 0; i < 200 && startedOrder.length < count; i++)
        await new Promise((r) => setTimeout(r, 10));
      expect(startedOrder.length).toBe(count);
    };
    worker.start();
    await until(4);
    gates.get(1)?.resolve();
    // One slot free while three handlers run: no claim yet.
    await new Promise((r) => setTimeout(r, 150));
    expect(startedOrder).toHaveLength(4);
    gates.get(2)?.resolve();
    await until(6);
    // The oldest four first, then the next two together (one claim; order within a claim is not kept).
    expect([...startedOrder.slice(0, 4)].sort()).toEqual([1, 2, 3, 4]);
    expect([...startedOrder.slice(4)].sort()).toEqual([5, 6]);
    for (const gate of gates.values()) gate.resolve();
    await until(8);
    for (const gate of gates.values()) gate.resolve();
    await worker.stop();
    const states = await db.query<{ state: string }>('SELECT state FROM jobs');
    expect(states.rows.map((r) => r.state)).toEqual(Array(8).fill('done'));
  });

  it('when a slot has been free for coalesceMs while others run, then it is filled without waiting for more', async () => {
    const gates: Array<ReturnType<typeof deferred<void>>> = [];
    let started = 0;
    const worker = new Worker({
      db,
      pollIntervalMs: 60_000,
      concurrency: 4,
      minClaim: 4,
      coalesceMs: 30,
      queues: {
        q: {
          handler: async () => {
            const gate = deferred<void>();
            gates.push(gate);
            started += 1;
            await gate.promise;
          },
        },
      },
    });
    for (let n = 1; n <= 5; n++) await enqueue(db, { tenant: '', queue: 'q', payload: { n } });
    worker.start();
    for (let i = 0; i < 200 && started < 4; i++) await new Promise((r) => setTimeout(r, 10));
    expect(started).toBe(4);
    gates[0]?.resolve();
    for (let i = 0; i < 200 && started < 5; i++) await new Promise((r) => setTimeout(r, 10));
    expect(started).toBe(5);
    for (const gate of gates) gate.resolve();
    await worker.stop();
  });

  it('when stopped, then it waits for running handlers to finish and claims nothing more', async () => {
    const gate = deferred();
    const started = deferred();
    let runs = 0;
    const worker = new Worker({
      db,
      pollIntervalMs: 60_000,
      concurrency: 1,
      queues: {
        q: {
          handler: async () => {
            runs += 1;
            started.resolve();
            await gate.promise;
          },
        },
      },
    });
    const first = await enqueue(db, { tenant: '', queue: 'q', payload: {} });
    await enqueue(db, { tenant: '', queue: 'q', payload: {}, runAt: new Date(Date.now() + 50) });
    worker.start();
    await started.promise;
    let stopped = false;
    const stopping = worker.stop().then(() => {
      stopped = true;
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(stopped).toBe(false);
    gate.resolve();
    await stopping;
    expect(runs).toBe(1);
    expect(await getJob(db, first)).toMatchObject({ state: 'done' });
  });

  it('when finished jobs are pruned, then only old finished ones go', async () => {
    const clock = createClock();
    const worker = new Worker({ db, now: clock.now, queues: { q: { handler: async () => undefined } } });
    const old = await enqueue(db, { tenant: '', queue: 'q', payload: {} });
    await worker.runOnce();
    const waiting = await enqueue(db, {
      tenant: '',
      queue: 'q',
      payload: {},
      runAt: new Date(clock.now().getTime() + 60_000),
    });
    expect(await pruneJobs(db, new Date(clock.now().getTime() + 1))).toBe(1);
    expect(await getJob(db, old)).toBeUndefined();
    expect(await getJob(db, waiting)).toBeDefined();
  });
});
