// A document is never stored signed with an issuer as it no longer is (race audit, 2026-12-07). Between the
// issuer's read and the insert lie the .p12's opening, Hacienda's confirmation of an exoneration and the
// signing; an issuer updated meanwhile (a revoked certificate replaced, another branch) makes the submission
// sign the document again with the issuer as it is now. Hacienda is the real sandbox app; its answer to the
// exoneration check is held at the client's boundary to widen that window.
import { X509Certificate } from 'node:crypto';
import { HaciendaPublicApi } from '@cr/hacienda-client';
import { latch } from '@cr/testkit';
import type { PublicApiLookups } from '../src/lookups/lookup-deps';
import { post } from './support/client';
import { exoneratedInvoice } from './support/document-mother';
import { type HaciendaDouble, startHaciendaDouble } from './support/hacienda-sandbox';
import { issuerBody } from './support/issuer-mother';
import { type TestApp, startTestApp } from './support/test-app';

jest.setTimeout(90_000);

const RECEPTOR = '3101999888';
const JUGO = '2132100000100';
const AUTORIZACION = 'AL-00060001-24';
const FUTURE = new Date(Date.now() + 365 * 86_400_000).toISOString().slice(0, 10);

let hacienda: HaciendaDouble;
let app: TestApp;
let client: HaciendaPublicApi;
/** Set by a test: called when the exoneration check reaches Hacienda, answered once it resolves. */
let beforeExonerationAnswer: (() => Promise<void>) | undefined;

const publicApi: PublicApiLookups = {
  taxpayer: (...args) => client.taxpayer(...args),
  async exoneration(...args) {
    await beforeExonerationAnswer?.();
    return client.exoneration(...args);
  },
  cabys: (...args) => client.cabys(...args),
  cabysByCodigo: (...args) => client.cabysByCodigo(...args),
};

beforeAll(async () => {
  hacienda = await startHaciendaDouble();
  client = new HaciendaPublicApi({ baseUrl: hacienda.url, timeoutMs: 5_000, retryDelaysMs: [5] });
  await hacienda.addExoneration({
    numeroDocumento: AUTORIZACION,
    identificacion: RECEPTOR,
    porcentajeExoneracion: 13,
    fechaEmision: '2024-01-15',
    fechaVencimiento: FUTURE,
    cabys: [JUGO],
  });
  // A process that holds no issuer yet: its first submission reads the issuer (then signs, then stores).
  app = await startTestApp({ publicApi });
  expect((await post(app, 'acme', '/api/enviar/emisor', issuerBody())).status).toBe(200);
}, 90_000);
afterAll(async () => {
  await app?.close();
  await hacienda?.stop();
});

/** An invoice to RECEPTOR whose first line is exonerated by AUTORIZACION, which Hacienda must confirm. */
const invoiceToConfirm = (numero: number) =>
  exoneratedInvoice(numero, {
    receptor: RECEPTOR,
    codigo: JUGO,
    autorizacion: AUTORIZACION,
    fechaEmision: '2024-01-15T00:00:00-06:00',
  });

function signerSerial(xml: string): string {
  const b64 = /<ds:X509Certificate>([^<]+)<\/ds:X509Certificate>/.exec(xml)![1]!;
  return BigInt(`0x${new X509Certificate(Buffer.from(b64, 'base64')).serialNumber}`).toString();
}

it('when the issuer is updated while a document is being signed, then the document is stored signed as the issuer is now', async () => {
  const reached = latch<void>();
  const answer = latch<void>();
  let held = 0;
  beforeExonerationAnswer = async () => {
    // Only the first check waits: the document signed again after the update goes straight through.
    if (held++ > 0) return;
    reached.release();
    await answer.promise;
  };
  const submitted = post(app, 'acme', '/api/enviar/items', invoiceToConfirm(9001)).then((r) => r);
  await reached.promise;
  // A new certificate and another branch, committed while the document waits for Hacienda's confirmation.
  const updated = await post(app, 'acme', '/api/actualizar/emisor', issuerBody({ sucursal: 2 }));
  expect(updated.status).toBe(200);
  answer.release();
  const res = await submitted;
  beforeExonerationAnswer = undefined;

  expect(res.status).toBe(200);
  const issuer = await app.db.query<{ sucursal: number; certificate_serial: string }>(
    "SELECT sucursal, certificate_serial FROM issuers WHERE tenant_id = 'acme'",
  );
  const documents = await app.db.query<{ clave: string; sucursal: number; xml: string }>(
    "SELECT clave, sucursal, xml FROM documents WHERE tenant_id = 'acme'",
  );
  expect(documents.rows).toHaveLength(1);
  const [document] = documents.rows;
  expect(document!.clave).toBe(res.body.clave);
  expect(document!.sucursal).toBe(2);
  expect(document!.sucursal).toBe(issuer.rows[0]!.sucursal);
  expect(signerSerial(document!.xml)).toBe(issuer.rows[0]!.certificate_serial);
  // Hacienda was asked again for the document signed with the issuer as it is now.
  expect(held).toBe(2);
});

it('when the issuer is updated during each of three signings in a row, then 409 conflict with Retry-After and nothing stored', async () => {
  expect((await post(app, 'globex', '/api/enviar/emisor', issuerBody())).status).toBe(200);
  let sucursal = 1;
  beforeExonerationAnswer = async () => {
    sucursal += 1;
    const updated = await post(app, 'globex', '/api/actualizar/emisor', issuerBody({ sucursal }));
    expect(updated.status).toBe(200);
  };
  const res = await post(app, 'globex', '/api/enviar/items', invoiceToConfirm(9002));
  beforeExonerationAnswer = undefined;

  expect(res.status).toBe(409);
  expect(res.body).toMatchObject({
    error: 'conflict',
    message: expect.stringMatching(/^emisor: the issuer was updated while this document was being signed/),
  });
  expect(res.headers['retry-after']).toBe('1');
  expect(sucursal).toBe(4);
  const stored = await app.db.query("SELECT clave FROM documents WHERE tenant_id = 'globex'");
  expect(stored.rows).toEqual([]);
  // Sent again once the issuer is left alone, it goes through, numbered with the branch it now has.
  const again = await post(app, 'globex', '/api/enviar/items', invoiceToConfirm(9002));
  expect(again.status).toBe(200);
  expect(again.body.clave.slice(21, 24)).toBe('004');
});
