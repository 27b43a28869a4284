import { taxedLine } from '@cr/hacienda-xml/src/testing/tax-mothers';
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

  it('when a key is reused with the same body plus an own __proto__ key, then 422 unprocessable', async () => {
    const body = documentBody('invoice', 208);
    expect((await withKey('key-208', body)).status).toBe(200);
    // Raw JSON text, so `__proto__` is an own key of the parsed body as it is of the request's.
    const withProto = JSON.parse(`{"__proto__":{"x":1},${JSON.stringify(body).slice(1)}`);
    const other = await withKey('key-208', withProto);
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({
      error: 'unprocessable',
      message: expect.stringMatching(/Idempotency-Key/),
    });
  });

  it('when the first request with a key is still in flight, then 409 conflict with Retry-After: 1', async () => {
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
    expect(res.body).toMatchObject({
      error: 'conflict',
      message: expect.stringMatching(/still being processed/),
    });
    expect(res.headers['retry-after']).toBe('1');
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

// The clave holds FechaEmision as ddmmyy, the year read as 20yy: a date outside 2000..2099 in Costa Rica time
// cannot carry a clave that matches it, so it is refused before any number is taken.
describe('POST /api/enviar/items: a fechaEmision the clave cannot hold', () => {
  it.each([
    ['0050-06-15T10:00:00-06:00', 410],
    ['1999-12-31T23:00:00-06:00', 411],
    ['2100-01-01T00:00:00-06:00', 412],
    ['9999-12-31T23:59:59-06:00', 413],
  ] as const)(
    'when fechaEmision is %s, then 400 naming fechaEmision and nothing stored',
    async (fecha, n) => {
      const before = await countDocuments();
      const res = await post(
        ctx,
        'acme',
        '/api/enviar/items',
        documentBody('invoice', n, { fechaEmision: fecha }),
      );
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        error: 'bad_request',
        message: expect.stringMatching(
          /^fechaEmision: must be from 2000-01-01 to 2099-12-31 in Costa Rica time/,
        ),
      });
      expect(await countDocuments()).toBe(before);
    },
  );

  it("when fechaEmision is ahead of the clock (the clave's last day, 2099-12-31), then 400 and nothing stored", async () => {
    const before = await countDocuments();
    const res = await post(
      ctx,
      'acme',
      '/api/enviar/items',
      documentBody('invoice', 415, { fechaEmision: '2099-12-31T23:59:59-06:00' }),
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: 'bad_request',
      message: expect.stringMatching(/^fechaEmision: is \d+ minutes ahead of the current time/),
    });
    expect(await countDocuments()).toBe(before);
  });

  it.each([['2000-01-01T00:00:00-06:00', 414, '010100']] as const)(
    'when fechaEmision is the edge %s, then it is accepted with the clave date %s',
    async (fecha, n, ddmmyy) => {
      const res = await post(
        ctx,
        'acme',
        '/api/enviar/items',
        documentBody('invoice', n, { fechaEmision: fecha }),
      );
      expect(res.status).toBe(200);
      expect(res.body.clave.slice(3, 9)).toBe(ddmmyy);
    },
  );
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
      'a surtido component’s tax amount is wrong',
      () =>
        withLine('surtido', 465, (l) => ({
          ...l,
          detalleSurtido: (l.detalleSurtido as Array<Record<string, unknown>>).map((c, k) =>
            k === 1
              ? { ...c, impuestos: [{ codigo: '01', codigoTarifa: '08', tarifa: '13', monto: '700.00' }] }
              : c,
          ),
        })),
      'detalleServicio[0].detalleSurtido[1].impuestos[0].monto',
    ],
    [
      'a surtido has two components',
      () =>
        withLine('surtido', 466, (l) => ({
          ...l,
          detalleSurtido: (l.detalleSurtido as unknown[]).slice(0, 2),
        })),
      'detalleServicio[0].detalleSurtido',
    ],
    [
      'a surtido component has no CABYS code',
      () =>
        withLine('surtido', 467, (l) => ({
          ...l,
          detalleSurtido: (l.detalleSurtido as Array<Record<string, unknown>>).map(
            ({ codigo: _c, ...c }) => c,
          ),
        })),
      'detalleServicio[0].detalleSurtido[0].codigo',
    ],
    [
      'a purchase invoice line is a surtido',
      () => ({ ...body('purchaseInvoice', 468), detalleServicio: [firstLine(body('surtido', 468))] }),
      'detalleServicio[0].detalleSurtido',
    ],
    [
      'a consultation paid by card claims no returned IVA',
      () => {
        const b = body('healthByCard', 469);
        return {
          ...b,
          resumenFactura: {
            ...(b.resumenFactura as object),
            totalIVADevuelto: '0.00',
            totalComprobante: '26000.00',
          },
        };
      },
      'resumenFactura.totalIVADevuelto',
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

// Issue 12's fields, each wrong, through the real route: 400 bad_request whose message and details name the
// field's path, and nothing stored. The base is a valid invoice whose one line carries a selectivo, an
// alcohol tax and the IVA on the enlarged base, with two discounts.
describe('POST /api/enviar/items: the v4.4 line, reference and kind fields, each wrong', () => {
  const GOODS = '2132100000100';
  const IVA13 = { codigo: '01', codigoTarifa: '08', tarifa: '13' } as const;
  type Body = Record<string, unknown> & {
    detalleServicio: Array<Record<string, unknown> & { impuesto: Array<Record<string, unknown>> }>;
    resumenFactura: Record<string, unknown>;
  };
  // Each body its own number: the number is looked up before the content is checked, so a body that was
  // wrongly accepted would turn every later case with its number into a 409.
  let numero = 500;
  const multiTax = (): Body =>
    documentBody('invoice', numero++, {
      detalleServicio: [
        taxedLine(1, {
          cabys: GOODS,
          cantidad: 12,
          precio: '1500.00',
          descuentos: [
            {
              montoDescuento: '1500.00',
              codigoDescuento: '01',
              naturalezaDescuento: 'Una unidad de regalía',
            },
            { montoDescuento: '300.00', codigoDescuento: '05' },
          ],
          impuestos: [
            { codigo: '02', tarifa: '10' },
            {
              codigo: '04',
              datosImpuestoEspecifico: {
                cantidadUnidadMedida: '0.75',
                porcentaje: '12.5',
                impuestoUnidad: '5.23',
              },
            },
            IVA13,
          ],
        }),
      ],
    }) as unknown as Body;
  /** The valid body with its first line (taxes 02, 04, 01 at [0], [1], [2]) edited in place. */
  const line = (edit: (l: Body['detalleServicio'][number]) => void) => () => {
    const body = multiTax();
    edit(body.detalleServicio[0]!);
    return body;
  };
  const other = (kind: DocumentKind, edit: (b: Record<string, unknown>) => void) => () => {
    const body = documentBody(kind, numero++) as unknown as Record<string, unknown>;
    edit(body);
    return body;
  };
  const L = 'detalleServicio[0]';
  const codigoComercial = { tipo: '01', codigo: 'SKU-1' };
  /** The first reference, the references made a list (so its path is informacionReferencia[0]). */
  const refOf = (b: Record<string, unknown>) => {
    const r = b.informacionReferencia as Record<string, unknown> | Record<string, unknown>[];
    b.informacionReferencia = Array.isArray(r) ? r : [r];
    return (b.informacionReferencia as Record<string, unknown>[])[0]!;
  };

  const cases: Array<[string, string, () => unknown]> = [
    // impuesto as an array
    [
      'impuesto is an empty array',
      `${L}.impuesto`,
      line((l) => {
        l.impuesto = [];
      }),
    ],
    [
      'a tax code exists in no Nota 8 revision',
      `${L}.impuesto[0].codigo`,
      line((l) => {
        l.impuesto[0]!.codigo = '09';
      }),
    ],
    [
      'the IVA’s codigoTarifa is unknown',
      `${L}.impuesto[2].codigoTarifa`,
      line((l) => {
        l.impuesto[2]!.codigoTarifa = '12';
      }),
    ],
    [
      'the IVA’s tarifa disagrees with its codigoTarifa',
      `${L}.impuesto[2].tarifa`,
      line((l) => {
        l.impuesto[2]!.tarifa = '12';
      }),
    ],
    [
      'the selectivo has no tarifa',
      `${L}.impuesto[0].tarifa`,
      line((l) => {
        delete l.impuesto[0]!.tarifa;
      }),
    ],
    [
      'the alcohol tax carries a tarifa',
      `${L}.impuesto[1].tarifa`,
      line((l) => {
        l.impuesto[1]!.tarifa = '10';
      }),
    ],
    [
      'a line carries two IVA taxes',
      `${L}.impuesto`,
      line((l) => {
        l.impuesto.push({ ...l.impuesto[2]! });
      }),
    ],
    [
      'a tax code appears twice',
      `${L}.impuesto[1].codigo`,
      line((l) => {
        l.impuesto[1] = { ...l.impuesto[0]! };
      }),
    ],
    [
      'a tax 99 has no codigoImpuestoOtro',
      `${L}.impuesto[0].codigoImpuestoOtro`,
      line((l) => {
        l.impuesto[0]!.codigo = '99';
      }),
    ],
    [
      'a tax has an unknown member',
      `${L}.impuesto[0].tasa`,
      line((l) => {
        l.impuesto[0]!.tasa = '10';
      }),
    ],
    [
      'a tax monto is not an amount',
      `${L}.impuesto[0].monto`,
      line((l) => {
        l.impuesto[0]!.monto = 'diez';
      }),
    ],
    // datosImpuestoEspecifico
    [
      'the alcohol tax has no datosImpuestoEspecifico',
      `${L}.impuesto[1].datosImpuestoEspecifico`,
      line((l) => {
        delete l.impuesto[1]!.datosImpuestoEspecifico;
      }),
    ],
    [
      'the alcohol tax has no porcentaje',
      `${L}.impuesto[1].datosImpuestoEspecifico.porcentaje`,
      line((l) => {
        delete (l.impuesto[1]!.datosImpuestoEspecifico as Record<string, unknown>).porcentaje;
      }),
    ],
    [
      'cantidadUnidadMedida is missing',
      `${L}.impuesto[1].datosImpuestoEspecifico.cantidadUnidadMedida`,
      line((l) => {
        delete (l.impuesto[1]!.datosImpuestoEspecifico as Record<string, unknown>).cantidadUnidadMedida;
      }),
    ],
    [
      'cantidadUnidadMedida has 3 decimals',
      `${L}.impuesto[1].datosImpuestoEspecifico.cantidadUnidadMedida`,
      line((l) => {
        (l.impuesto[1]!.datosImpuestoEspecifico as Record<string, unknown>).cantidadUnidadMedida = '0.755';
      }),
    ],
    [
      'impuestoUnidad is not an amount',
      `${L}.impuesto[1].datosImpuestoEspecifico.impuestoUnidad`,
      line((l) => {
        (l.impuesto[1]!.datosImpuestoEspecifico as Record<string, unknown>).impuestoUnidad = '-5';
      }),
    ],
    [
      'the alcohol tax carries volumenUnidadConsumo',
      `${L}.impuesto[1].datosImpuestoEspecifico.volumenUnidadConsumo`,
      line((l) => {
        (l.impuesto[1]!.datosImpuestoEspecifico as Record<string, unknown>).volumenUnidadConsumo = '0.35';
      }),
    ],
    [
      'the proporcion disagrees',
      `${L}.impuesto[1].datosImpuestoEspecifico.proporcion`,
      line((l) => {
        (l.impuesto[1]!.datosImpuestoEspecifico as Record<string, unknown>).proporcion = '50';
      }),
    ],
    [
      'the IVA carries datosImpuestoEspecifico',
      `${L}.impuesto[2].datosImpuestoEspecifico`,
      line((l) => {
        l.impuesto[2]!.datosImpuestoEspecifico = { cantidadUnidadMedida: '1', impuestoUnidad: '1.00' };
      }),
    ],
    [
      'datosImpuestoEspecifico has an unknown member',
      `${L}.impuesto[1].datosImpuestoEspecifico.grados`,
      line((l) => {
        (l.impuesto[1]!.datosImpuestoEspecifico as Record<string, unknown>).grados = '12';
      }),
    ],
    // factorCalculoIVA
    [
      'IVA 08 has no factorCalculoIVA',
      `${L}.impuesto[2].factorCalculoIVA`,
      line((l) => {
        l.impuesto[2] = { codigo: '08', monto: '1.00' };
      }),
    ],
    [
      'factorCalculoIVA is zero',
      `${L}.impuesto[2].factorCalculoIVA`,
      line((l) => {
        l.impuesto[2] = { codigo: '08', factorCalculoIVA: '0', monto: '1.00' };
      }),
    ],
    [
      'factorCalculoIVA has 5 decimals',
      `${L}.impuesto[2].factorCalculoIVA`,
      line((l) => {
        l.impuesto[2] = { codigo: '08', factorCalculoIVA: '0.12345', monto: '1.00' };
      }),
    ],
    [
      'IVA 01 carries factorCalculoIVA',
      `${L}.impuesto[2].factorCalculoIVA`,
      line((l) => {
        l.impuesto[2]!.factorCalculoIVA = '0.1';
      }),
    ],
    // descuentos
    [
      'a line has six discounts',
      `${L}.descuentos`,
      line((l) => {
        l.descuentos = Array.from({ length: 6 }, () => ({ montoDescuento: '10.00', codigoDescuento: '07' }));
      }),
    ],
    [
      'a codigoDescuento is unknown',
      `${L}.descuentos[1].codigoDescuento`,
      line((l) => {
        (l.descuentos as Record<string, unknown>[])[1]!.codigoDescuento = '10';
      }),
    ],
    [
      'a discount 99 has no naturalezaDescuento',
      `${L}.descuentos[1].naturalezaDescuento`,
      line((l) => {
        Object.assign((l.descuentos as Record<string, unknown>[])[1]!, {
          codigoDescuento: '99',
          codigoDescuentoOtro: 'Descuento por volumen',
        });
      }),
    ],
    [
      'a discount 99 has no codigoDescuentoOtro (REFERENCE §7.7)',
      `${L}.descuentos[1].codigoDescuentoOtro`,
      line((l) => {
        Object.assign((l.descuentos as Record<string, unknown>[])[1]!, {
          codigoDescuento: '99',
          naturalezaDescuento: 'Apertura de tienda',
        });
      }),
    ],
    [
      'codigoDescuentoOtro is sent for a code other than 99',
      `${L}.descuentos[1].codigoDescuentoOtro`,
      line((l) => {
        (l.descuentos as Record<string, unknown>[])[1]!.codigoDescuentoOtro = 'Descuento por volumen';
      }),
    ],
    [
      'a discount has no montoDescuento',
      `${L}.descuentos[1].montoDescuento`,
      line((l) => {
        delete (l.descuentos as Record<string, unknown>[])[1]!.montoDescuento;
      }),
    ],
    [
      'the discounts exceed quantity × price',
      `${L}.descuentos[1].montoDescuento`,
      line((l) => {
        (l.descuentos as Record<string, unknown>[])[1]!.montoDescuento = '17000.00';
      }),
    ],
    [
      'descuento and descuentos are both sent',
      `${L}.descuento`,
      line((l) => {
        l.descuento = '100.00';
      }),
    ],
    // factory level
    [
      'ivaCobradoFabrica is 03',
      `${L}.ivaCobradoFabrica`,
      line((l) => {
        l.ivaCobradoFabrica = '03';
      }),
    ],
    [
      'ivaCobradoFabrica 01 has no baseImponible',
      `${L}.baseImponible`,
      line((l) => {
        l.ivaCobradoFabrica = '01';
      }),
    ],
    [
      'ivaCobradoFabrica 02 keeps a 13 % IVA',
      `${L}.impuesto[2].codigoTarifa`,
      line((l) => {
        l.ivaCobradoFabrica = '02';
      }),
    ],
    [
      'baseImponible is not an amount',
      `${L}.baseImponible`,
      line((l) => {
        l.baseImponible = '1e5';
      }),
    ],
    [
      'baseImponible disagrees',
      `${L}.baseImponible`,
      line((l) => {
        l.baseImponible = '100.00';
      }),
    ],
    [
      'impuestoAsumidoEmisorFabrica disagrees',
      `${L}.impuestoAsumidoEmisorFabrica`,
      line((l) => {
        l.impuestoAsumidoEmisorFabrica = '1.00';
      }),
    ],
    [
      'impuestoAsumidoEmisorFabrica is negative',
      `${L}.impuestoAsumidoEmisorFabrica`,
      line((l) => {
        l.impuestoAsumidoEmisorFabrica = '-1.00';
      }),
    ],
    // vehicles, medicines, commercial units and codes
    [
      'a numeroVINoSerie is 18 characters',
      `${L}.numeroVINoSerie[1]`,
      line((l) => {
        l.numeroVINoSerie = ['1HGCM82633A004352', 'X'.repeat(18)];
      }),
    ],
    [
      'numeroVINoSerie is a string',
      `${L}.numeroVINoSerie`,
      line((l) => {
        l.numeroVINoSerie = '1HGCM82633A004352';
      }),
    ],
    [
      'registroMedicamento is 101 characters',
      `${L}.registroMedicamento`,
      line((l) => {
        l.registroMedicamento = 'R'.repeat(101);
      }),
    ],
    [
      'formaFarmaceutica is 4 characters',
      `${L}.formaFarmaceutica`,
      line((l) => {
        l.formaFarmaceutica = 'TABL';
      }),
    ],
    [
      'unidadMedidaComercial is empty',
      `${L}.unidadMedidaComercial`,
      line((l) => {
        l.unidadMedidaComercial = '';
      }),
    ],
    [
      'unidadMedidaComercial is 21 characters',
      `${L}.unidadMedidaComercial`,
      line((l) => {
        l.unidadMedidaComercial = 'U'.repeat(21);
      }),
    ],
    [
      'a line has six codigoComercial',
      `${L}.codigoComercial`,
      line((l) => {
        l.codigoComercial = Array(6).fill(codigoComercial);
      }),
    ],
    [
      'a codigoComercial tipo is unknown',
      `${L}.codigoComercial[0].tipo`,
      line((l) => {
        l.codigoComercial = [{ ...codigoComercial, tipo: '05' }];
      }),
    ],
    // informacionReferencia
    [
      'a credit note has eleven references',
      'informacionReferencia',
      other('creditNote', (b) => {
        b.informacionReferencia = Array(11).fill(b.informacionReferencia);
      }),
    ],
    [
      'a reference tipoDocumento is unknown',
      'informacionReferencia[0].tipoDocumento',
      other('debitNote', (b) => {
        refOf(b).tipoDocumento = '21';
      }),
    ],
    [
      'a reference codigo is unknown',
      'informacionReferencia[0].codigo',
      other('debitNote', (b) => {
        refOf(b).codigo = '00';
      }),
    ],
    [
      'a reference 99 has no codigoOtro',
      'informacionReferencia[0].codigoOtro',
      other('debitNote', (b) => {
        refOf(b).codigo = '99';
      }),
    ],
    [
      'a reference is dated after the document',
      'informacionReferencia[0].fechaEmision',
      other('debitNote', (b) => {
        refOf(b).fechaEmision = '2099-01-01T00:00:00-06:00';
      }),
    ],
    [
      'a debit note references a supplier abroad (16)',
      'informacionReferencia[0].tipoDocumento',
      other('debitNote', (b) => {
        refOf(b).tipoDocumento = '16';
      }),
    ],
    // proveedor (FEC)
    [
      'a supplier of type 06 sells on condition 01',
      'proveedor.identificacion.tipo',
      other('purchaseInvoice', (b) => {
        b.proveedor = { nombre: 'Juan Perez Mora', identificacion: { tipo: '06', numero: '112340567' } };
      }),
    ],
    [
      'a foreign supplier has no reference 16',
      'informacionReferencia',
      other('purchaseInvoice', (b) => {
        b.proveedor = {
          nombre: 'Foreign Farms Ltd',
          identificacion: { tipo: '05', numero: 'US998877' },
          otrasSenasExtranjero: '1 Farm Road, Iowa',
        };
      }),
    ],
    [
      'a national supplier carries otrasSenasExtranjero',
      'proveedor.otrasSenasExtranjero',
      other('purchaseInvoice', (b) => {
        (b.proveedor as Record<string, unknown>).otrasSenasExtranjero = '1 Farm Road, Iowa';
      }),
    ],
    [
      'a supplier’s cédula física has 8 digits',
      'proveedor.identificacion.numero',
      other('purchaseInvoice', (b) => {
        (b.proveedor as { identificacion: Record<string, unknown> }).identificacion.numero = '11234056';
      }),
    ],
    [
      'a supplier has an unknown member',
      'proveedor.telefonoMovil',
      other('purchaseInvoice', (b) => {
        (b.proveedor as Record<string, unknown>).telefonoMovil = '8888-8888';
      }),
    ],
    [
      'an invoice names a proveedor',
      'proveedor',
      other('invoice', (b) => {
        b.proveedor = documentBody('purchaseInvoice', 1).proveedor;
      }),
    ],
    // partidaArancelaria (FEE)
    [
      'a partidaArancelaria has 11 digits',
      `${L}.partidaArancelaria`,
      other('exportInvoice', (b) => {
        (b.detalleServicio as Record<string, unknown>[])[0]!.partidaArancelaria = '09011100000';
      }),
    ],
    [
      'an invoice line carries a partidaArancelaria',
      `${L}.partidaArancelaria`,
      line((l) => {
        l.partidaArancelaria = '090111000000';
      }),
    ],
    // folioType
    [
      'a debit note is sent as a CREDIT_NOTE',
      'folioType',
      other('debitNote', (b) => {
        b.folioType = 'CREDIT_NOTE';
      }),
    ],
    [
      'an invoice is sent as a PAYMENT_RECEIPT',
      'folioType',
      other('invoice', (b) => {
        b.folioType = 'PAYMENT_RECEIPT';
      }),
    ],
    [
      'a payment receipt is sent as a DEBIT_NOTE',
      'folioType',
      other('paymentReceipt', (b) => {
        b.folioType = 'DEBIT_NOTE';
      }),
    ],
  ];

  const storedDocuments = async () =>
    (await ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM documents')).rows[0]!.n;

  /** Posts a body that must be refused; returns the 400's details after checking nothing was stored. */
  async function refused(body: unknown, path: string) {
    const before = await storedDocuments();
    const res = await post(ctx, 'acme', '/api/enviar/items', body);
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error: 'bad_request' });
    expect(res.body.message).toContain(path);
    const details = (res.body.details ?? []) as Array<{ path: string; expected?: string }>;
    expect(details.map((d) => d.path)).toContain(path);
    expect(await storedDocuments()).toBe(before);
    return details;
  }

  it('when the base document is right, then it is accepted (so each case below fails for its one edit)', async () => {
    const res = await post(ctx, 'acme', '/api/enviar/items', { ...multiTax(), numeroReferencia: 599 });
    expect(res.status).toBe(200);
  });

  it.each(cases)('when %s, then 400 bad_request naming %s and nothing stored', async (_name, path, body) => {
    await refused(body(), path);
  });

  it.each([
    ['totalComprobante', (b: Body) => b.detalleServicio.reduce((t, l) => t + Number(l.montoTotalLinea), 0)],
    ['totalImpuesto', (b: Body) => b.detalleServicio.reduce((t, l) => t + Number(l.impuestoNeto), 0)],
    [
      'totalDescuentos',
      (b: Body) =>
        b.detalleServicio.reduce(
          (t, l) =>
            t +
            (l.descuentos as Array<{ montoDescuento: string }>).reduce(
              (s, d) => s + Number(d.montoDescuento),
              0,
            ),
          0,
        ),
    ],
  ] as const)(
    'when the client’s resumenFactura.%s disagrees, then 400 naming it with the expected value',
    async (name, expected) => {
      const body = multiTax();
      body.resumenFactura[name] = '1.00';
      const details = await refused(body, `resumenFactura.${name}`);
      expect(details.find((d) => d.path === `resumenFactura.${name}`)?.expected).toBe(
        expected(body).toFixed(5),
      );
    },
  );
});
