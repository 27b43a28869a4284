// A stored certificate outside its validity signs nothing: the app's clock is moved past an issuer's notAfter
// (or kept before its notBefore) and every path that signs for the issuer answers 422 naming it, stores
// nothing and leaves the number free, so the same document goes through once a renewed .p12 is uploaded.
import { formatCostaRicaDateTime } from '@cr/hacienda-xml';
import { get, post } from './support/client';
import { KINDS, documentBody } from './support/document-mother';
import { issuerBody } from './support/issuer-mother';
import { RECEIVER_ID, b64, supplierInvoice } from './support/supplier-documents';
import { type TestApp, startTestApp } from './support/test-app';

jest.setTimeout(120_000);

const DAY = 86_400_000;
const RENEW = 'upload a renewed .p12 with POST /api/actualizar/emisor';

/** The app's clock: real time moved by `ahead` ms. */
let ahead = 0;
let ctx: TestApp;
beforeAll(async () => {
  ctx = await startTestApp({ checkExonerations: false, now: () => new Date(Date.now() + ahead) });
});
afterAll(() => ctx.close());
beforeEach(() => {
  ahead = 0;
});

/** A certificate's date as its file holds it: whole seconds. */
const inWholeSeconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000);

/** Now on the app's clock, a few seconds back, in Costa Rica time: the fechaEmision a client would send. */
const appNow = () => formatCostaRicaDateTime(new Date(Date.now() + ahead - 5_000));

const count = async (sql: string, tenant: string) =>
  (await ctx.db.query<{ n: number }>(sql, [tenant])).rows[0]!.n;
const documentsOf = (tenant: string) =>
  count('SELECT count(*)::int AS n FROM documents WHERE tenant_id = $1', tenant);
const submitJobsOf = (tenant: string) =>
  count("SELECT count(*)::int AS n FROM jobs WHERE queue = 'hacienda.submit' AND tenant = $1", tenant);

/** The consecutivo inside a clave (positions 22 to 41). */
const consecutivoOf = (clave: string) => clave.slice(21, 41);

describe('POST /api/enviar/items with a certificate out of its validity', () => {
  it('when the certificate expired after registration, then 422 naming emisor and its expiry, nothing stored, and after the renewal the same number is signed', async () => {
    const notAfter = inWholeSeconds(Date.now() + 2 * DAY);
    const registered = await post(ctx, 'acme', '/api/enviar/emisor', issuerBody({}, { notAfter }));
    expect(registered.status).toBe(200);
    // Signed while valid: this process now holds the issuer's opened material.
    const first = documentBody('invoice', 1);
    const signed = await post(ctx, 'acme', '/api/enviar/items', first);
    expect(signed.status).toBe(200);
    const before = { documents: await documentsOf('acme'), jobs: await submitJobsOf('acme') };

    ahead = 3 * DAY;
    const body = documentBody('invoice', 2, { fechaEmision: appNow() });
    const refused = await post(ctx, 'acme', '/api/enviar/items', body);
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({
      error: 'unprocessable',
      message: `emisor: the certificate of issuer 3101123456 expired at ${formatCostaRicaDateTime(notAfter)}; ${RENEW}`,
    });
    // Every kind is refused the same way, before its own checks.
    for (const kind of KINDS) {
      const res = await post(
        ctx,
        'acme',
        '/api/enviar/items',
        documentBody(kind, 3, { fechaEmision: appNow() }),
      );
      expect([kind, res.status, res.body.error]).toEqual([kind, 422, 'unprocessable']);
    }
    expect(await documentsOf('acme')).toBe(before.documents);
    expect(await submitJobsOf('acme')).toBe(before.jobs);
    const listed = await get(ctx, 'acme', '/api/documentos').expect(200);
    expect(listed.body.data.map((d: { numeroReferencia: number }) => d.numeroReferencia)).toEqual([1]);
    // A document signed while the certificate was valid still answers its clave when repeated.
    const repeat = await post(ctx, 'acme', '/api/enviar/items', first);
    expect(repeat.status).toBe(200);
    expect(repeat.body.clave).toBe(signed.body.clave);

    const renewed = await post(ctx, 'acme', '/api/actualizar/emisor', issuerBody());
    expect(renewed.status).toBe(200);
    const accepted = await post(ctx, 'acme', '/api/enviar/items', body);
    expect(accepted.status).toBe(200);
    expect(consecutivoOf(accepted.body.clave)).toBe('00100001010000000002');
    expect(await documentsOf('acme')).toBe(before.documents + 1);
  });

  it('when the certificate is not valid yet (the clock went back), then 422 naming emisor and its start, nothing stored, and from then on the same number is signed', async () => {
    const notBefore = inWholeSeconds(Date.now() + 2 * DAY);
    // Registered on a clock already past notBefore, so registration accepts it.
    ahead = 3 * DAY;
    const registered = await post(ctx, 'beta', '/api/enviar/emisor', issuerBody({}, { notBefore }));
    expect(registered.status).toBe(200);

    ahead = 0;
    const refused = await post(ctx, 'beta', '/api/enviar/items', documentBody('invoice', 1));
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({
      error: 'unprocessable',
      message: `emisor: the certificate of issuer 3101123456 is not valid until ${formatCostaRicaDateTime(notBefore)}; send the document from then on, or upload a .p12 valid now with POST /api/actualizar/emisor`,
    });
    expect(await documentsOf('beta')).toBe(0);
    expect(await submitJobsOf('beta')).toBe(0);

    ahead = 3 * DAY;
    const accepted = await post(
      ctx,
      'beta',
      '/api/enviar/items',
      documentBody('invoice', 1, { fechaEmision: appNow() }),
    );
    expect(accepted.status).toBe(200);
    expect(consecutivoOf(accepted.body.clave)).toBe('00100001010000000001');
  });
});

describe('POST /api/recepcion/documentos/{clave}/respuesta with a certificate out of its validity', () => {
  it("when the receptor's certificate expired, then 422 naming receptor, the document stays unanswered, and after the renewal the same number answers it", async () => {
    const receiver = {
      identificacion: Number(RECEIVER_ID),
      usuarioHacienda: 'cpj-3-101-779527@stag.comprobanteselectronicos.go.cr',
    };
    const notAfter = inWholeSeconds(Date.now() + 2 * DAY);
    expect((await post(ctx, 'pixdea', '/api/enviar/emisor', issuerBody(receiver, { notAfter }))).status).toBe(
      200,
    );
    const fe = supplierInvoice(1);
    await post(ctx, 'pixdea', '/api/recepcion/documentos', {
      receptor: RECEIVER_ID,
      xml: b64(fe.xml),
    }).expect(201);
    const path = `/api/recepcion/documentos/${fe.clave}/respuesta`;
    const answer = { mensaje: 1, condicionImpuesto: '01', numeroReferencia: 1 };

    ahead = 3 * DAY;
    const refused = await post(ctx, 'pixdea', path, answer);
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({
      error: 'unprocessable',
      message: `receptor: the certificate of issuer ${RECEIVER_ID} expired at ${formatCostaRicaDateTime(notAfter)}; ${RENEW}`,
    });
    const detail = await get(ctx, 'pixdea', `/api/recepcion/documentos/${fe.clave}`);
    expect(detail.body.data).toMatchObject({ estado: 'pendiente', respuesta: null });
    expect(await documentsOf('pixdea')).toBe(0);
    expect(await submitJobsOf('pixdea')).toBe(0);

    expect((await post(ctx, 'pixdea', '/api/actualizar/emisor', issuerBody(receiver))).status).toBe(200);
    const accepted = await post(ctx, 'pixdea', path, answer);
    expect(accepted.status).toBe(202);
    expect(accepted.body.data).toEqual({
      clave: fe.clave,
      mensaje: 1,
      consecutivo: '00100001050000000001',
      estado: 'pendiente',
    });
  });
});
