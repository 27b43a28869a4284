import request from 'supertest';
import { withTenant } from '../src/db/with-tenant';
import { hashRequestBody } from '../src/documents/canonical-hash';
import { post } from './support/client';
import { type DocumentKind, documentBody } from './support/document-mother';
import { issuerBody } from './support/issuer-mother';
import { type TestApp, startTestApp } from './support/test-app';

// The machine is shared: starting PGlite and generating RSA keys can take long under load.
jest.setTimeout(120_000);

let ctx: TestApp;
beforeAll(async () => {
  ctx = await startTestApp();
  expect((await post(ctx, 'acme', '/api/enviar/emisor', issuerBody())).status).toBe(200);
});
afterAll(() => ctx.close());

const countDocuments = async () =>
  Number((await ctx.db.query<{ n: string }>('SELECT count(*) AS n FROM documents')).rows[0]!.n);

describe('POST /api/enviar/items: idempotency', () => {
  it('when the same document is posted again, then the same clave and nothing new is created', async () => {
    const body = documentBody('invoice', 100);
    const first = await post(ctx, 'acme', '/api/enviar/items', body);
    expect(first.status).toBe(200);
    const before = await countDocuments();
    // The same body with its keys in another order is the same document.
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const again = await post(ctx, 'acme', '/api/enviar/items', reordered);
    expect(again.status).toBe(200);
    expect(again.body.clave).toBe(first.body.clave);
    expect(again.body.message).toMatch(/already been received/);
    expect(await countDocuments()).toBe(before);
  });

  it('when another body reuses a number, then 409 conflict naming the existing clave', async () => {
    const first = await post(ctx, 'acme', '/api/enviar/items', documentBody('invoice', 101));
    const other = await post(
      ctx,
      'acme',
      '/api/enviar/items',
      documentBody('invoice', 101, { codigoActividadReceptor: '6201.0' }),
    );
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({
      error: 'conflict',
      message: expect.stringContaining(first.body.clave),
    });
  });

  it('when the same number is used on another terminal or type, then it is another document', async () => {
    const a = await post(ctx, 'acme', '/api/enviar/items', documentBody('invoice', 102));
    const b = await post(ctx, 'acme', '/api/enviar/items', documentBody('invoice', 102, { terminal: 2 }));
    const c = await post(ctx, 'acme', '/api/enviar/items', documentBody('ticket', 102));
    expect([a.status, b.status, c.status]).toEqual([200, 200, 200]);
    expect(new Set([a.body.clave, b.body.clave, c.body.clave]).size).toBe(3);
  });

  it('when parallel requests post the same number, then exactly one document exists', async () => {
    const body = documentBody('invoice', 103);
    const before = await countDocuments();
    const results = await Promise.all(
      Array.from({ length: 8 }, () => post(ctx, 'acme', '/api/enviar/items', body)),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(new Set(results.map((r) => r.body.clave)).size).toBe(1);
    expect(await countDocuments()).toBe(before + 1);
  });

  it('when parallel requests post different bodies for one number, then one wins and the rest are 409', async () => {
    const before = await countDocuments();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        post(ctx, 'acme', '/api/enviar/items', documentBody('invoice', 104, { plazoCredito: i + 1 })),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409]);
    expect(await countDocuments()).toBe(before + 1);
    const winner = results.find((r) => r.status === 200)!.body.clave;
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.message).toContain(winner);
  });
});

describe('POST /api/enviar/items: Idempotency-Key', () => {
  const withKey = (key: string, body: unknown, tenant = 'acme') =>
    post(ctx, tenant, '/api/enviar/items', body).set('Idempotency-Key', key);

  it('when a key is repeated with the same body, then the stored response is returned', async () => {
    const body = documentBody('invoice', 200);
    const first = await withKey('key-200', body);
    const again = await withKey('key-200', body);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
  });

  it('when a key is reused with a different body, then 422 unprocessable', async () => {
    await withKey('key-201', documentBody('invoice', 201));
    const other = await withKey('key-201', documentBody('invoice', 202));
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({
      error: 'unprocessable',
      message: expect.stringMatching(/Idempotency-Key/),
    });
  });

  it('when the first request with a key is still in flight, then 409 conflict', async () => {
    const body = documentBody('invoice', 203);
    await withTenant(ctx.db, 'acme', (tx) =>
      tx.query(
        `INSERT INTO idempotency_keys (tenant_id, key, request_hash, state, locked_until, expires_at)
         VALUES ('acme', 'key-203', $1, 'in_flight', now() + interval '1 minute', now() + interval '1 day')`,
        [hashRequestBody(body)],
      ),
    );
    const res = await withKey('key-203', body);
    expect(res.status).toBe(409);
    expect(res.body.message).toMatch(/still being processed/);
  });

  it('when a request with a key fails, then the key is freed for a corrected retry', async () => {
    const bad = { ...documentBody('invoice', 204), codigoActividad: 'x' };
    expect((await withKey('key-204', bad)).status).toBe(400);
    expect((await withKey('key-204', documentBody('invoice', 204))).status).toBe(200);
  });

  it('when another tenant uses the same key, then it is a different key', async () => {
    expect((await post(ctx, 'other', '/api/enviar/emisor', issuerBody())).status).toBe(200);
    const mine = await withKey('shared-key', documentBody('invoice', 205));
    const theirs = await withKey('shared-key', documentBody('invoice', 206), 'other');
    expect(mine.status).toBe(200);
    expect(theirs.status).toBe(200);
    expect(theirs.body.clave).not.toBe(mine.body.clave);
  });

  it('when the key is not visible ASCII, then 400 naming the header', async () => {
    const res = await withKey('x'.repeat(300), documentBody('invoice', 207));
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/Idempotency-Key/);
  });
});

describe('POST /api/enviar/items: refusals', () => {
  it('when the emisor is not registered for this tenant, then 404 naming it', async () => {
    const res = await post(
      ctx,
      'acme',
      '/api/enviar/items',
      documentBody('invoice', 300, { emisor: '3101999999' }),
    );
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: 'not_found', message: expect.stringContaining('3101999999') });
  });

  it("when the emisor is another tenant's, then 404 as if unknown", async () => {
    await post(ctx, 'third', '/api/enviar/emisor', issuerBody({ identificacion: 3101654321 }));
    const res = await post(
      ctx,
      'acme',
      '/api/enviar/items',
      documentBody('invoice', 301, { emisor: '3101654321' }),
    );
    expect(res.status).toBe(404);
  });

  const valid = () => documentBody('invoice', 400) as unknown as Record<string, unknown>;
  const lines = () => (valid().detalleServicio as Record<string, unknown>[]).map((l) => ({ ...l }));
  const cases: Array<[string, () => unknown, string]> = [
    ['the body is an array', () => [], '(body)'],
    ['the body is empty', () => ({}), 'emisor'],
    ['emisor is a number', () => ({ ...valid(), emisor: 3101123456 }), 'emisor'],
    ['numeroReferencia is a string', () => ({ ...valid(), numeroReferencia: '400' }), 'numeroReferencia'],
    ['numeroReferencia is zero', () => ({ ...valid(), numeroReferencia: 0 }), 'numeroReferencia'],
    ['tipoDoc is unknown', () => ({ ...valid(), tipoDoc: '5' }), 'tipoDoc'],
    ['fechaEmision is missing', () => ({ ...valid(), fechaEmision: undefined }), 'fechaEmision'],
    [
      'fechaEmision is not a date',
      () => ({ ...valid(), fechaEmision: '2026-13-45T99:00:00' }),
      'fechaEmision',
    ],
    ['detalleServicio is empty', () => ({ ...valid(), detalleServicio: [] }), 'detalleServicio'],
    ['receptor is a number', () => ({ ...valid(), receptor: 5 }), 'receptor'],
    ['an unknown field is sent', () => ({ ...valid(), extra: true }), 'extra'],
    [
      'a line total does not match',
      () => {
        const l = lines();
        l[0]!.montoTotalLinea = 1;
        return { ...valid(), detalleServicio: l };
      },
      'detalleServicio[0].montoTotalLinea',
    ],
    [
      'a line cantidad is negative',
      () => {
        const l = lines();
        l[0]!.cantidad = -1;
        return { ...valid(), detalleServicio: l };
      },
      'detalleServicio[0].cantidad',
    ],
    ['an invoice has no receptor', () => ({ ...valid(), receptor: '' }), 'receptor'],
    [
      'an invoice has a foreign receptor',
      () => ({
        ...valid(),
        receptor: { nombre: 'John Smith', identificacion: { tipo: '05', numero: 'P1234' } },
      }),
      'receptor.identificacion.tipo',
    ],
    [
      'a ticket has an identified national receptor',
      () => ({ ...valid(), tipoDoc: '4' }),
      'receptor.identificacion.tipo',
    ],
    [
      'a credit note has no informacionReferencia',
      () => ({ ...valid(), tipoDoc: '3' }),
      'informacionReferencia',
    ],
    [
      'the currency is not ISO',
      () => ({
        ...valid(),
        resumenFactura: { codigoTipoMoneda: { codigoMoneda: 'colones' }, mediosPago: [] },
      }),
      'resumenFactura.codigoTipoMoneda.codigoMoneda',
    ],
  ];

  // The other v4.4 kinds (ND, FEC, FEE, REP): each new field, wrong.
  const kind = (k: DocumentKind) => documentBody(k, 450) as unknown as Record<string, unknown>;
  const kindLine = (k: DocumentKind, edit: Record<string, unknown>) => ({
    ...kind(k),
    detalleServicio: [{ ...(kind(k).detalleServicio as Record<string, unknown>[])[0], ...edit }],
  });
  const newKindCases: Array<[string, () => unknown, string]> = [
    ['folioType is unknown', () => ({ ...kind('debitNote'), folioType: 'RECEIPT' }), 'folioType'],
    [
      'a debit note has no informacionReferencia',
      () => ({ ...kind('debitNote'), informacionReferencia: undefined }),
      'informacionReferencia',
    ],
    [
      'a debit note has eleven references',
      () => ({
        ...kind('debitNote'),
        informacionReferencia: Array(11).fill((kind('debitNote').informacionReferencia as unknown[])[0]),
      }),
      'informacionReferencia',
    ],
    [
      'a reference uses a code of no revision',
      () => ({
        ...kind('debitNote'),
        informacionReferencia: [
          { ...(kind('debitNote').informacionReferencia as object[])[0], codigo: '18' },
        ],
      }),
      'informacionReferencia[0].codigo',
    ],
    [
      'a purchase invoice has no proveedor',
      () => ({ ...kind('purchaseInvoice'), proveedor: undefined }),
      'proveedor',
    ],
    [
      'a purchase invoice names a receptor',
      () => ({ ...kind('purchaseInvoice'), receptor: kind('invoice').receptor }),
      'receptor',
    ],
    [
      'a supplier has no ubicacion',
      () => ({
        ...kind('purchaseInvoice'),
        proveedor: { nombre: 'Juan Perez Mora', identificacion: { tipo: '01', numero: '112340567' } },
      }),
      'proveedor.ubicacion',
    ],
    [
      'a supplier identification is too long',
      () => ({
        ...kind('purchaseInvoice'),
        proveedor: { nombre: 'Foreign Ltd', identificacion: { tipo: '05', numero: 'X'.repeat(21) } },
      }),
      'proveedor.identificacion.numero',
    ],
    [
      'an export goods line has no partidaArancelaria',
      () => kindLine('exportInvoice', { partidaArancelaria: undefined }),
      'detalleServicio[0].partidaArancelaria',
    ],
    [
      'a partidaArancelaria has letters',
      () => kindLine('exportInvoice', { partidaArancelaria: '0901ABC00000' }),
      'detalleServicio[0].partidaArancelaria',
    ],
    [
      'an export invoice goes to a national receptor',
      () => ({ ...kind('exportInvoice'), receptor: kind('invoice').receptor }),
      'receptor.identificacion.tipo',
    ],
    [
      'a payment receipt is on condition 01',
      () => ({ ...kind('paymentReceipt'), condicionVenta: '01' }),
      'condicionVenta',
    ],
    [
      'a payment receipt has no payment means',
      () => ({
        ...kind('paymentReceipt'),
        resumenFactura: { codigoTipoMoneda: { codigoMoneda: 'CRC' }, mediosPago: [] },
      }),
      'resumenFactura.mediosPago',
    ],
  ];

  it.each([...cases, ...newKindCases].map(([n, b, p]) => [n, p, b] as const))(
    'when %s, then 400 bad_request naming %s',
    async (_name, path, body) => {
      const before = await ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM documents');
      const res = await post(ctx, 'acme', '/api/enviar/items', body());
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('bad_request');
      const paths = (res.body.details ?? []).map((d: { path: string }) => d.path);
      expect({ paths, ok: paths.some((p: string) => p.startsWith(path)) }).toMatchObject({ ok: true });
      // Nothing is stored for a refused document.
      const after = await ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM documents');
      expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
    },
  );

  it('when the body is not JSON, then 400 and never a 5xx', async () => {
    const res = await request(ctx.app)
      .post('/api/enviar/items')
      .set('Host', ctx.host('acme'))
      .set('Authorization', `Bearer ${ctx.forge.token('acme')}`)
      .set('Content-Type', 'application/json')
      .send('{"emisor": ');
    expect(res.status).toBe(400);
  });
});

// Issue 12's remaining line and summary fields (h12lines): each one wrong through the real route.
describe('POST /api/enviar/items: the surtido, IVA devuelto, export and REP line fields', () => {
  const body = (k: DocumentKind, n: number) => documentBody(k, n) as unknown as Record<string, unknown>;
  const firstLine = (b: Record<string, unknown>) => (b.detalleServicio as Record<string, unknown>[])[0]!;
  const withLine = (k: DocumentKind, n: number, edit: (l: Record<string, unknown>) => object) => {
    const b = body(k, n);
    return { ...b, detalleServicio: [edit(firstLine(b))] };
  };
  const cases: Array<[string, () => unknown, string]> = [
    [
      'an invoice line has no CABYS code (only a payment receipt may omit it)',
      () => withLine('invoice', 460, ({ codigo: _c, ...l }) => l),
      'detalleServicio[0].codigo',
    ],
    [
      'an invoice line has no unidadMedida',
      () => withLine('invoice', 461, ({ unidadMedida: _u, ...l }) => l),
      'detalleServicio[0].unidadMedida',
    ],
    [
      'an invoice tax carries montoExportacion (only export invoices and notes have it)',
      () =>
        withLine('invoice', 462, (l) => ({
          ...l,
          impuesto: (l.impuesto as object[]).map((t) => ({ ...t, montoExportacion: '10.00' })),
        })),
      'detalleServicio[0].impuesto[0].montoExportacion',
    ],
    [
      'an export invoice’s montoExportacion is not an amount',
      () =>
        withLine('exportInvoice', 463, (l) => ({
          ...l,
          impuesto: (l.impuesto as object[]).map((t) => ({ ...t, montoExportacion: 'mucho' })),
        })),
      'detalleServicio[0].impuesto[0].montoExportacion',
    ],
    [
      'totalIVADevuelto is sent where nothing is returned (paid in cash)',
      () => {
        const b = body('invoice', 464);
        return { ...b, resumenFactura: { ...(b.resumenFactura as object), totalIVADevuelto: '50.00' } };
      },
      'resumenFactura.totalIVADevuelto',
    ],
  ];

  it.each(cases.map(([n, b, p]) => [n, p, b] as const))(
    'when %s, then 400 bad_request naming %s and nothing is stored',
    async (_name, path, make) => {
      const before = await countDocuments();
      const res = await post(ctx, 'acme', '/api/enviar/items', make());
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('bad_request');
      const paths = (res.body.details ?? []).map((d: { path: string }) => d.path);
      expect({ paths, ok: paths.some((p: string) => p.startsWith(path)) }).toMatchObject({ ok: true });
      expect(await countDocuments()).toBe(before);
    },
  );
});
