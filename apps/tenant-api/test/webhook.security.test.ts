import { withTenant } from '../src/db/with-tenant';
import { post } from './support/client';
import { insertTestDocument } from './support/documents';
import { describeSecurityTable } from './support/security-cases';
import { type TestApp, startTestApp } from './support/test-app';
import { drain, raiseFinalStateEvent } from './support/webhook-helpers';
import { WebhookReceiver } from './support/webhook-receiver';

let ctx: TestApp;
let receiverA: WebhookReceiver;
let receiverB: WebhookReceiver;

beforeAll(async () => {
  ctx = await startTestApp();
  receiverA = await new WebhookReceiver().start();
  receiverB = await new WebhookReceiver().start();
});
afterAll(async () => {
  await receiverA.stop();
  await receiverB.stop();
  await ctx.close();
});

describeSecurityTable('POST /api/configurar/webhook', () => ctx, {
  method: 'post',
  path: '/api/configurar/webhook',
  body: { url: 'http://127.0.0.1:9/hook' },
});
describeSecurityTable('POST /api/consultar/webhook', () => ctx, {
  method: 'post',
  path: '/api/consultar/webhook',
  body: {},
});
describeSecurityTable('POST /api/reenviar/webhook', () => ctx, {
  method: 'post',
  path: '/api/reenviar/webhook',
  body: { clave: '5'.repeat(50) },
});

describe('webhooks: tenant isolation', () => {
  it("when tenant B consults or replays, then it sees only its own webhook and never A's documents or deliveries", async () => {
    const a = await post(ctx, 'acme', '/api/configurar/webhook', { url: receiverA.url });
    expect(a.status).toBe(200);
    const docA = await insertTestDocument(ctx.db, 'acme', { estado: 'aceptado' });
    await raiseFinalStateEvent(ctx.db, 'acme', docA);
    await drain(ctx);
    expect(receiverA.received).toHaveLength(1);
    const before = await post(ctx, 'acme', '/api/consultar/webhook', {});

    // B has no webhook: consultar does not fall back to A's.
    const none = await post(ctx, 'globex', '/api/consultar/webhook', {});
    expect(none.status).toBe(404);
    expect(none.text).not.toContain(receiverA.url);

    // B cannot replay A's document: the same 404 as for a clave that does not exist.
    const replay = await post(ctx, 'globex', '/api/reenviar/webhook', { clave: docA.clave });
    expect(replay.status).toBe(404);
    expect(replay.body.error).toBe('not_found');

    // B configures its own: A's endpoint, secret and log are untouched.
    const b = await post(ctx, 'globex', '/api/configurar/webhook', { url: receiverB.url });
    expect(b.status).toBe(200);
    const docB = await insertTestDocument(ctx.db, 'globex', { estado: 'rechazado' });
    await raiseFinalStateEvent(ctx.db, 'globex', docB);
    await drain(ctx);
    expect(receiverB.received).toHaveLength(1);
    expect(receiverA.received).toHaveLength(1);
    expect(receiverB.verifies(receiverB.received[0]!, b.body.data.secret)).toBe(true);
    expect(receiverB.verifies(receiverB.received[0]!, a.body.data.secret)).toBe(false);

    const seenByA = await post(ctx, 'acme', '/api/consultar/webhook', {});
    expect(seenByA.body.data.url).toBe(receiverA.url);
    expect(seenByA.body.data.entregas.map((e: { clave: string }) => e.clave)).toEqual([docA.clave]);
    const seenByB = await post(ctx, 'globex', '/api/consultar/webhook', {});
    expect(seenByB.body.data.url).toBe(receiverB.url);
    expect(seenByB.body.data.entregas.map((e: { clave: string }) => e.clave)).toEqual([docB.clave]);
    // B's configuration rotated nothing of A's.
    expect(seenByA.body.data.secretoRotadoEn).toBe(before.body.data.secretoRotadoEn);
    expect(receiverA.verifies(receiverA.received[0]!, a.body.data.secret)).toBe(true);
  });

  it('when a query forgets its tenant filter, then row-level security still hides the other tenant', async () => {
    const rows = await withTenant(ctx.db, 'globex', async (tx) => ({
      endpoints: (await tx.query<{ tenant_id: string }>('SELECT tenant_id FROM webhook_endpoints')).rows,
      events: (await tx.query<{ tenant_id: string }>('SELECT tenant_id FROM webhook_events')).rows,
      deliveries: (await tx.query<{ tenant_id: string }>('SELECT tenant_id FROM webhook_deliveries')).rows,
    }));
    for (const list of Object.values(rows)) {
      expect(list.length).toBeGreaterThan(0);
      expect(list.every((r) => r.tenant_id === 'globex')).toBe(true);
    }
    await expect(
      withTenant(ctx.db, 'globex', (tx) =>
        tx.query("UPDATE webhook_endpoints SET tenant_id = 'acme' WHERE tenant_id = 'globex'"),
      ),
    ).rejects.toThrow(/row-level security|policy/);
  });
});
