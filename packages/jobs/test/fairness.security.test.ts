// Issue 11, item 2: one tenant's backlog must not starve another tenant's work. The claims are checked by
// what they pick (order and counts), never by wall time.
import type { TestDatabase } from '@cr/service-kit';
import { enqueue, getJob, type Job, Worker, WorkerGroup } from '../src';
import { useJobsDatabase, deferred } from './helpers';

// The backlogs are due an hour ago and new work is due now, so the workers run on the wall clock.

const suite = useJobsDatabase();
let db: TestDatabase;
beforeEach(() => {
  db = suite.db;
});

/** A backlog of `count` due jobs for one tenant, oldest first, written in one statement. */
async function queueBacklog(tenant: string, count: number, queue = 'submit'): Promise<void> {
  await enqueue(db, { queue, tenant, payload: { n: 0 }, runAt: new Date(Date.now() - 3_600_000) });
  await db.query(
    `INSERT INTO jobs (queue, tenant, payload, run_at)
     SELECT $1, $2, jsonb_build_object('n', i), now() - interval '1 hour' + i * interval '1 millisecond'
     FROM generate_series(1, $3::int) AS i`,
    [queue, tenant, count - 1],
  );
}

describe('fair claims across tenants', () => {
  it('when one tenant has 10,000 queued jobs, then another tenant’s submission is in the very next claim', async () => {
    await queueBacklog('noisy', 10_000);
    const ran: Job[] = [];
    const worker = new Worker({
      db,
      concurrency: 4,
      queues: { submit: { handler: async (job) => void ran.push(job) } },
    });
    expect(await worker.runOnce()).toBe(4);

    const { id } = await enqueue(db, { queue: 'submit', tenant: 'quiet', payload: { doc: 1 } });
    expect(await worker.runOnce()).toBe(4);

    const secondClaim = ran.slice(4);
    expect(secondClaim.map((job) => job.tenant).sort()).toEqual(['noisy', 'noisy', 'noisy', 'quiet']);
    // The quiet tenant's job is the newest in the table; global FIFO would have run it after 10,000 others.
    expect(secondClaim.find((job) => job.tenant === 'quiet')?.id).toBe(id);
    expect(await getJob(db, { id })).toMatchObject({ state: 'done', attempts: 1 });
  });

  it('when several tenants have backlogs, then a batch takes each tenant’s oldest before anyone’s second', async () => {
    await queueBacklog('a', 50);
    await queueBacklog('b', 50);
    await enqueue(db, { queue: 'submit', tenant: 'c', payload: {} });
    const ran: Job[] = [];
    const worker = new Worker({
      db,
      concurrency: 7,
      queues: { submit: { handler: async (job) => void ran.push(job) } },
    });
    expect(await worker.runOnce()).toBe(7);
    const perTenant = (tenant: string) => ran.filter((job) => job.tenant === tenant).length;
    expect([perTenant('a'), perTenant('b'), perTenant('c')]).toEqual([3, 3, 1]);
    // Within a tenant, its oldest jobs go first.
    const taken = ran.filter((job) => job.tenant === 'a').map((job) => (job.payload as { n: number }).n);
    expect(taken.sort()).toEqual([0, 1, 2]);
  });

  it('when claims take one job at a time, then the tenants take turns (least recently served first)', async () => {
    await queueBacklog('a', 30);
    await queueBacklog('b', 30);
    await queueBacklog('c', 30);
    const order: string[] = [];
    const worker = new Worker({
      db,
      concurrency: 1,
      queues: { submit: { handler: async (job) => void order.push(job.tenant) } },
    });
    for (let i = 0; i < 9; i += 1) await worker.runOnce();
    expect(order.slice(3)).toEqual([...order.slice(0, 3), ...order.slice(0, 3)]);
    expect([...order.slice(0, 3)].sort()).toEqual(['a', 'b', 'c']);
  });

  it('when one-job claims fall in the same millisecond, then the tenants still take turns', async () => {
    await queueBacklog('a', 30);
    await queueBacklog('b', 30);
    await queueBacklog('c', 30);
    const order: string[] = [];
    // A clock that never moves: every claim stamps its lane with the same instant, as claims do on a fast
    // machine. Stamped with that instant alone, the lanes tied and the tie went to the oldest job (a's, twice).
    const frozen = new Date(Date.now() + 60_000);
    const worker = new Worker({
      db,
      concurrency: 1,
      now: () => frozen,
      queues: { submit: { handler: async (job) => void order.push(job.tenant) } },
    });
    for (let i = 0; i < 9; i += 1) await worker.runOnce();
    // The first turn's order follows the earlier tests' claims (the lanes outlive the jobs); then it repeats.
    expect([...order.slice(0, 3)].sort()).toEqual(['a', 'b', 'c']);
    expect(order.slice(3)).toEqual([...order.slice(0, 3), ...order.slice(0, 3)]);
  });

  it('when the pool is busy with a backlog, then the next free slot goes to the other tenant', async () => {
    await queueBacklog('noisy', 10_000);
    const release = deferred();
    const order: string[] = [];
    let quietStarted = deferred();
    const worker = new Worker({
      db,
      concurrency: 2,
      pollIntervalMs: 10,
      queues: {
        submit: {
          handler: async (job) => {
            order.push(job.tenant);
            if (job.tenant === 'quiet') quietStarted.resolve();
            else await release.promise;
          },
        },
      },
    });
    worker.start();
    try {
      while (order.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
      quietStarted = deferred();
      await enqueue(db, { queue: 'submit', tenant: 'quiet', payload: {} });
      release.resolve();
      await quietStarted.promise;
      // The two noisy jobs that held the slots, then at most one more noisy job beside the quiet one.
      expect(order.indexOf('quiet')).toBeLessThanOrEqual(3);
    } finally {
      await worker.stop();
    }
  });

  it('when two workers claim at once, then every job runs exactly once', async () => {
    for (const tenant of ['a', 'b', 'c']) await queueBacklog(tenant, 20);
    const ran: string[] = [];
    const handler = async (job: Job) => void ran.push(job.id);
    const one = new Worker({ db, concurrency: 5, queues: { submit: { handler } } });
    const two = new Worker({ db, concurrency: 5, queues: { submit: { handler } } });
    const group = new WorkerGroup([one, two]);
    let idle = 0;
    while (idle < 2) idle = (await group.runOnce()) === 0 ? idle + 1 : 0;
    expect(ran).toHaveLength(60);
    expect(new Set(ran).size).toBe(60);
  });

  it('when a worker serves some queues, then it never claims another pool’s jobs', async () => {
    await queueBacklog('noisy', 100, 'webhook');
    await enqueue(db, { queue: 'submit', tenant: 'noisy', payload: {} });
    const submissions: Job[] = [];
    const webhooks: Job[] = [];
    const group = new WorkerGroup([
      new Worker({
        db,
        concurrency: 4,
        queues: { submit: { handler: async (job) => void submissions.push(job) } },
      }),
      new Worker({
        db,
        concurrency: 2,
        queues: { webhook: { handler: async (job) => void webhooks.push(job) } },
      }),
    ]);
    expect(await group.runOnce()).toBe(3);
    expect(submissions.map((job) => job.queue)).toEqual(['submit']);
    expect(webhooks.map((job) => job.queue)).toEqual(['webhook', 'webhook']);
  });
});

describe('pendingKey', () => {
  it('when a job with the pending key waits, then a second enqueue returns it; once done, the key is free', async () => {
    const first = await enqueue(db, {
      queue: 'webhook',
      tenant: 't',
      payload: { e: 1 },
      pendingKey: 'replay:9',
    });
    const second = await enqueue(db, {
      queue: 'webhook',
      tenant: 't',
      payload: { e: 2 },
      pendingKey: 'replay:9',
    });
    expect(second).toEqual({ id: first.id, created: false });

    const worker = new Worker({ db, queues: { webhook: { handler: async () => undefined } } });
    expect(await worker.runOnce()).toBe(1);
    const third = await enqueue(db, {
      queue: 'webhook',
      tenant: 't',
      payload: { e: 3 },
      pendingKey: 'replay:9',
    });
    expect(third.created).toBe(true);
    expect(third.id).not.toBe(first.id);
    expect(await getJob(db, { id: third.id })).toMatchObject({ payload: { e: 3 }, state: 'pending' });
  });
});
