// The lookups that reach Hacienda's public API, against the real hacienda-sandbox app: exoneración,
// contribuyente, the CABYS fallback, the issuer registration check, the pipeline's exoneration check, and the
// per-tenant lookup limit.
import { createCabysSearch } from '@cr/cabys';
import type { DocumentRequest } from '@cr/contracts';
import { costaRicaDate } from '@cr/hacienda-xml';
import { checkExonerations } from '../src/lookups/check-exonerations';
import { haciendaCabysFallback } from '../src/lookups/cabys-fallback';
import { createLookupLimiter } from '../src/lookups/tenant-lookup-limit';
import { post } from './support/client';
import { type HaciendaDouble, startHaciendaDouble } from './support/hacienda-sandbox';
import { crNow, documentBody, exoneratedInvoice } from './support/document-mother';
import { issuerBody } from './support/issuer-mother';
import { type TestApp, startTestApp, testPublicApi } from './support/test-app';

jest.setTimeout(60_000);

let hacienda: HaciendaDouble;
let ctx: TestApp;
const DAY = 86_400_000;
const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const FUTURE = isoDate(Date.now() + 365 * DAY);
const PAST = isoDate(Date.now() - 30 * DAY);
const RECEPTOR = '3101999888';
const JUGO = '2132100000100';

beforeAll(async () => {
  hacienda = await startHaciendaDouble();
  const publicApi = testPublicApi(hacienda.url);
  ctx = await startTestApp({
    publicApi,
    checkIssuersWithHacienda: true,
    cabys: createCabysSearch({ fallback: haciendaCabysFallback(publicApi) }),
    lookupLimiter: createLookupLimiter({ limit: 1_000, windowSeconds: 60 }),
  });
  await hacienda.addExoneration({
    numeroDocumento: 'AL-00020402-24',
    identificacion: RECEPTOR,
    porcentajeExoneracion: 13,
    fechaEmision: '2024-01-15',
    fechaVencimiento: FUTURE,
    cabys: [JUGO],
  });
  await hacienda.addExoneration({
    numeroDocumento: 'AL-00011111-22',
    identificacion: RECEPTOR,
    porcentajeExoneracion: 4,
    fechaEmision: '2022-03-01',
    fechaVencimiento: PAST,
  });
  await hacienda.addTaxpayer({
    identificacion: '3101123456',
    tipoIdentificacion: '02',
    nombre: 'EMPRESA DE PRUEBA SOCIEDAD ANONIMA',
    actividades: [
      { codigo: '6201.0', descripcion: 'ACTIVIDADES DE PROGRAMACION INFORMATICA', estado: 'A', tipo: 'P' },
      { codigo: '4651.0', descripcion: 'VENTA AL POR MAYOR DE COMPUTADORAS', estado: 'I', tipo: 'S' },
    ],
  });
}, 90_000);
afterAll(async () => {
  await ctx?.close();
  await hacienda?.stop();
});

describe('exoneración against Hacienda', () => {
  it('when the authorization is in force, then vigente with the spec fields and the extras', async () => {
    const res = await post(ctx, 'acme', '/api/hacienda/exoneracion', { exoneracion: 'al-00020402-24' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'success',
      data: {
        numeroDocumento: 'AL-00020402-24',
        estado: 'vigente',
        porcentajeExoneracion: 13,
        fechaVencimiento: `${FUTURE}T00:00:00`,
        fechaEmision: '2024-01-15T00:00:00',
        identificacion: RECEPTOR,
        tipoDocumento: { codigo: '04', descripcion: expect.any(String) },
        nombreInstitucion: expect.any(String),
        cabys: [JUGO],
      },
    });
  });

  it('when the authorization has expired, then vencida', async () => {
    const res = await post(ctx, 'acme', '/api/hacienda/exoneracion', { exoneracion: 'AL-00011111-22' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ estado: 'vencida', fechaVencimiento: `${PAST}T00:00:00` });
    expect(res.body.data.cabys).toBeUndefined();
  });

  it('when Hacienda does not know the number, then 404 not_found naming it', async () => {
    const res = await post(ctx, 'acme', '/api/hacienda/exoneracion', { exoneracion: 'AL-99999999-99' });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({
      error: 'not_found',
      message: expect.stringContaining('AL-99999999-99'),
    });
  });

  it.each([
    [{ exoneracion: 'AL-123' }, /AL-00020402-24/],
    [{ exoneracion: '' }, /exoneracion/],
    [{ exoneracion: 20402 }, /exoneracion: must be of type string/],
    [{}, /exoneracion: is required/],
    [{ exoneracion: 'AL-00020402-24', extra: 1 }, /extra: is not an allowed field/],
  ])('when the body is %j, then 400 bad_request naming exoneracion', async (body, message) => {
    const res = await post(ctx, 'acme', '/api/hacienda/exoneracion', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'bad_request', message: expect.stringMatching(message) });
  });

  it('when Hacienda fails on every retry, then 502 upstream_error; once it is back, the lookup works', async () => {
    await hacienda.addExoneration({
      numeroDocumento: 'AL-00033333-25',
      identificacion: RECEPTOR,
      porcentajeExoneracion: 13,
      fechaVencimiento: FUTURE,
    });
    await hacienda.failPublicApi(4); // the first call and its three retries
    const down = await post(ctx, 'acme', '/api/hacienda/exoneracion', { exoneracion: 'AL-00033333-25' });
    expect(down.status).toBe(502);
    expect(down.body).toMatchObject({
      error: 'upstream_error',
      message: expect.stringMatching(/Hacienda public API unavailable on \/fe\/ex \(answered 503\)/),
    });
    const back = await post(ctx, 'acme', '/api/hacienda/exoneracion', { exoneracion: 'AL-00033333-25' });
    expect(back.status).toBe(200);
    expect(back.body.data.estado).toBe('vigente');
  });

  it('when Hacienda fails once, then the retry hides it', async () => {
    await hacienda.addExoneration({
      numeroDocumento: 'AL-00044444-25',
      identificacion: RECEPTOR,
      porcentajeExoneracion: 13,
      fechaVencimiento: FUTURE,
    });
    await hacienda.failPublicApi(1);
    const res = await post(ctx, 'acme', '/api/hacienda/exoneracion', { exoneracion: 'AL-00044444-25' });
    expect(res.status).toBe(200);
  });
});

describe('contribuyente against Hacienda', () => {
  it('when the taxpayer is registered, then its name, type, regime, status and activities', async () => {
    const res = await post(ctx, 'acme', '/api/hacienda/contribuyente', { identificacion: '3101123456' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'success',
      data: {
        nombre: 'EMPRESA DE PRUEBA SOCIEDAD ANONIMA',
        tipoIdentificacion: '02',
        regimen: { codigo: expect.any(String), descripcion: expect.any(String) },
        situacion: expect.objectContaining({ moroso: 'NO', omiso: 'NO' }),
        actividades: [
          expect.objectContaining({ codigo: '6201.0', estado: 'A' }),
          expect.objectContaining({ codigo: '4651.0', estado: 'I' }),
        ],
      },
    });
  });

  it('when the id is given as a number, then the same taxpayer', async () => {
    const res = await post(ctx, 'acme', '/api/hacienda/contribuyente', { identificacion: 3101123456 });
    expect(res.status).toBe(200);
    expect(res.body.data.nombre).toBe('EMPRESA DE PRUEBA SOCIEDAD ANONIMA');
  });

  it('when the taxpayer is not registered, then 404 not_found', async () => {
    const res = await post(ctx, 'acme', '/api/hacienda/contribuyente', { identificacion: '3101000000' });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: 'not_found', message: expect.stringContaining('3101000000') });
  });

  it.each([
    [{ identificacion: '3-101-123456' }, /9 to 12 digits without hyphens/],
    [{ identificacion: '12345' }, /9 to 12 digits/],
    [{ identificacion: true }, /a string or a number/],
    [{}, /identificacion: is required/],
    [[], /body|object/],
  ])('when the body is %j, then 400 bad_request naming identificacion', async (body, message) => {
    const res = await post(ctx, 'acme', '/api/hacienda/contribuyente', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'bad_request', message: expect.stringMatching(message) });
  });
});

describe('CABYS without a local catalogue: the fallback to Hacienda', () => {
  it('when a product is searched, then Hacienda answers through the route with {codigo, descripcion, impuesto}', async () => {
    const res = await post(ctx, 'acme', '/api/hacienda/cabys', { name: 'jugo de tomate', limite: 5 });
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
    expect(res.body.data.length).toBeLessThanOrEqual(5);
    expect(res.body.data.map((d: { codigo: string }) => d.codigo)).toContain(JUGO);
    for (const item of res.body.data) {
      expect(item).toEqual({
        codigo: expect.stringMatching(/^\d{13}$/),
        descripcion: expect.any(String),
        impuesto: expect.any(Number),
      });
    }
  });

  it('when a 13-digit code is searched, then the code lookup answers that item', async () => {
    const res = await post(ctx, 'acme', '/api/hacienda/cabys', { name: JUGO });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      { codigo: JUGO, descripcion: expect.stringMatching(/tomate/i), impuesto: 13 },
    ]);
  });

  it('when Hacienda is down, then 502 upstream_error, not an empty list', async () => {
    await hacienda.failPublicApi(4);
    const res = await post(ctx, 'acme', '/api/hacienda/cabys', { name: 'cafe tostado sin cache' });
    expect(res.status).toBe(502);
    expect(res.body.error).toBe('upstream_error');
  });
});

describe('issuer registration checked against Hacienda', () => {
  it('when the activity is active and the name matches, then no warnings', async () => {
    const res = await post(ctx, 'acme', '/api/enviar/emisor', issuerBody());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'success', message: 'issuer 3101123456 registered' });
  });

  it('when the activity is inactive and the name differs, then registered with warnings naming both', async () => {
    const body = issuerBody({ codigoActividad: 4651.0, nombre: 'OTRO NOMBRE SA' });
    const res = await post(ctx, 'other', '/api/enviar/emisor', body);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('issuer 3101123456 registered');
    expect(res.body.warnings).toEqual([
      {
        path: 'codigoActividad',
        reason: expect.stringMatching(/4651\.0 is not an active activity .*6201\.0/),
      },
      { path: 'nombre', reason: expect.stringContaining('EMPRESA DE PRUEBA SOCIEDAD ANONIMA') },
    ]);
    const updated = await post(ctx, 'other', '/api/actualizar/emisor', {
      ...body,
      codigoActividad: 6201.0,
      nombre: undefined,
    });
    expect(updated.status).toBe(200);
    expect(updated.body.warnings).toBeUndefined();
  });

  it('when the taxpayer is not registered with Hacienda, then a warning on identificacion', async () => {
    const res = await post(
      ctx,
      'third',
      '/api/enviar/emisor',
      issuerBody({
        identificacion: 3101654321,
        usuarioHacienda: 'cpj-3-101-654321@stag.comprobanteselectronicos.go.cr',
      }),
    );
    expect(res.status).toBe(200);
    expect(res.body.warnings).toEqual([
      { path: 'identificacion', reason: expect.stringContaining('not registered') },
    ]);
  });

  it('when Hacienda is unreachable, then the issuer is still registered, with a warning', async () => {
    // an id the client has not cached, so the lookup really goes out and meets the faults
    const body = issuerBody({
      identificacion: 3101777777,
      usuarioHacienda: 'cpj-3-101-777777@stag.comprobanteselectronicos.go.cr',
    });
    await hacienda.failPublicApi(4);
    const res = await post(ctx, 'fourth', '/api/enviar/emisor', body);
    expect(res.status).toBe(200);
    expect(res.body.warnings).toEqual([
      { path: '(hacienda)', reason: expect.stringContaining('could not be reached') },
    ]);
    const found = await post(ctx, 'fourth', '/api/consultar/emisor', { identificacion: 3101777777 });
    expect(found.status).toBe(200);
  });
});

describe('the pipeline check of exonerations against Hacienda', () => {
  const line = (codigo: string, porcentaje: number, numero = 'AL-00020402-24') => ({
    numeroLinea: 1,
    codigo,
    detalle: 'Jugo de tomate',
    cantidad: 1,
    unidadMedida: 'Unid',
    precioUnitario: 1000,
    subTotal: 1000,
    montoTotal: 1000,
    impuestoNeto: 0,
    montoTotalLinea: 1000,
    impuesto: [
      {
        codigo: '01',
        codigoTarifa: '08',
        tarifa: '13',
        monto: 130,
        exoneracion: {
          tipoDocumento: '04',
          numeroDocumento: numero,
          nombreInstitucion: '01',
          fechaEmision: '2024-01-15T00:00:00-06:00',
          porcentajeExoneracion: porcentaje,
        },
      },
    ],
  });
  const documentWith = (lines: unknown[]) =>
    ({
      emisor: '3101123456',
      numeroReferencia: 1,
      codigoActividad: '6201.0',
      tipoDoc: '1',
      folioType: 'INVOICE',
      fechaEmision: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      receptor: { nombre: 'Receptor SA', identificacion: { tipo: '02', numero: RECEPTOR } },
      detalleServicio: lines,
      resumenFactura: { codigoTipoMoneda: { codigoMoneda: 'CRC' }, mediosPago: [{ tipoMedioPago: '01' }] },
    }) as unknown as DocumentRequest;

  it('when the line is covered by a vigente authorization of the receptor, then no issues', async () => {
    const issues = await checkExonerations(
      { document: documentWith([line(JUGO, 13)]), now: new Date() },
      ctx.deps.hacienda.publicApi,
    );
    expect(issues).toEqual([]);
  });

  it("when the line's CABYS is outside the authorization, then the line's codigo is refused", async () => {
    const issues = await checkExonerations(
      {
        document: documentWith([line(JUGO, 13), { ...line('2399101000100', 13), numeroLinea: 2 }]),
        now: new Date(),
      },
      ctx.deps.hacienda.publicApi,
    );
    expect(issues).toEqual([
      {
        path: 'detalleServicio[1].codigo',
        reason: expect.stringContaining('2399101000100 is not among the codes'),
      },
    ]);
  });

  it('when the authorization has expired or does not exist, then numeroDocumento is refused', async () => {
    const issues = await checkExonerations(
      {
        document: documentWith([
          line(JUGO, 4, 'AL-00011111-22'),
          { ...line(JUGO, 13, 'AL-99999999-98'), numeroLinea: 2 },
        ]),
        now: new Date(),
      },
      ctx.deps.hacienda.publicApi,
    );
    expect(issues).toEqual(
      expect.arrayContaining([
        {
          path: 'detalleServicio[0].impuesto[0].exoneracion.numeroDocumento',
          reason: expect.stringContaining('expired'),
        },
        {
          path: 'detalleServicio[0].impuesto[0].exoneracion.fechaEmision',
          reason: expect.stringContaining('2022-03-01'),
        },
        {
          path: 'detalleServicio[1].impuesto[0].exoneracion.numeroDocumento',
          reason: expect.stringContaining('does not exist'),
        },
      ]),
    );
  });
});

/** An invoice to RECEPTOR whose first line is exonerated by AL-00020402-24 (type 04), with that line's CABYS. */
const invoiceWithCabys = (numero: number, codigo: string) =>
  exoneratedInvoice(numero, { receptor: RECEPTOR, codigo, autorizacion: 'AL-00020402-24' });

describe('POST /api/enviar/items refuses exonerations Hacienda does not back', () => {
  it("when a line's CABYS is outside the receptor's authorization, then 400 naming that line and nothing is stored", async () => {
    // The issuer may already be registered by the registration tests above (409 then); either way it exists.
    const registered = await post(ctx, 'acme', '/api/enviar/emisor', issuerBody());
    expect([200, 409]).toContain(registered.status);
    const body = invoiceWithCabys(7001, '2399101000100');

    const res = await post(ctx, 'acme', '/api/enviar/items', body);

    expect(res.status).toBe(400);
    expect(res.body.error).toBe('bad_request');
    expect(res.body.details).toEqual(
      expect.arrayContaining([
        { path: 'detalleServicio[0].codigo', reason: expect.stringContaining('2399101000100') },
      ]),
    );
    const stored = await ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM documents');
    expect(stored.rows[0]!.n).toBe(0);
  });

  it('when the document is dated before Hacienda issued the authorization, then 400 naming numeroDocumento, nothing stored, and the consecutivo stays free', async () => {
    // The auditor's case: the client's FechaEmisionEX is the authorization's own, the document earlier.
    const issuedOn = costaRicaDate(new Date(Date.now() - 30 * DAY));
    await hacienda.addExoneration({
      numeroDocumento: 'AL-00060001-26',
      identificacion: RECEPTOR,
      porcentajeExoneracion: 13,
      fechaEmision: issuedOn,
      fechaVencimiento: FUTURE,
      cabys: [JUGO],
    });
    const registered = await post(ctx, 'acme', '/api/enviar/emisor', issuerBody());
    expect([200, 409]).toContain(registered.status);
    const body = invoiceWithCabys(7020, JUGO);
    Object.assign(body.detalleServicio[0]!.impuesto[0]!.exoneracion, {
      numeroDocumento: 'AL-00060001-26',
      fechaEmision: issuedOn,
    });
    const early = { ...body, fechaEmision: crNow(-60 * DAY) };

    const refused = await post(ctx, 'acme', '/api/enviar/items', early);

    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      error: 'bad_request',
      details: [
        {
          path: 'detalleServicio[0].impuesto[0].exoneracion.numeroDocumento',
          reason: `AL-00060001-26 was issued on ${issuedOn}, after the document date ${early.fechaEmision.slice(0, 10)}, so it was not yet in force`,
        },
      ],
    });
    const stored = await ctx.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM documents WHERE tenant_id = 'acme' AND numero_referencia = 7020",
    );
    expect(stored.rows[0]!.n).toBe(0);

    // Dated today, the same document takes the consecutivo the refused one would have had.
    const accepted = await post(ctx, 'acme', '/api/enviar/items', body);
    expect(accepted.status).toBe(200);
    const { rows } = await ctx.db.query<{ consecutivo: string }>(
      'SELECT consecutivo FROM documents WHERE clave = $1',
      [accepted.body.clave],
    );
    expect(rows[0]!.consecutivo).toBe('00100001010000007020');
    expect(accepted.body.clave.slice(21, 41)).toBe('00100001010000007020');
  });
});

describe('POST /api/enviar/items repeated while the exoneration lookup fails', () => {
  it('when the same document is posted again and Hacienda answers 503, then the first clave, not an error', async () => {
    // Lookups not cached, so the repeat asks Hacienda again.
    const app = await startTestApp({ publicApi: testPublicApi(hacienda.url, { cacheTtlMs: 0 }) });
    try {
      expect((await post(app, 'acme', '/api/enviar/emisor', issuerBody())).status).toBe(200);
      const body = invoiceWithCabys(7002, JUGO);
      body.detalleServicio[0]!.impuesto[0]!.exoneracion.fechaEmision = '2024-01-15T00:00:00-06:00';
      const first = await post(app, 'acme', '/api/enviar/items', body);
      expect(first.status).toBe(200);

      // The process now holds the issuer's key, so the repeat checks and signs before it meets the number.
      // Exactly the lookup's four tries (testPublicApi retries three times): the next tests get answers.
      await hacienda.failPublicApi(4);
      const again = await post(app, 'acme', '/api/enviar/items', body);
      expect(again.status).toBe(200);
      expect(again.body.clave).toBe(first.body.clave);
      expect(again.body.message).toMatch(/already been received/);
    } finally {
      await app.close();
    }
  });
});

describe('POST /api/enviar/items refused with an issuer another process has changed since', () => {
  it('when the refusal was judged with the replaced material, then the document is judged again with the issuer as it is now', async () => {
    const app = await startTestApp({ publicApi: testPublicApi(hacienda.url, { cacheTtlMs: 0 }) });
    try {
      expect((await post(app, 'acme', '/api/enviar/emisor', issuerBody())).status).toBe(200);
      const held = await post(app, 'acme', '/api/enviar/items', documentBody('invoice', 7010));
      expect(held.status).toBe(200);
      // Another process's actualizar: the row and its version change (migration 0070).
      await app.db.query(
        "UPDATE issuers SET nombre = 'ACME RENOVADA SOCIEDAD ANONIMA' WHERE tenant_id = 'acme' AND identificacion = '3101123456'",
      );
      const body = invoiceWithCabys(7011, JUGO);
      body.detalleServicio[0]!.impuesto[0]!.exoneracion.fechaEmision = '2024-01-15T00:00:00-06:00';
      // The first judgment (with the held material) cannot reach Hacienda: all four tries answer 503.
      await hacienda.failPublicApi(4);
      const res = await post(app, 'acme', '/api/enviar/items', body);
      expect(res.status).toBe(200);
      const xml = await app.db.query<{ xml: string }>('SELECT xml FROM documents WHERE clave = $1', [
        res.body.clave,
      ]);
      expect(xml.rows[0]!.xml).toContain('<Nombre>ACME RENOVADA SOCIEDAD ANONIMA</Nombre>');
    } finally {
      await app.close();
    }
  });
});

describe('the per-tenant lookup limit', () => {
  it('when one tenant exhausts its lookups, then 429 with Retry-After for it, cached answers take no slot, and other tenants are unaffected', async () => {
    const publicApi = testPublicApi(hacienda.url);
    const limited = await startTestApp({
      publicApi,
      cabys: createCabysSearch({ fallback: haciendaCabysFallback(publicApi) }),
      lookupLimiter: createLookupLimiter({ limit: 3, windowSeconds: 60 }),
    });
    try {
      // The first reaches Hacienda (one slot); the repeats are answered from the cache and take none.
      for (let i = 0; i < 4; i++) {
        const ok = await post(limited, 'acme', '/api/hacienda/contribuyente', {
          identificacion: '3101123456',
        });
        expect(ok.status).toBe(200);
      }
      const second = await post(limited, 'acme', '/api/hacienda/exoneracion', {
        exoneracion: 'AL-00020402-24',
      });
      expect(second.status).toBe(200);
      // CABYS through the fallback to Hacienda: the same, one slot for a search however often it is repeated.
      for (let i = 0; i < 2; i++) {
        const found = await post(limited, 'acme', '/api/hacienda/cabys', {
          name: 'jugo de tomate',
          limite: 5,
        });
        expect(found.status).toBe(200);
      }
      expect((await post(limited, 'acme', '/api/hacienda/cabys', { name: 'cafe' })).status).toBe(429);
      const refused = await post(limited, 'acme', '/api/hacienda/contribuyente', {
        identificacion: '3101000000',
      });
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({
        error: 'too_many_requests',
        message: expect.stringContaining('retry in'),
      });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      // Still answered from the cache for the tenant that used up its window.
      const cached = await post(limited, 'acme', '/api/hacienda/exoneracion', {
        exoneracion: 'AL-00020402-24',
      });
      expect(cached.status).toBe(200);
      const other = await post(limited, 'other', '/api/hacienda/contribuyente', {
        identificacion: '3101000000',
      });
      expect(other.status).toBe(404);
    } finally {
      await limited.close();
    }
  });
});

describe('the per-tenant lookup limit on submissions', () => {
  it("when a submission's exoneration lookups that reach Hacienda exceed the tenant's window, then 429 with Retry-After, nothing stored, cached answers take no slot, and another tenant is unaffected", async () => {
    const limited = await startTestApp({
      publicApi: testPublicApi(hacienda.url),
      lookupLimiter: createLookupLimiter({ limit: 2, windowSeconds: 60 }),
    });
    const numbers = ['AL-00030001-24', 'AL-00030002-24', 'AL-00030003-24'];
    for (const numeroDocumento of numbers) {
      await hacienda.addExoneration({
        numeroDocumento,
        identificacion: RECEPTOR,
        porcentajeExoneracion: 13,
        fechaEmision: '2024-01-15',
        fechaVencimiento: FUTURE,
        cabys: [JUGO],
      });
    }
    const submit = (tenant: string, numero: number, autorizacion: string) => {
      const body = invoiceWithCabys(numero, JUGO);
      const exoneracion = body.detalleServicio[0]!.impuesto[0]!.exoneracion;
      exoneracion.numeroDocumento = autorizacion;
      exoneracion.fechaEmision = '2024-01-15T00:00:00-06:00';
      return post(limited, tenant, '/api/enviar/items', body);
    };
    try {
      for (const tenant of ['acme', 'other']) {
        expect((await post(limited, tenant, '/api/enviar/emisor', issuerBody())).status).toBe(200);
      }
      // The first lookup of an authorization reaches Hacienda (one slot); its repeats are answered from the
      // cache and take none, so a tenant's many invoices under one authorization are never refused.
      const statuses = [];
      for (const numero of [7101, 7102, 7103, 7104])
        statuses.push((await submit('acme', numero, numbers[0]!)).status);
      expect(statuses).toEqual([200, 200, 200, 200]);
      expect((await submit('acme', 7105, numbers[1]!)).status).toBe(200);

      const refused = await submit('acme', 7106, numbers[2]!);
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({
        error: 'too_many_requests',
        message: expect.stringMatching(/^too many Hacienda lookups for this tenant; retry in \d+ s$/),
      });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      const stored = await limited.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM documents WHERE tenant_id = 'acme' AND numero_referencia = 7106",
      );
      expect(stored.rows[0]!.n).toBe(0);

      expect((await submit('other', 7106, numbers[2]!)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
