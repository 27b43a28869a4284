// A replay's answer says where its event will go, as the tenant's endpoint stands: sent (`activo`), or only
// recorded as not delivered because no URL is configured (`sin-url`) or a 410 Gone deactivated the endpoint
// (`desactivado`, since when and why). Each case is then drained, so the answer is checked against what the
// delivery job really did with the event. Rejected documents: their events carry no PDF to render.
import { WebhookReplayResponse, validate } from '@cr/contracts';
import { post } from './support/client';
import { insertTestDocument } from './support/documents';
import {
  TestClock,
  deliveriesOf,
  drain,
  raiseFinalStateEvent,
  useWebhookHarness,
} from './support/webhook-helpers';

const clock = new TestClock();
const h = useWebhookHarness(clock);

async function configure(tenant: string): Promise<void> {
  expect((await post(h.ctx, tenant, '/api/configurar/webhook', { url: h.receiver.url })).status).toBe(200);
}

/** Replays the document's event; the answer's body, checked against the contract. */
async function replay(tenant: string, clave: string): Promise<WebhookReplayResponse> {
  const res = await post(h.ctx, tenant, '/api/reenviar/webhook', { clave });
  expect(res.status).toBe(200);
  const checked = validate(WebhookReplayResponse, res.body);
  if (!checked.ok) throw new Error(`not a WebhookReplayResponse: ${JSON.stringify(checked.issues)}`);
  return checked.value;
}

describe('webhooks: what a replay answers about where its event goes', () => {
  it('when the endpoint is active, then the answer says activo and the event is sent', async () => {
    const tenant = 'replay-active';
    await configure(tenant);
    const doc = await insertTestDocument(h.ctx.db, tenant, { estado: 'rechazado' });

    const answer = await replay(tenant, doc.clave);

    const { eventId } = answer.data;
    expect(answer).toEqual({
      status: 'success',
      message: `event ${eventId} queued for document ${doc.clave} (rechazado)`,
      data: { eventId: expect.stringMatching(/^msg_[0-9a-f]{32}$/), webhook: 'activo' },
    });
    expect(await drain(h.ctx)).toBe(1);
    expect(h.receiver.received.map((r) => r.id)).toEqual([eventId]);
  });

  it('when no URL is configured, then the answer says sin-url and how to set one, and the event is recorded as not delivered', async () => {
    const tenant = 'replay-no-url';
    const doc = await insertTestDocument(h.ctx.db, tenant, { estado: 'rechazado' });

    const answer = await replay(tenant, doc.clave);

    const { eventId } = answer.data;
    expect(answer).toEqual({
      status: 'success',
      message: `event ${eventId} queued for document ${doc.clave} (rechazado); no webhook URL is configured, so it will be recorded as not delivered: set one with POST /api/configurar/webhook`,
      data: { eventId: expect.stringMatching(/^msg_[0-9a-f]{32}$/), webhook: 'sin-url' },
    });
    expect(await drain(h.ctx)).toBe(1);
    expect(await deliveriesOf(h.ctx.db, tenant, doc.id)).toEqual([
      expect.objectContaining({ event_id: eventId, error: 'no webhook endpoint configured' }),
    ]);
  });

  it('when a 410 Gone deactivated the endpoint, then the answer says desactivado, since when and why, and the event is recorded as not delivered; saving the URL again makes the next replay activo and sent', async () => {
    const tenant = 'replay-gone';
    await configure(tenant);
    const doc = await insertTestDocument(h.ctx.db, tenant, { estado: 'rechazado' });
    await raiseFinalStateEvent(h.ctx.db, tenant, doc);
    h.receiver.script = [410];
    expect(await drain(h.ctx)).toBe(1);
    const consulted = (await post(h.ctx, tenant, '/api/consultar/webhook', {})).body.data;
    expect(consulted).toMatchObject({ activo: false, desactivadoEn: expect.any(String) });

    const answer = await replay(tenant, doc.clave);

    const { eventId } = answer.data;
    expect(answer).toEqual({
      status: 'success',
      message: `event ${eventId} queued for document ${doc.clave} (rechazado); the webhook endpoint was deactivated on ${consulted.desactivadoEn} (receiver answered 410 Gone), so it will be recorded as not delivered: saving the URL again (POST /api/configurar/webhook) reactivates it`,
      data: {
        eventId: expect.stringMatching(/^msg_[0-9a-f]{32}$/),
        webhook: 'desactivado',
        desactivadoEn: consulted.desactivadoEn,
        motivoDesactivacion: 'receiver answered 410 Gone',
      },
    });
    expect(await drain(h.ctx)).toBe(1);
    expect(h.receiver.received).toHaveLength(1);
    expect((await deliveriesOf(h.ctx.db, tenant, doc.id)).at(-1)).toMatchObject({
      event_id: eventId,
      error: 'webhook endpoint is disabled',
    });

    // What the message says to do.
    await configure(tenant);
    const again = await replay(tenant, doc.clave);
    expect(again.data).toEqual({ eventId: again.data.eventId, webhook: 'activo' });
    expect(await drain(h.ctx)).toBe(1);
    expect(h.receiver.received.map((r) => r.id)).toEqual([expect.any(String), again.data.eventId]);
  });
});
