// Issue 11, item 2: one tenant cannot starve the others' jobs. Replays, e-mail resends and branding changes are
// limited per tenant and a document has at most one replay waiting; e-mails wait in their tenant's lane;
// webhook deliveries wait on receivers in their own pool; claims take turns between tenants (the 10,000-job case is in packages/jobs/test/fairness.security.test.ts,
// on both engines too).
import { latch } from '@cr/testkit';
import { enqueue, getJob } from '@cr/jobs';
import { post } from './support/client';
import { insertTestDocument } from './support/documents';
import { type TestApp, startTestApp } from './support/test-app';
import { drain, raiseFinalStateEvent } from './support/webhook-helpers';
import { WebhookReceiver } from './support/webhook-receiver';
import { createTenantLimiter } from '../src/tenancy/tenant-rate-limit';
import { TenantConcurrency } from '../src/tenancy/tenant-concurrency';
import { documentBody } from './support/document-mother';
import { issuerBody } from './support/issuer-mother';
import { MAIL_QUEUE } from '../src/delivery/mail-deps';
import { recordFinal } from '../src/hacienda/record-transitions';
import { mensajeHaciendaXml } from './support/documents';
import { DEADLINE_QUEUE } from '../src/recepcion/deadline-job';
import { WEBHOOK_QUEUE } from '../src/webhooks/webhook-event';

let ctx: TestApp;
let receiver: WebhookReceiver;
const submissions = new TenantConcurrency('submissions', 2);

beforeAll(async () => {
  ctx = await startTestApp({
    submissions,
    webhookReplayLimiter: createTenantLimiter('webhook replays', { limit: 3, windowSeconds: 60 }),
    brandingWriteLimiter: createTenantLimiter('branding changes', { limit: 2, windowSeconds: 60 }),
    mailResendLimiter: createTenantLimiter('e-mail resends', { limit: 3, windowSeconds: 60 }),
    concurrency: { jobs: 1, webhooks: 1 },
    webhooks: { timeoutMs: 20_000 },
  });
  receiver = await new WebhookReceiver().start();
});
afterAll(async () => {
  await receiver.stop();
  await ctx.close();
});

async function configure(tenant: string): Promise<void> {
  expect((await post(ctx, tenant, '/api/configurar/webhook', { url: receiver.url })).status).toBe(200);
}

async function pendingReplays(): Promise<number> {
  const r = await ctx.db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM jobs WHERE queue = $1 AND key LIKE 'webhook:replay:%' AND state = 'pending'",
    [WEBHOOK_QUEUE],
  );
  return r.rows[0]?.n ?? -1;
}

describe('webhook replays', () => {
  it('when a replay is still waiting, then asking again answers that replay and queues nothing new', async () => {
    await configure('acme');
    const doc = await insertTestDocument(ctx.db, 'acme', { estado: 'aceptado' });
    const first = await post(ctx, 'acme', '/api/reenviar/webhook', { clave: doc.clave });
    const second = await post(ctx, 'acme', '/api/reenviar/webhook', { clave: doc.clave });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.body.data.eventId).toBe(first.body.data.eventId);
    expect(await pendingReplays()).toBe(1);

    await drain(ctx);
    expect(receiver.received.map((hook) => hook.id)).toEqual([first.body.data.eventId]);
    // Delivered: the next replay is a new event.
    const third = await post(ctx, 'acme', '/api/reenviar/webhook', { clave: doc.clave });
    expect(third.status).toBe(200);
    expect(third.body.data.eventId).not.toBe(first.body.data.eventId);
    const job = await ctx.db.query<{ tenant: string }>(
      "SELECT tenant FROM jobs WHERE key = 'webhook:replay:' || $1",
      [third.body.data.eventId],
    );
    expect(job.rows[0]?.tenant).toBe('acme');
    await drain(ctx);
  });

  it('when a tenant replays beyond its limit, then 429 with Retry-After, and another tenant is unaffected', async () => {
    await configure('initech');
    const docs = await Promise.all(
      [1, 2, 3, 4].map(() => insertTestDocument(ctx.db, 'initech', { estado: 'aceptado' })),
    );
    const answers = [];
    for (const doc of docs)
      answers.push(await post(ctx, 'initech', '/api/reenviar/webhook', { clave: doc.clave }));
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 429]);
    const refused = answers[3]!;
    expect(refused.body.error).toBe('too_many_requests');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // The refused call queued nothing.
    expect(await pendingReplays()).toBe(3);

    await configure('globex');
    const other = await insertTestDocument(ctx.db, 'globex', { estado: 'aceptado' });
    expect((await post(ctx, 'globex', '/api/reenviar/webhook', { clave: other.clave })).status).toBe(200);
    await drain(ctx);
  });
});

describe('branding changes', () => {
  it('when a tenant changes its branding beyond its limit, then 429 with Retry-After, nothing stored, and another tenant is unaffected', async () => {
    // Each new logo is decoded once per process on the event loop every tenant shares.
    const answers = [];
    for (const footer of ['uno', 'dos', 'tres'])
      answers.push(await post(ctx, 'initech', '/api/configurar/marca', { pieDePagina: footer }));
    expect(answers.map((res) => res.status)).toEqual([200, 200, 429]);
    expect(answers[2]!.body.error).toBe('too_many_requests');
    expect(answers[2]!.body.message).toContain('branding changes');
    expect(Number(answers[2]!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const row = await ctx.db.query<{ footer: string }>(
      "SELECT footer FROM tenant_branding WHERE tenant_id = 'initech'",
    );
    expect(row.rows[0]!.footer).toBe('dos');
    expect((await post(ctx, 'globex', '/api/configurar/marca', { pieDePagina: 'otro' })).status).toBe(200);
  });
});

const RECIPIENTS = { destinatarios: ['cuentas@example.com'] };

async function pendingMails(tenant: string): Promise<number> {
  const r = await ctx.db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM jobs WHERE queue = $1 AND tenant = $2 AND state = 'pending'",
    [MAIL_QUEUE, tenant],
  );
  return r.rows[0]?.n ?? -1;
}

/** One claim of the e-mail queue as a worker makes it (jobs_claim), leased for an hour: what it took, in order. */
async function claimMails(limit: number): Promise<string[]> {
  const now = new Date(Date.now() + 1_000);
  const r = await ctx.db.query<{ tenant: string }>(
    'SELECT tenant FROM jobs_claim($1, $2, $3::text[], $4, $5)',
    ['starvation-test', new Date(now.getTime() + 3_600_000), [MAIL_QUEUE], now, limit],
  );
  return r.rows.map((row) => row.tenant);
}

describe('e-mail resends', () => {
  it('when a tenant resends beyond its limit, then 429 with Retry-After, nothing queued, and another tenant is unaffected', async () => {
    const docs = await Promise.all(
      [1, 2, 3, 4].map(() => insertTestDocument(ctx.db, 'umbrella', { estado: 'aceptado' })),
    );
    const answers = [];
    for (const doc of docs)
      answers.push(await post(ctx, 'umbrella', '/api/reenviar/correo', { clave: doc.clave, ...RECIPIENTS }));
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 429]);
    const refused = answers[3]!;
    expect(refused.body).toMatchObject({
      error: 'too_many_requests',
      message: expect.stringMatching(/^too many e-mail resends for this tenant; retry in \d+ s$/),
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(await pendingMails('umbrella')).toBe(3);
    const stored = await ctx.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM mail_messages WHERE tenant_id = 'umbrella'",
    );
    expect(stored.rows[0]!.n).toBe(3);

    const other = await insertTestDocument(ctx.db, 'wayne', { estado: 'aceptado' });
    const res = await post(ctx, 'wayne', '/api/reenviar/correo', { clave: other.clave, ...RECIPIENTS });
    expect(res.status).toBe(200);
    expect(await pendingMails('wayne')).toBe(1);
  });

  it("when one tenant has e-mails queued before another's acceptance, then each e-mail job is in its tenant's lane and the next claim takes the other tenant's e-mail", async () => {
    // Out of the way: whatever e-mails earlier tests queued.
    await claimMails(1_000);
    const resent = [];
    for (let i = 0; i < 3; i += 1) {
      const doc = await insertTestDocument(ctx.db, 'massive', { estado: 'aceptado' });
      const res = await post(ctx, 'massive', '/api/reenviar/correo', { clave: doc.clave, ...RECIPIENTS });
      expect(res.status).toBe(200);
      resent.push(res.body.data.envioId as string);
    }
    const doc = await insertTestDocument(ctx.db, 'small', { estado: 'enviado' });
    const values = { estado: 'aceptado' as const, respuestaXml: mensajeHaciendaXml(doc.clave), mensaje: 1 };
    expect(
      await recordFinal(ctx.submission, { tenantId: 'small', documentId: doc.id }, values, 'aceptado'),
    ).toBe(true);

    expect((await getJob(ctx.db, { key: `mail:${resent[0]}` }))?.tenant).toBe('massive');
    expect((await getJob(ctx.db, { key: `mail:${doc.id}:aceptado` }))?.tenant).toBe('small');
    // Two free delivery slots: one takes the busy tenant's oldest e-mail, the other the quiet tenant's, not the
    // busy tenant's second (its SMTP server may hold each for MAIL_TIMEOUT_MS).
    expect((await claimMails(2)).sort()).toEqual(['massive', 'small']);
    await claimMails(1_000);
    // The acceptance's webhook event (no webhook configured for this tenant).
    await drain(ctx);
  });
});

describe('submissions in progress', () => {
  const documentsOf = async (tenant: string) =>
    (
      await ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM documents WHERE tenant_id = $1', [
        tenant,
      ])
    ).rows[0]!.n;

  it('when a tenant already has SUBMISSIONS_PER_TENANT in progress, then its next is 429 with Retry-After and stores nothing, and another tenant submits', async () => {
    for (const tenant of ['piedpiper', 'aviato'])
      expect((await post(ctx, tenant, '/api/enviar/emisor', issuerBody())).status).toBe(200);
    const { promise: holding, release } = latch();
    // The tenant's two slots, held as two slow submissions would hold them.
    const slots = [submissions.run('piedpiper', () => holding), submissions.run('piedpiper', () => holding)];
    try {
      const refused = await post(ctx, 'piedpiper', '/api/enviar/items', documentBody('invoice', 1));
      expect(refused.status).toBe(429);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.body).toMatchObject({
        error: 'too_many_requests',
        message: 'too many submissions at once for this tenant; retry in 1 s',
      });
      expect(await documentsOf('piedpiper')).toBe(0);
      const other = await post(ctx, 'aviato', '/api/enviar/items', documentBody('invoice', 1));
      expect(other.status).toBe(200);
    } finally {
      release();
      await Promise.all(slots);
    }
    const later = await post(ctx, 'piedpiper', '/api/enviar/items', documentBody('invoice', 1));
    expect(later.status).toBe(200);
    expect(await documentsOf('piedpiper')).toBe(1);
    // The acceptances' submission jobs (no Hacienda configured): out of the way of the pool test below.
    await ctx.db.query("DELETE FROM jobs WHERE tenant IN ('piedpiper', 'aviato')");
  });
});

describe('pools', () => {
  it('when a receiver hangs on every delivery, then the other pool still runs its jobs', async () => {
    await configure('hooli');
    receiver.script = [0, 0, 0];
    const doc = await insertTestDocument(ctx.db, 'hooli', { estado: 'aceptado' });
    await raiseFinalStateEvent(ctx.db, 'hooli', doc);
    // Earlier tests' deliveries reached the same receiver: wait for this one, not for any.
    const earlier = receiver.received.length;
    ctx.worker.start();
    try {
      // The one webhook slot is held by a receiver that never answers (until the 20 s timeout)…
      while (receiver.received.length === earlier) await new Promise((resolve) => setTimeout(resolve, 10));
      // …while the submission pool's one slot still takes its work at once.
      const scan = await enqueue(ctx.db, {
        tenant: '',
        queue: DEADLINE_QUEUE,
        key: 'deadline-pool-test',
        payload: {},
      });
      for (let i = 0; i < 500 && (await getJob(ctx.db, scan))?.state !== 'done'; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect((await getJob(ctx.db, scan))?.state).toBe('done');
      expect(ctx.worker.workers.map((worker) => worker.busy)).toEqual([0, 1]);
    } finally {
      receiver.script = [];
      await ctx.worker.stop(100);
    }
  });
});
