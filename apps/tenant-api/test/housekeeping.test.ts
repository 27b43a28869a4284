// The service's hourly housekeeping run: finished jobs past JOBS_RETENTION_DAYS (default 7) and idempotency
// keys past their 24 h are deleted, and webhook events finished before the retention give up their frozen
// body, for every tenant; what is waiting, recent or still valid stays. The
// periodic runs scheduled at start (as main.ts does) chain: the next hour's housekeeping, the next Costa Rica
// morning's deadline scan.
import { HOUSEKEEPING_QUEUE, enqueue, getJob } from '@cr/jobs';
import { costaRicaDate } from '@cr/hacienda-xml';
import { DEADLINE_QUEUE } from '../src/recepcion/deadline-job';
import { type TestApp, startTestApp } from './support/test-app';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

// The app's clock stands still, so the next hour the run schedules is known exactly.
const now = new Date();
let ctx: TestApp;
beforeAll(async () => {
  ctx = await startTestApp({ now: () => now });
}, 60_000);
afterAll(async () => {
  await ctx.close();
});

async function finishedJob(queue: string, key: string, finishedAt: Date): Promise<string> {
  const { id } = await enqueue(ctx.db, { tenant: '', queue, key, payload: {} });
  await ctx.db.query("UPDATE jobs SET state = 'done', finished_at = $2 WHERE id = $1", [id, finishedAt]);
  return id;
}

async function idempotencyKey(tenantId: string, key: string, expiresAt: Date): Promise<void> {
  await ctx.db.query(
    `INSERT INTO idempotency_keys (tenant_id, key, request_hash, state, response_status, response_body,
       locked_until, expires_at)
     VALUES ($1, $2, 'h', 'done', 201, '{}'::jsonb, $3, $3)`,
    [tenantId, key, expiresAt],
  );
}

// The events' job ids (unique), far from any job this test app creates.
let eventJobs = 900_000_000;

async function webhookEvent(
  tenantId: string,
  id: string,
  state: string,
  createdAt: Date,
  finishedAt: Date | null,
): Promise<void> {
  await ctx.db.query(
    `INSERT INTO webhook_events (id, tenant_id, document_id, clave, estado, job_id, body, state, created_at,
       finished_at)
     VALUES ($1, $2, gen_random_uuid(), $3, 'aceptado', $4, $5, $6, $7, $8)`,
    [
      id,
      tenantId,
      '5'.repeat(50),
      eventJobs++,
      `{"pdf":"${'A'.repeat(4_000)}"}`,
      state,
      createdAt,
      finishedAt,
    ],
  );
}

async function eventBodies(): Promise<Record<string, boolean>> {
  const r = await ctx.db.query<{ id: string; kept: boolean }>(
    "SELECT id, body IS NOT NULL AS kept FROM webhook_events WHERE id LIKE 'msg_hk_%' ORDER BY id",
  );
  return Object.fromEntries(r.rows.map((row) => [row.id, row.kept]));
}

async function keysLeft(): Promise<string[]> {
  const r = await ctx.db.query<{ k: string }>(
    "SELECT tenant_id || '/' || key AS k FROM idempotency_keys WHERE key LIKE 'hk-%' ORDER BY 1",
  );
  return r.rows.map((row) => row.k);
}

it('when the hour’s run comes, then old finished jobs and expired idempotency keys of every tenant go, old finished webhook events lose their body, and what is waiting, recent or valid stays; both periodic runs chain to their next period', async () => {
  const old = await finishedJob('hacienda.submit', 'housekeeping:old', new Date(now.getTime() - 8 * DAY));
  const recent = await finishedJob(
    'webhook.deliver',
    'housekeeping:recent',
    new Date(now.getTime() - 6 * DAY),
  );
  const { id: waiting } = await enqueue(ctx.db, {
    tenant: '',
    queue: 'hacienda.status',
    key: 'housekeeping:waiting',
    payload: {},
    runAt: new Date(now.getTime() + DAY),
  });
  await idempotencyKey('tenant-a', 'hk-expired', new Date(now.getTime() - HOUR));
  await idempotencyKey('tenant-b', 'hk-expired', new Date(now.getTime() - 2 * DAY));
  await idempotencyKey('tenant-b', 'hk-valid', new Date(now.getTime() + 23 * HOUR));
  const ago = (ms: number) => new Date(now.getTime() - ms);
  await webhookEvent('tenant-a', 'msg_hk_delivered_8d', 'delivered', ago(8 * DAY), ago(8 * DAY));
  await webhookEvent('tenant-b', 'msg_hk_failed_8d', 'failed', ago(9 * DAY), ago(8 * DAY));
  await webhookEvent('tenant-a', 'msg_hk_delivered_6d', 'delivered', ago(6 * DAY), ago(6 * DAY));
  await webhookEvent('tenant-b', 'msg_hk_pending_9d', 'pending', ago(9 * DAY), null);

  await ctx.schedulePeriodicRuns(now);
  await ctx.worker.runOnce();

  expect(await getJob(ctx.db, { id: old })).toBeUndefined();
  expect(await getJob(ctx.db, { id: recent })).toMatchObject({ state: 'done' });
  expect(await getJob(ctx.db, { id: waiting })).toMatchObject({ state: 'pending' });
  expect(await keysLeft()).toEqual(['tenant-b/hk-valid']);
  expect(await eventBodies()).toEqual({
    msg_hk_delivered_6d: true,
    msg_hk_delivered_8d: false,
    msg_hk_failed_8d: false,
    msg_hk_pending_9d: true,
  });
  const next = await ctx.db.query<{ run_at: Date }>(
    "SELECT run_at FROM jobs WHERE queue = $1 AND state = 'pending'",
    [HOUSEKEEPING_QUEUE],
  );
  expect(next.rows).toHaveLength(1);
  const nextHour = Math.floor(now.getTime() / HOUR + 1) * HOUR;
  expect(new Date(next.rows[0]?.run_at as Date).getTime()).toBe(nextHour);

  const tomorrow = costaRicaDate(new Date(now.getTime() + DAY));
  expect(await getJob(ctx.db, { key: `${DEADLINE_QUEUE}:${costaRicaDate(now)}` })).toMatchObject({
    state: 'done',
  });
  const nextScan = await getJob(ctx.db, { key: `${DEADLINE_QUEUE}:${tomorrow}` });
  expect(nextScan).toMatchObject({ state: 'pending' });
  expect(nextScan?.runAt.toISOString()).toBe(new Date(`${tomorrow}T06:00:00-06:00`).toISOString());
});
