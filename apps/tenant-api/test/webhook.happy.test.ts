import { WebhookEventPayload, validate } from '@cr/contracts';
import { getJob } from '@cr/jobs';
import { withTenant } from '../src/db/with-tenant';
import { renderDocumentPdf } from '../src/delivery/render-document-pdf';
import { TenantConcurrency } from '../src/tenancy/tenant-concurrency';
import { unsafeClearFinishedEventBodies } from '../src/webhooks/clear-event-bodies';
import { runWebhookDelivery } from '../src/webhooks/deliver-webhook-job';
import type { WebhookJobPayload } from '../src/webhooks/webhook-event';
import { post } from './support/client';
import { insertTestDocument, mensajeHaciendaXml, setDocumentState } from './support/documents';
import {
  TestClock,
  deliveriesOf,
  drain,
  raiseFinalStateEvent,
  useWebhookHarness,
} from './support/webhook-helpers';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

const clock = new TestClock();
const h = useWebhookHarness(clock);

async function configure(tenant = 'acme', url = h.receiver.url): Promise<string> {
  const res = await post(h.ctx, tenant, '/api/configurar/webhook', { url });
  expect(res.status).toBe(200);
  return res.body.data.secret as string;
}

/** The state of each event raised for a document, and whether it is finished. */
async function eventStates(tenant: string, documentId: string) {
  const r = await h.ctx.db.query<{ state: string; finished: boolean }>(
    `SELECT state, finished_at IS NOT NULL AS finished FROM webhook_events
     WHERE tenant_id = $1 AND document_id = $2 ORDER BY created_at`,
    [tenant, documentId],
  );
  return r.rows;
}

describe('webhooks: configuration', () => {
  it('when a URL is configured, then the answer shows it with a whsec_ secret once, and consultar never does', async () => {
    const res = await post(h.ctx, 'acme', '/api/configurar/webhook', { url: h.receiver.url });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      status: 'success',
      data: { url: h.receiver.url, secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) },
    });
    const secret = res.body.data.secret as string;

    const found = await post(h.ctx, 'acme', '/api/consultar/webhook', {});
    expect(found.status).toBe(200);
    expect(found.body).toEqual({
      status: 'success',
      data: { url: h.receiver.url, activo: true, entregas: [] },
    });
    expect(found.text).not.toContain(secret.slice('whsec_'.length));
    expect(h.ctx.log.text).not.toContain(secret.slice('whsec_'.length));
  });

  it('when the endpoint row is read raw, then neither secret is there in clear', async () => {
    const first = await configure();
    const second = await configure();
    expect(second).not.toBe(first);
    const raw = await h.ctx.db.query<Record<string, unknown>>('SELECT * FROM webhook_endpoints');
    const text = JSON.stringify(raw.rows);
    for (const s of [first, second]) {
      expect(text).not.toContain(s);
      expect(text).not.toContain(s.slice('whsec_'.length));
      expect(text).not.toContain(Buffer.from(s.slice('whsec_'.length), 'base64').toString('hex'));
    }
    expect(raw.rows[0]).toMatchObject({ tenant_id: 'acme', secret_sealed: expect.stringMatching(/^v1\./) });
    expect(raw.rows[0]!.previous_secret_sealed).toEqual(expect.stringMatching(/^v1\./));
  });

  it('when re-configured, then consultar shows the rotation time and the end of the dual-signature window', async () => {
    await configure();
    clock.advance(MINUTE);
    await configure();
    const rotatedAt = clock.now().toISOString();
    const found = await post(h.ctx, 'acme', '/api/consultar/webhook', {});
    expect(found.body.data).toMatchObject({
      activo: true,
      secretoRotadoEn: rotatedAt,
      firmaDobleHasta: new Date(clock.ms + 24 * HOUR).toISOString(),
    });
  });
});

describe('webhooks: delivery', () => {
  it('when a document reaches a final state, then the receiver gets the spec payload, signed, with Standard Webhooks headers', async () => {
    clock.advance(25 * HOUR); // past any earlier rotation overlap
    const secret = await configure();
    clock.advance(25 * HOUR); // this configuration's own overlap is over too: one signature only
    const doc = await insertTestDocument(h.ctx.db, 'acme', { estado: 'aceptado' });
    await raiseFinalStateEvent(h.ctx.db, 'acme', doc);
    expect(await drain(h.ctx)).toBe(1);

    expect(h.receiver.received).toHaveLength(1);
    const hook = h.receiver.received[0]!;
    expect(hook.path).toBe('/hooks/hacienda');
    expect(hook.contentType).toBe('application/json');
    expect(hook.id).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(hook.timestamp).toBe(String(clock.unixSeconds));
    expect(hook.signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(h.receiver.verifies(hook, secret)).toBe(true);
    expect(h.receiver.verifies({ ...hook, body: hook.body.replace('aceptado', 'rechazado') }, secret)).toBe(
      false,
    );

    const payload = JSON.parse(hook.body);
    expect(validate(WebhookEventPayload, payload).ok).toBe(true);
    const pdf = await renderDocumentPdf(
      { db: h.ctx.db, pdfRenders: new TenantConcurrency('PDF renders', 1) },
      { tenantId: 'acme', clave: doc.clave },
    );
    expect(payload).toEqual({
      folioId: doc.clave,
      folioType: 'INVOICE',
      folioDetails: [
        { fileType: 'XML', encodedFile: Buffer.from(doc.respuestaXml!).toString('base64') },
        { fileType: 'PDF', encodedFile: pdf.toString('base64') },
      ],
      clave: doc.clave,
      estado: 'aceptado',
    });
    expect(Buffer.from(payload.folioDetails[0].encodedFile, 'base64').toString()).toContain(
      '<Mensaje>1</Mensaje>',
    );

    expect(await deliveriesOf(h.ctx.db, 'acme', doc.id)).toEqual([
      {
        event_id: hook.id,
        attempt: 1,
        url: h.receiver.url,
        status: 204,
        latency_ms: expect.any(Number),
        error: null,
      },
    ]);
    const found = await post(h.ctx, 'acme', '/api/consultar/webhook', {});
    expect(found.body.data.entregas[0]).toEqual({
      eventId: hook.id,
      intento: 1,
      url: h.receiver.url,
      status: 204,
      latenciaMs: expect.any(Number),
      error: null,
      fecha: clock.now().toISOString(),
      clave: doc.clave,
    });
  });

  it("when the tenant has a branding, then the event's PDF is the branded one, the same bytes as the download", async () => {
    await configure();
    const branded = await post(h.ctx, 'acme', '/api/configurar/marca', {
      pieDePagina: 'Gracias por preferirnos',
    });
    expect(branded.status).toBe(200);
    try {
      const doc = await insertTestDocument(h.ctx.db, 'acme', { estado: 'aceptado' });
      await raiseFinalStateEvent(h.ctx.db, 'acme', doc);
      expect(await drain(h.ctx)).toBe(1);
      const payload = JSON.parse(h.receiver.received.at(-1)!.body);
      const download = await renderDocumentPdf(
        { db: h.ctx.db, pdfRenders: new TenantConcurrency('PDF renders', 1) },
        { tenantId: 'acme', clave: doc.clave },
      );
      expect(payload.folioDetails[1]).toEqual({ fileType: 'PDF', encodedFile: download.toString('base64') });
    } finally {
      // The other cases compare with a render too, which reads the branding: leave none behind.
      await withTenant(h.ctx.db, 'acme', (tx) =>
        tx.query("DELETE FROM tenant_branding WHERE tenant_id = 'acme'"),
      );
    }
  });

  it('when an accepted document is delivered, then the stored event is the body sent, kept without a compression attempt', async () => {
    await configure();
    const doc = await insertTestDocument(h.ctx.db, 'acme', { estado: 'aceptado' });
    await raiseFinalStateEvent(h.ctx.db, 'acme', doc);
    expect(await drain(h.ctx)).toBe(1);
    const sent = h.receiver.received.at(-1)!.body;

    // Base64 of a PDF does not compress; pglz would be tried on every insert (migration 0090).
    const stored = await withTenant(h.ctx.db, 'acme', async (tx) => {
      const r = await tx.query<{ body: string; compression: string | null; storage: string }>(
        `SELECT e.body, pg_column_compression(e.body) AS compression,
                (SELECT attstorage FROM pg_attribute
                 WHERE attrelid = 'webhook_events'::regclass AND attname = 'body') AS storage
         FROM webhook_events e WHERE e.tenant_id = $1 AND e.document_id = $2`,
        ['acme', doc.id],
      );
      return r.rows;
    });
    expect(stored).toEqual([{ body: sent, compression: null, storage: 'e' }]);
    expect(sent.length).toBeGreaterThan(10_000);
  });

  it('when the receiver fails three times, then it is retried on the schedule and delivered once more with the same webhook-id and body', async () => {
    const secret = await configure();
    const doc = await insertTestDocument(h.ctx.db, 'acme', { estado: 'rechazado' });
    const jobId = await raiseFinalStateEvent(h.ctx.db, 'acme', doc);
    h.receiver.script = [500, 503, 502];

    expect(await drain(h.ctx)).toBe(1); // attempt 1, immediately
    clock.advance(4 * SECOND);
    expect(await drain(h.ctx)).toBe(0); // the 5 s retry is not due yet
    clock.advance(1 * SECOND);
    expect(await drain(h.ctx)).toBe(1); // attempt 2 at 5 s
    clock.advance(5 * MINUTE);
    expect(await drain(h.ctx)).toBe(1); // attempt 3 at 5 min
    clock.advance(29 * MINUTE);
    expect(await drain(h.ctx)).toBe(0);
    clock.advance(1 * MINUTE);
    expect(await drain(h.ctx)).toBe(1); // attempt 4 at 30 min: delivered
    clock.advance(10 * HOUR);
    expect(await drain(h.ctx)).toBe(0); // nothing more

    expect(h.receiver.received).toHaveLength(4);
    const ids = new Set(h.receiver.received.map((h) => h.id));
    expect(ids.size).toBe(1);
    expect(new Set(h.receiver.received.map((h) => h.body)).size).toBe(1);
    expect(new Set(h.receiver.received.map((h) => h.timestamp)).size).toBe(4);
    for (const hook of h.receiver.received) expect(h.receiver.verifies(hook, secret)).toBe(true);

    const rows = await deliveriesOf(h.ctx.db, 'acme', doc.id);
    expect(rows.map((r) => [r.attempt, r.status, r.error])).toEqual([
      [1, 500, 'receiver answered 500'],
      [2, 503, 'receiver answered 503'],
      [3, 502, 'receiver answered 502'],
      [4, 204, null],
    ]);
    expect((await getJob(h.ctx.db, { id: jobId }))?.state).toBe('done');

    const consulted = await post(h.ctx, 'acme', '/api/consultar/documento', { clave: doc.clave });
    expect(consulted.status).toBe(200);
    expect(
      consulted.body.data.webhook.entregas.map((e: { intento: number; status: number }) => [
        e.intento,
        e.status,
      ]),
    ).toEqual([
      [1, 500],
      [2, 503],
      [3, 502],
      [4, 204],
    ]);
    expect(
      new Set(consulted.body.data.webhook.entregas.map((e: { eventId: string }) => e.eventId)).size,
    ).toBe(1);
  });

  it('when the receiver keeps failing, then it gives up after the eighth attempt (10 h after the seventh)', async () => {
    await configure();
    const doc = await insertTestDocument(h.ctx.db, 'acme', { estado: 'aceptado' });
    const jobId = await raiseFinalStateEvent(h.ctx.db, 'acme', doc);
    h.receiver.script = Array(8).fill(500);
    const delays = [0, 5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];
    for (const delay of delays) {
      clock.advance(delay);
      expect(await drain(h.ctx)).toBe(1);
    }
    clock.advance(24 * HOUR);
    expect(await drain(h.ctx)).toBe(0);
    expect(h.receiver.received).toHaveLength(8);
    expect(await deliveriesOf(h.ctx.db, 'acme', doc.id)).toHaveLength(8);
    const job = await getJob(h.ctx.db, { id: jobId });
    expect(job?.state).toBe('failed');
    expect(job?.lastError).toMatch(/gave up after 8 attempts/);
  });

  it('when the receiver answers 410, then the endpoint is disabled; later events are recorded, not sent; re-configuring re-enables', async () => {
    await configure();
    const gone = await insertTestDocument(h.ctx.db, 'acme', { estado: 'aceptado' });
    await raiseFinalStateEvent(h.ctx.db, 'acme', gone);
    h.receiver.script = [410];
    await drain(h.ctx);
    clock.advance(HOUR);
    expect(await drain(h.ctx)).toBe(0); // no retry after 410
    expect(h.receiver.received).toHaveLength(1);

    const found = await post(h.ctx, 'acme', '/api/consultar/webhook', {});
    expect(found.body.data).toMatchObject({
      activo: false,
      desactivadoEn: expect.any(String),
      motivoDesactivacion: 'receiver answered 410 Gone',
    });

    const later = await insertTestDocument(h.ctx.db, 'acme', { estado: 'aceptado' });
    await raiseFinalStateEvent(h.ctx.db, 'acme', later);
    await drain(h.ctx);
    expect(h.receiver.received).toHaveLength(1);
    expect(await deliveriesOf(h.ctx.db, 'acme', later.id)).toEqual([
      expect.objectContaining({ attempt: 1, status: null, error: 'webhook endpoint is disabled' }),
    ]);
    expect(await eventStates('acme', later.id)).toEqual([{ state: 'disabled', finished: true }]);

    const secret = await configure();
    expect((await post(h.ctx, 'acme', '/api/consultar/webhook', {})).body.data.activo).toBe(true);
    const replay = await post(h.ctx, 'acme', '/api/reenviar/webhook', { clave: later.clave });
    expect(replay.status).toBe(200);
    await drain(h.ctx);
    expect(h.receiver.received).toHaveLength(2);
    expect(h.receiver.received[1]!.id).toBe(replay.body.data.eventId);
    expect(h.receiver.verifies(h.receiver.received[1]!, secret)).toBe(true);
  });
});

describe('webhooks: timeouts and re-claims', () => {
  it('when the receiver does not answer within the timeout, then the attempt is recorded as timed out and retried', async () => {
    const settings = h.ctx.webhookDeps.webhooks;
    const saved = settings.timeoutMs;
    settings.timeoutMs = 150;
    try {
      const secret = await configure();
      const doc = await insertTestDocument(h.ctx.db, 'acme', { estado: 'aceptado' });
      await raiseFinalStateEvent(h.ctx.db, 'acme', doc);
      h.receiver.script = [0];
      await drain(h.ctx);
      clock.advance(5 * SECOND);
      await drain(h.ctx);
      const rows = await deliveriesOf(h.ctx.db, 'acme', doc.id);
      expect(rows.map((r) => [r.attempt, r.status, r.error])).toEqual([
        [1, null, 'timed out'],
        [2, 204, null],
      ]);
      expect(rows[0]!.latency_ms).toBeGreaterThanOrEqual(140);
      expect(h.receiver.received.map((h) => h.id)).toEqual([rows[0]!.event_id, rows[0]!.event_id]);
      expect(h.receiver.verifies(h.receiver.received[1]!, secret)).toBe(true);
    } finally {
      settings.timeoutMs = saved;
    }
  });

  // A re-claim after a crash; the housekeeping may have cleared the finished event's body meanwhile (ADR 0051).
  it.each([
    ['its event was delivered (a re-claim after a crash)', false],
    ['its delivered event lost its body to the housekeeping', true],
  ])('when a job is run again after %s, then nothing is sent twice', async (_case, cleared) => {
    await configure();
    const doc = await insertTestDocument(h.ctx.db, 'acme', { estado: 'aceptado' });
    const jobId = await raiseFinalStateEvent(h.ctx.db, 'acme', doc);
    await drain(h.ctx);
    expect(h.receiver.received).toHaveLength(1);
    if (cleared) {
      const before = new Date(clock.now().getTime() + SECOND);
      expect(await unsafeClearFinishedEventBodies(h.ctx.db, before, 1000)).toBeGreaterThan(0);
    }
    const job = (await getJob<WebhookJobPayload>(h.ctx.db, { id: jobId }))!;
    const again = await runWebhookDelivery(h.ctx.webhookDeps, job, { now: clock.now });
    expect(again).toEqual({ kind: 'done' });
    expect(h.receiver.received).toHaveLength(1);
    expect(await deliveriesOf(h.ctx.db, 'acme', doc.id)).toHaveLength(1);
  });

  it('when a pending event has lost its body, then its next run fails rather than send an empty body', async () => {
    await configure();
    const doc = await insertTestDocument(h.ctx.db, 'acme', { estado: 'aceptado' });
    const jobId = await raiseFinalStateEvent(h.ctx.db, 'acme', doc);
    h.receiver.script = [500];
    await drain(h.ctx);
    expect(h.receiver.received).toHaveLength(1);
    await h.ctx.db.query('UPDATE webhook_events SET body = NULL WHERE job_id = $1', [jobId]);
    const job = (await getJob<WebhookJobPayload>(h.ctx.db, { id: jobId }))!;
    await expect(runWebhookDelivery(h.ctx.webhookDeps, job, { now: clock.now })).rejects.toThrow(
      /is pending without its body/,
    );
    expect(h.receiver.received).toHaveLength(1);
  });
});

describe('webhooks: secret rotation', () => {
  it('when the secret is rotated, then deliveries carry both signatures for 24 h, and only the new one after', async () => {
    clock.advance(25 * HOUR);
    const oldSecret = await configure();
    clock.advance(3 * HOUR);
    const newSecret = await configure();

    const during = await insertTestDocument(h.ctx.db, 'acme', { estado: 'aceptado' });
    await raiseFinalStateEvent(h.ctx.db, 'acme', during);
    clock.advance(23 * HOUR);
    await drain(h.ctx);
    const first = h.receiver.received[0]!;
    expect(first.signature.split(' ')).toHaveLength(2);
    expect(h.receiver.verifies(first, newSecret)).toBe(true);
    expect(h.receiver.verifies(first, oldSecret)).toBe(true);

    clock.advance(1 * HOUR + SECOND); // 24 h and a second after the rotation
    const after = await insertTestDocument(h.ctx.db, 'acme', { estado: 'aceptado' });
    await raiseFinalStateEvent(h.ctx.db, 'acme', after);
    await drain(h.ctx);
    const second = h.receiver.received[1]!;
    expect(second.signature.split(' ')).toHaveLength(1);
    expect(h.receiver.verifies(second, newSecret)).toBe(true);
    expect(h.receiver.verifies(second, oldSecret)).toBe(false);
    const found = await post(h.ctx, 'acme', '/api/consultar/webhook', {});
    expect(found.body.data.firmaDobleHasta).toBeUndefined();
    expect(found.body.data.secretoRotadoEn).toEqual(expect.any(String));
  });
});

describe('webhooks: replays and missing endpoints', () => {
  it('when a document reaches a final state before any endpoint exists, then that is recorded, and a replay after configuring delivers', async () => {
    const doc = await insertTestDocument(h.ctx.db, 'initech', { estado: 'rechazado' });
    await raiseFinalStateEvent(h.ctx.db, 'initech', doc);
    await drain(h.ctx);
    expect(await deliveriesOf(h.ctx.db, 'initech', doc.id)).toEqual([
      expect.objectContaining({ attempt: 1, url: '', status: null, error: 'no webhook endpoint configured' }),
    ]);
    // Frozen already finished, with its attempt, in one statement.
    expect(await eventStates('initech', doc.id)).toEqual([{ state: 'no_endpoint', finished: true }]);
    expect((await post(h.ctx, 'initech', '/api/consultar/webhook', {})).status).toBe(404);

    const secret = await configure('initech');
    const replay = await post(h.ctx, 'initech', '/api/reenviar/webhook', { clave: doc.clave });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual({
      status: 'success',
      message: expect.stringContaining(doc.clave),
      data: { eventId: expect.stringMatching(/^msg_[0-9a-f]{32}$/), webhook: 'activo' },
    });
    await drain(h.ctx);
    expect(h.receiver.received).toHaveLength(1);
    const hook = h.receiver.received[0]!;
    expect(hook.id).toBe(replay.body.data.eventId);
    expect(h.receiver.verifies(hook, secret)).toBe(true);
    expect(JSON.parse(hook.body)).toMatchObject({ clave: doc.clave, estado: 'rechazado' });
  });

  it('when a delivered document is replayed, then a new event with a new webhook-id and the same payload is sent', async () => {
    const secret = await configure();
    const doc = await insertTestDocument(h.ctx.db, 'acme', { estado: 'aceptado' });
    await raiseFinalStateEvent(h.ctx.db, 'acme', doc);
    await drain(h.ctx);
    const replay = await post(h.ctx, 'acme', '/api/reenviar/webhook', { clave: doc.clave });
    expect(replay.status).toBe(200);
    await drain(h.ctx);
    expect(h.receiver.received).toHaveLength(2);
    const [original, replayed] = h.receiver.received as [
      (typeof h.receiver.received)[0],
      (typeof h.receiver.received)[0],
    ];
    expect(replayed.id).toBe(replay.body.data.eventId);
    expect(replayed.id).not.toBe(original.id);
    expect(replayed.body).toBe(original.body);
    expect(h.receiver.verifies(replayed, secret)).toBe(true);
    const rows = await deliveriesOf(h.ctx.db, 'acme', doc.id);
    expect(rows.map((r) => r.event_id)).toEqual([original.id, replayed.id]);
  });

  it("when an 'error' document without Hacienda's answer is replayed, then folioDetails is empty", async () => {
    await configure();
    const doc = await insertTestDocument(h.ctx.db, 'acme', { estado: 'error' });
    expect((await post(h.ctx, 'acme', '/api/reenviar/webhook', { clave: doc.clave })).status).toBe(200);
    await drain(h.ctx);
    expect(JSON.parse(h.receiver.received[0]!.body)).toEqual({
      folioId: doc.clave,
      folioType: 'INVOICE',
      folioDetails: [],
      clave: doc.clave,
      estado: 'error',
    });
  });

  it('when a document in progress is replayed, then 409 conflict; once final, the replay works', async () => {
    await configure();
    const doc = await insertTestDocument(h.ctx.db, 'acme', { estado: 'enviado' });
    const early = await post(h.ctx, 'acme', '/api/reenviar/webhook', { clave: doc.clave });
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({
      error: 'conflict',
      message: expect.stringMatching(/^clave: .*enviado/),
    });
    await setDocumentState(h.ctx.db, 'acme', doc.id, 'aceptado', mensajeHaciendaXml(doc.clave));
    expect((await post(h.ctx, 'acme', '/api/reenviar/webhook', { clave: doc.clave })).status).toBe(200);
    await drain(h.ctx);
    expect(JSON.parse(h.receiver.received[0]!.body).estado).toBe('aceptado');
  });
});
