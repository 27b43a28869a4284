// POST /api/consultar/documento on a document whose log a tenant has grown without bound (a resend to its own
// SMTP server every two seconds, webhook replays; none of it is ever deleted): the answer reads and shows only
// the latest RECENT_ENTRIES e-mails (each with its attempts) and webhook deliveries, oldest first as before,
// with how many there are in all. The rows are written straight to the database, as that many resends would
// leave them.
import { DocumentQueryResponse, validate } from '@cr/contracts';
import { withTenant } from '../src/db/with-tenant';
import { RECENT_ENTRIES } from '../src/documents/get-document';
import { post } from './support/client';
import { insertTestDocument } from './support/documents';
import { type TestApp, startTestApp } from './support/test-app';

// Without the bound, one such answer took tens of seconds (and more than 6 MB) to build.
jest.setTimeout(120_000);

const MAILS = 20_000;
const DELIVERIES = 500;

let ctx: TestApp;

beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(async () => {
  await ctx.close();
});

/** `count` e-mails of the document, one second apart (env_<prefix>_00001 the oldest), each with `attempts` failed attempts. */
async function insertMails(
  documentId: string,
  prefix: string,
  count: number,
  attempts: number,
): Promise<void> {
  await withTenant(ctx.db, 'acme', async (tx) => {
    await tx.query(
      `INSERT INTO mail_messages (id, tenant_id, document_id, reason, recipients, state, created_at)
       SELECT $2 || lpad(g::text, 5, '0'), 'acme', $1, 'reenvio', '["cuentas@pixdea.cr"]'::jsonb, 'fallido',
              now() - ($3 - g) * interval '1 second'
       FROM generate_series(1, $3::int) g`,
      [documentId, `env_${prefix}_`, count],
    );
    await tx.query(
      `INSERT INTO mail_attempts (id, tenant_id, message_id, attempt, ok, code, reply, created_at)
       SELECT gen_random_uuid(), 'acme', $1 || lpad(g::text, 5, '0'), a, false, 550, '550 mailbox unavailable ' || g,
              now() - ($2 - g) * interval '1 second' + a * interval '1 millisecond'
       FROM generate_series(1, $2::int) g, generate_series(1, $3::int) a`,
      [`env_${prefix}_`, count, attempts],
    );
  });
}

/** One webhook event of the document and `count` delivery attempts of it, one second apart. */
async function insertDeliveries(documentId: string, clave: string, count: number): Promise<void> {
  await withTenant(ctx.db, 'acme', async (tx) => {
    await tx.query(
      `INSERT INTO webhook_events (id, tenant_id, document_id, clave, estado, job_id, body, state)
       VALUES ($1, 'acme', $2, $3, 'aceptado', 800000000, '{}', 'failed')`,
      [`msg_bounds_${documentId}`, documentId, clave],
    );
    await tx.query(
      `INSERT INTO webhook_deliveries (id, tenant_id, document_id, event_id, attempt, url, status, latency_ms, error,
                                       created_at)
       SELECT gen_random_uuid(), 'acme', $1, $2, g, 'https://erp.acme.cr/hooks', 503, 10, 'receiver answered 503',
              now() - ($3 - g) * interval '1 second'
       FROM generate_series(1, $3::int) g`,
      [documentId, `msg_bounds_${documentId}`, count],
    );
  });
}

async function consultar(clave: string) {
  const res = await post(ctx, 'acme', '/api/consultar/documento', { clave });
  expect(res.status).toBe(200);
  return res.body as DocumentQueryResponse;
}

const ids = (prefix: string, from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `env_${prefix}_${String(from + i).padStart(5, '0')}`);

it('when a document has 20,000 e-mails and 500 webhook deliveries, then consultar shows the latest RECENT_ENTRIES of each, oldest first, with their totals', async () => {
  const doc = await insertTestDocument(ctx.db, 'acme', { estado: 'aceptado' });
  await insertMails(doc.id, 'big', MAILS, 1);
  await insertDeliveries(doc.id, doc.clave, DELIVERIES);

  const body = await consultar(doc.clave);

  const { data } = body;
  expect(data.correo.envios).toHaveLength(RECENT_ENTRIES);
  expect(data.webhook.entregas).toHaveLength(RECENT_ENTRIES);
  expect(data.correo.total).toBe(MAILS);
  expect(data.correo.envios.map((e) => e.envioId)).toEqual(ids('big', MAILS - RECENT_ENTRIES + 1, MAILS));
  for (const envio of data.correo.envios) {
    expect(envio.intentos).toEqual([
      expect.objectContaining({
        intento: 1,
        ok: false,
        codigo: 550,
        respuesta: `550 mailbox unavailable ${Number(envio.envioId.slice(-5))}`,
      }),
    ]);
  }
  expect(data.webhook.total).toBe(DELIVERIES);
  expect(data.webhook.entregas.map((e) => e.intento)).toEqual(
    Array.from({ length: RECENT_ENTRIES }, (_, i) => DELIVERIES - RECENT_ENTRIES + 1 + i),
  );
  expect(validate(DocumentQueryResponse, body)).toMatchObject({ ok: true });
});

it('when a document has fewer e-mails than the bound, then it shows all of them, each with its own attempts in order, and totals equal to the lists', async () => {
  const doc = await insertTestDocument(ctx.db, 'acme', { estado: 'aceptado' });
  await insertMails(doc.id, 'few', 3, 2);

  const { data } = await consultar(doc.clave);

  expect(data.correo.total).toBe(3);
  expect(data.correo.envios.map((e) => e.envioId)).toEqual(ids('few', 1, 3));
  expect(data.correo.envios.map((e) => e.intentos.map((a) => a.respuesta))).toEqual(
    [1, 2, 3].map((g) => [`550 mailbox unavailable ${g}`, `550 mailbox unavailable ${g}`]),
  );
  expect(data.correo.envios.map((e) => e.intentos.map((a) => a.intento))).toEqual([
    [1, 2],
    [1, 2],
    [1, 2],
  ]);
  expect(data.webhook).toEqual({ entregas: [], total: 0 });
});
