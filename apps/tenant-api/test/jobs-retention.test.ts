// The service's jobs worker prunes finished jobs past JOBS_RETENTION_DAYS (default 7) through its hourly
// `jobs.prune` run: the jobs table holds what is waiting, running or recent, not every job ever run.
import { PRUNE_QUEUE, enqueue, getJob, schedulePrune } from '@cr/jobs';
import { type TestApp, startTestApp } from './support/test-app';

const DAY = 86_400_000;

let ctx: TestApp;
beforeAll(async () => {
  ctx = await startTestApp();
}, 60_000);
afterAll(async () => {
  await ctx.close();
});

async function finishedJob(queue: string, key: string, finishedAt: Date): Promise<string> {
  const { id } = await enqueue(ctx.db, { queue, key, payload: {} });
  await ctx.db.query("UPDATE jobs SET state = 'done', finished_at = $2 WHERE id = $1", [id, finishedAt]);
  return id;
}

it('when the hour’s prune runs, then finished jobs older than the retention go and recent, waiting ones stay', async () => {
  const now = new Date();
  const old = await finishedJob('hacienda.submit', 'retention:old', new Date(now.getTime() - 8 * DAY));
  const recent = await finishedJob('webhook.deliver', 'retention:recent', new Date(now.getTime() - 6 * DAY));
  const { id: waiting } = await enqueue(ctx.db, {
    queue: 'hacienda.status',
    key: 'retention:waiting',
    payload: {},
    runAt: new Date(now.getTime() + DAY),
  });

  await schedulePrune(ctx.db, now);
  await ctx.worker.runOnce();

  expect(await getJob(ctx.db, { id: old })).toBeUndefined();
  expect(await getJob(ctx.db, { id: recent })).toMatchObject({ state: 'done' });
  expect(await getJob(ctx.db, { id: waiting })).toMatchObject({ state: 'pending' });
  const next = await ctx.db.query<{ run_at: Date }>(
    "SELECT run_at FROM jobs WHERE queue = $1 AND state = 'pending'",
    [PRUNE_QUEUE],
  );
  expect(next.rows).toHaveLength(1);
  const nextHour = Math.floor(now.getTime() / 3_600_000 + 1) * 3_600_000;
  expect(new Date(next.rows[0]?.run_at as Date).getTime()).toBe(nextHour);
});
