// A webhook event with nowhere to go (no endpoint configured, or one disabled after a 410) is recorded as
// before, but its accepted document's PDF is not rendered for it (about a second of CPU and tens of MB for a
// long document, per accepted document and per replay) and no body is stored: nothing was sent.
//
// The observable: the PDF renders are shared (render-document-pdf.ts), so a download right after the job is
// answered from the shared render when the job rendered the same document with the same branding, and takes
// one of the tenant's render slots when it did not. Each test brands its tenant with a footer of its own, so
// no other render (an earlier test's, the 410 delivery's) can be the one shared.
import { randomUUID } from 'node:crypto';
import { renderDocumentPdf } from '../src/delivery/render-document-pdf';
import { TenantConcurrency } from '../src/tenancy/tenant-concurrency';
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

/** A footer no other render of this file shares. */
async function brandUniquely(tenant: string): Promise<void> {
  const res = await post(h.ctx, tenant, '/api/configurar/marca', { pieDePagina: `Pie ${randomUUID()}` });
  expect(res.status).toBe(200);
}

/** How many new renders a download of the document's PDF needed (0: it was already rendered). */
async function rendersForDownload(tenant: string, clave: string): Promise<number> {
  const slots = new TenantConcurrency('PDF renders', 1);
  let renders = 0;
  const pdfRenders = {
    run: <T>(tenantId: string, work: () => Promise<T>) => {
      renders += 1;
      return slots.run(tenantId, work);
    },
  };
  const pdf = await renderDocumentPdf({ db: h.ctx.db, pdfRenders }, { tenantId: tenant, clave });
  expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
  return renders;
}

/** Each event of the document: its state, whether it finished, and whether it kept a body. */
async function eventsOf(tenant: string, documentId: string) {
  const r = await h.ctx.db.query<{ state: string; finished: boolean; has_body: boolean }>(
    `SELECT state, finished_at IS NOT NULL AS finished, body IS NOT NULL AS has_body FROM webhook_events
     WHERE tenant_id = $1 AND document_id = $2 ORDER BY created_at`,
    [tenant, documentId],
  );
  return r.rows;
}

describe('webhooks: an event with no active endpoint renders no PDF', () => {
  it('when a tenant without a webhook endpoint has a document accepted, then no_endpoint is recorded as before and no PDF is rendered for it', async () => {
    const tenant = 'noendpoint';
    await brandUniquely(tenant);
    const doc = await insertTestDocument(h.ctx.db, tenant, { estado: 'aceptado' });
    await raiseFinalStateEvent(h.ctx.db, tenant, doc);
    expect(await drain(h.ctx)).toBe(1);

    const rows = await deliveriesOf(h.ctx.db, tenant, doc.id);
    expect(rows).toEqual([
      {
        event_id: expect.stringMatching(/^msg_[0-9a-f]{32}$/),
        attempt: 1,
        url: '',
        status: null,
        latency_ms: null,
        error: 'no webhook endpoint configured',
      },
    ]);
    expect(await rendersForDownload(tenant, doc.clave)).toBe(1);
    expect(await eventsOf(tenant, doc.id)).toEqual([
      { state: 'no_endpoint', finished: true, has_body: false },
    ]);
    const consulted = await post(h.ctx, tenant, '/api/consultar/documento', { clave: doc.clave });
    expect(consulted.status).toBe(200);
    expect(consulted.body.data.webhook).toMatchObject({
      total: 1,
      entregas: [
        {
          eventId: rows[0]!.event_id,
          intento: 1,
          url: '',
          status: null,
          latenciaMs: null,
          error: 'no webhook endpoint configured',
        },
      ],
    });
    expect((await post(h.ctx, tenant, '/api/consultar/webhook', {})).status).toBe(404);
  });

  it('when a tenant without a webhook endpoint replays an accepted document, then no PDF is rendered for the replay', async () => {
    const tenant = 'noendpoint-replay';
    await brandUniquely(tenant);
    const doc = await insertTestDocument(h.ctx.db, tenant, { estado: 'aceptado' });
    const replay = await post(h.ctx, tenant, '/api/reenviar/webhook', { clave: doc.clave });
    expect(replay.status).toBe(200);
    expect(await drain(h.ctx)).toBe(1);

    expect(await deliveriesOf(h.ctx.db, tenant, doc.id)).toEqual([
      expect.objectContaining({
        event_id: replay.body.data.eventId,
        attempt: 1,
        error: 'no webhook endpoint configured',
      }),
    ]);
    expect(await rendersForDownload(tenant, doc.clave)).toBe(1);
    expect(await eventsOf(tenant, doc.id)).toEqual([
      { state: 'no_endpoint', finished: true, has_body: false },
    ]);
  });

  it('when the endpoint was disabled by a 410, then a later accepted document is recorded as disabled and no PDF is rendered for it; a replay after re-configuring sends it with its PDF', async () => {
    const tenant = 'disabled-endpoint';
    expect((await post(h.ctx, tenant, '/api/configurar/webhook', { url: h.receiver.url })).status).toBe(200);
    const gone = await insertTestDocument(h.ctx.db, tenant, { estado: 'aceptado' });
    await raiseFinalStateEvent(h.ctx.db, tenant, gone);
    h.receiver.script = [410];
    expect(await drain(h.ctx)).toBe(1);
    expect((await post(h.ctx, tenant, '/api/consultar/webhook', {})).body.data.activo).toBe(false);

    // The 410 delivery rendered this tenant's PDF under its old branding; the later document's render is new.
    await brandUniquely(tenant);
    const later = await insertTestDocument(h.ctx.db, tenant, { estado: 'aceptado' });
    await raiseFinalStateEvent(h.ctx.db, tenant, later);
    expect(await drain(h.ctx)).toBe(1);
    expect(h.receiver.received).toHaveLength(1);
    expect(await deliveriesOf(h.ctx.db, tenant, later.id)).toEqual([
      expect.objectContaining({
        attempt: 1,
        url: h.receiver.url,
        status: null,
        error: 'webhook endpoint is disabled',
      }),
    ]);
    expect(await rendersForDownload(tenant, later.clave)).toBe(1);
    expect(await eventsOf(tenant, later.id)).toEqual([
      { state: 'disabled', finished: true, has_body: false },
    ]);

    // Nothing the tenant can ask for was lost: the replay builds its event, PDF included, from the document.
    expect((await post(h.ctx, tenant, '/api/configurar/webhook', { url: h.receiver.url })).status).toBe(200);
    const replay = await post(h.ctx, tenant, '/api/reenviar/webhook', { clave: later.clave });
    expect(replay.status).toBe(200);
    expect(await drain(h.ctx)).toBe(1);
    expect(h.receiver.received).toHaveLength(2);
    const sent = JSON.parse(h.receiver.received[1]!.body);
    expect(sent.folioDetails.map((f: { fileType: string }) => f.fileType)).toEqual(['XML', 'PDF']);
    expect(await eventsOf(tenant, later.id)).toEqual([
      { state: 'disabled', finished: true, has_body: false },
      { state: 'delivered', finished: true, has_body: true },
    ]);
  });
});
