// POST /api/consultar/documento and POST /api/reenviar/webhook read the document's whole row, its signed XML
// and Hacienda's answer (about 2 MB for a 1,000-line invoice) and its sealed callback token, to show or use
// none of them. Measured on PostgreSQL with 1,000-line documents, 64 consults at once: +310–370 MB of RSS
// (peaks of 665–691 MB, past the tenant-api pod's 512 MiB). The proof that they no longer read them is the
// database's own: with the tenant role's SELECT on those columns withdrawn (a read of them is "permission
// denied"), both answer; with it back, each download reads the one XML it sends.
import { getBytes, post } from './support/client';
import { insertTestDocument, signedInvoiceXml } from './support/documents';
import { type TestApp, startTestApp } from './support/test-app';
import { withColumnsWithheld } from './support/withheld-columns';

jest.setTimeout(120_000);

const WITHHELD = ['xml', 'respuesta_xml', 'callback_token_sealed'];

let ctx: TestApp;

beforeAll(async () => {
  ctx = await startTestApp({ checkExonerations: false });
});
afterAll(() => ctx?.close());

it('when the XMLs and the callback token cannot be read, then consultar/documento and a webhook replay still answer; each download reads its one XML', async () => {
  const doc = await insertTestDocument(ctx.db, 'acme', { estado: 'aceptado' });
  const before = await post(ctx, 'acme', '/api/consultar/documento', { clave: doc.clave });
  expect(before.status).toBe(200);
  await withColumnsWithheld(ctx.db, 'documents', WITHHELD, async () => {
    const consulted = await post(ctx, 'acme', '/api/consultar/documento', { clave: doc.clave });
    expect(consulted.status).toBe(200);
    expect(consulted.body).toEqual(before.body);
    const replay = await post(ctx, 'acme', '/api/reenviar/webhook', { clave: doc.clave });
    expect(replay.status).toBe(200);
    expect(replay.body.message).toContain(`for document ${doc.clave} (aceptado)`);
  });
  const xml = await getBytes(ctx, 'acme', `/api/descargar/${doc.clave}/xml`);
  expect(xml.status).toBe(200);
  expect(xml.body.toString('utf8')).toBe(signedInvoiceXml());
  const answer = await getBytes(ctx, 'acme', `/api/descargar/${doc.clave}/respuesta`);
  expect(answer.status).toBe(200);
  expect(answer.body.toString('utf8')).toBe(doc.respuestaXml);
});

it('when the answer is not there yet, then its download is the same 404 naming the estado', async () => {
  const doc = await insertTestDocument(ctx.db, 'acme', { estado: 'enviado' });
  const answer = await getBytes(ctx, 'acme', `/api/descargar/${doc.clave}/respuesta`);
  expect(answer.status).toBe(404);
  expect(JSON.parse(answer.body.toString('utf8'))).toMatchObject({
    error: 'not_found',
    message: `clave: Hacienda's answer to ${doc.clave} is not available yet (estado enviado)`,
  });
});
