// A handler may record its job's outcome inside its own last transaction (JobContext.finishIn): the outcome
// then commits with the handler's writes or not at all.
import { CteWrites, MemoryTransport, type Queryable, type TestDatabase, createLogger } from '@cr/service-kit';
import { Worker, enqueue, getJob, jobResult } from '../src';
import { createClock, deferred, useJobsDatabase } from './helpers';

const suite = useJobsDatabase();
let db: TestDatabase;
beforeAll(async () => {
  await suite.db.exec('CREATE TABLE IF NOT EXISTS effects (job text PRIMARY KEY)');
});
beforeEach(async () => {
  db = suite.db;
  await db.exec('DELETE FROM effects');
});

const effects = async () => (await db.query<{ job: string }>('SELECT job FROM effects ORDER BY job')).rows;

describe('finishIn', () => {
  it('records done in the handler transaction, with its writes, and the worker records nothing after', async () => {
    const clock = createClock();
    const logs = new MemoryTransport();
    const worker = new Worker({
      db,
      now: clock.now,
      workerId: 'w',
      logger: createLogger({ service: 'jobs', level: 'debug', transports: [logs] }),
      queues: {
        q: {
          handler: async (job, context) => {
            await db.transaction(async (tx) => {
              await tx.query('INSERT INTO effects (job) VALUES ($1)', [job.id]);
              expect(await context.finishIn(tx, jobResult.done())).toBe(true);
            });
            return jobResult.done();
          },
        },
      },
    });
    const { id } = await enqueue(db, { tenant: '', queue: 'q', payload: {} });
    expect(await worker.runOnce()).toBe(1);
    const job = await getJob(db, { id });
    expect(job).toMatchObject({ state: 'done', attempts: 1, lockedBy: null });
    expect(job?.finishedAt).toEqual(clock.now());
    // A second record by the worker would find the job no longer running and say its lease was lost.
    expect(logs.text).not.toContain('lease lost');
    expect(await effects()).toEqual([{ job: id }]);
  });

  it('when the handler transaction rolls back after finishIn, then neither its writes nor the outcome remain and the job is retried', async () => {
    const clock = createClock();
    const worker = new Worker({
      db,
      now: clock.now,
      workerId: 'w',
      queues: {
        q: {
          backoff: [5_000],
          handler: async (job, context) => {
            await db.transaction(async (tx) => {
              await tx.query('INSERT INTO effects (job) VALUES ($1)', [job.id]);
              await context.finishIn(tx, jobResult.done());
              throw new Error('the last write failed');
            });
          },
        },
      },
    });
    const { id } = await enqueue(db, { tenant: '', queue: 'q', payload: {} });
    await worker.runOnce();
    const job = await getJob(db, { id });
    expect(job).toMatchObject({
      state: 'pending',
      attempts: 1,
      lastError: expect.stringContaining('the last write failed'),
    });
    expect(job?.finishedAt).toBeNull();
    expect(await effects()).toEqual([]);
  });

  it('says a job failed only once the failure stands: not for a failure rolled back with its transaction', async () => {
    const clock = createClock();
    const logs = new MemoryTransport();
    let runs = 0;
    const worker = new Worker({
      db,
      now: clock.now,
      workerId: 'w',
      logger: createLogger({ service: 'jobs', level: 'debug', transports: [logs] }),
      queues: {
        q: {
          backoff: [5_000],
          handler: async (job, context) => {
            runs += 1;
            await db.transaction(async (tx) => {
              await context.finishIn(tx, jobResult.fail('refused for good'));
              if (runs === 1) throw new Error('the last write failed');
            });
            return jobResult.fail('refused for good');
          },
        },
      },
    });
    const { id } = await enqueue(db, { tenant: '', queue: 'q', payload: {} });
    await worker.runOnce();
    expect(await getJob(db, { id })).toMatchObject({ state: 'pending', attempts: 1 });
    expect(logs.text).not.toContain('job failed');
    clock.advance(10_000); // past the 5 s backoff and its ±20 % jitter
    await worker.runOnce();
    expect(await getJob(db, { id })).toMatchObject({ state: 'failed', attempts: 2 });
    expect(logs.text.match(/job failed/g)).toHaveLength(1);
  });

  it('records a retry or a failure the same way', async () => {
    const clock = createClock();
    const later = new Date(clock.now().getTime() + 60_000);
    const worker = new Worker({
      db,
      now: clock.now,
      workerId: 'w',
      queues: {
        retry: {
          handler: async (_job, context) => {
            const r = jobResult.retryAt(later, 'receiver busy');
            await db.transaction((tx) => context.finishIn(tx, r));
            return r;
          },
        },
        fail: {
          handler: async (_job, context) => {
            const r = jobResult.fail('gave up');
            await db.transaction((tx) => context.finishIn(tx, r));
            return r;
          },
        },
      },
    });
    const retried = await enqueue(db, { tenant: '', queue: 'retry', payload: {} });
    const failed = await enqueue(db, { tenant: '', queue: 'fail', payload: {} });
    expect(await worker.runOnce()).toBe(2);
    expect(await getJob(db, retried)).toMatchObject({
      state: 'pending',
      runAt: later,
      lastError: 'receiver busy',
    });
    expect(await getJob(db, failed)).toMatchObject({ state: 'failed', lastError: 'gave up' });
  });

  it("records the outcome in the same statement as the handler's last writes, their parameters first", async () => {
    const clock = createClock();
    const later = new Date(clock.now().getTime() + 60_000);
    const statements: string[] = [];
    const worker = new Worker({
      db,
      now: clock.now,
      workerId: 'w',
      queues: {
        q: {
          handler: async (job, context) => {
            const r = jobResult.retryAt(later, 'receiver busy');
            await db.transaction(async (tx) => {
              const counted: Queryable = {
                query: (sql, params) => {
                  statements.push(sql);
                  return tx.query(sql, params);
                },
                exec: (sql) => tx.exec(sql),
              };
              const writes = new CteWrites();
              const a = writes.param(`${job.id}-a`);
              writes.add('a', `INSERT INTO effects (job) VALUES (${a})`);
              writes.add(
                'b',
                `INSERT INTO effects (job) VALUES (${writes.param(`${job.id}-b`)}), (${a} || '-again')`,
              );
              expect(await context.finishIn(counted, r, writes)).toBe(true);
            });
            return r;
          },
        },
      },
    });
    const { id } = await enqueue(db, { tenant: '', queue: 'q', payload: {} });
    await worker.runOnce();
    expect(statements).toHaveLength(1);
    expect(await effects()).toEqual([{ job: `${id}-a` }, { job: `${id}-a-again` }, { job: `${id}-b` }]);
    expect(await getJob(db, { id })).toMatchObject({
      state: 'pending',
      attempts: 1,
      runAt: later,
      lastError: 'receiver busy',
    });
  });

  it('what the writes select is read after finishIn, from the record statement, with writes numbered apart included', async () => {
    const clock = createClock();
    let selected: { inserted: string; counted: string; recorded: boolean } | undefined;
    const worker = new Worker({
      db,
      now: clock.now,
      workerId: 'w',
      queues: {
        q: {
          handler: async (job, context) => {
            await db.transaction(async (tx) => {
              const writes = new CteWrites();
              writes.add(
                'a',
                `INSERT INTO effects (job) VALUES (${writes.param(`${job.id}-a`)}) RETURNING job`,
              );
              // Written with its own numbering from the placeholder it is given (as enqueueCtes is).
              writes.include((first) => ({
                sql: `b AS (INSERT INTO effects (job) VALUES ($${first}), ($${first + 1}) RETURNING job)`,
                params: [`${job.id}-b1`, `${job.id}-b2`],
              }));
              writes.select('inserted', '(SELECT job FROM a)').select('counted', '(SELECT count(*) FROM b)');
              expect(() => writes.selected()).toThrow(/has not run/);
              await context.finishIn(tx, jobResult.done(), writes);
              selected = writes.selected();
            });
          },
        },
      },
    });
    const { id } = await enqueue(db, { tenant: '', queue: 'q', payload: {} });
    await worker.runOnce();
    expect(selected).toEqual({ recorded: true, inserted: `${id}-a`, counted: '2' });
    expect(await effects()).toEqual([{ job: `${id}-a` }, { job: `${id}-b1` }, { job: `${id}-b2` }]);
    expect(await getJob(db, { id })).toMatchObject({ state: 'done' });
  });

  it('refuses a selected column that is not an SQL name', () => {
    expect(() => new CteWrites().select('x; DROP TABLE jobs', '1')).toThrow(TypeError);
  });

  it('when the run lost its lease, then finishIn records nothing and says so', async () => {
    const clockA = createClock();
    const release = deferred();
    const started = deferred();
    let held: boolean | undefined;
    const stale = new Worker({
      db,
      now: clockA.now,
      leaseMs: 30_000,
      workerId: 'A',
      queues: {
        q: {
          handler: async (job, context) => {
            started.resolve();
            await release.promise;
            await db.transaction(async (tx) => {
              await tx.query('INSERT INTO effects (job) VALUES ($1)', [`${job.id}-A`]);
              held = await context.finishIn(tx, jobResult.fail('stale run'));
            });
            return jobResult.fail('stale run');
          },
        },
      },
    });
    const { id } = await enqueue(db, { tenant: '', queue: 'q', payload: {} });
    const runA = stale.runOnce();
    await started.promise;
    const clockB = createClock(clockA.now().getTime() + 30_001);
    const survivor = new Worker({
      db,
      now: clockB.now,
      workerId: 'B',
      queues: { q: { handler: async () => jobResult.done() } },
    });
    expect(await survivor.runOnce()).toBe(1);
    release.resolve();
    await runA;
    expect(held).toBe(false);
    expect(await getJob(db, { id })).toMatchObject({ state: 'done', attempts: 2, lastError: null });
  });
});
