// GET /api/documentos and GET /api/emisores: filters, newest-first cursor pages, each total's currency, an
// answer listed under the clave it answers, the certificate's days left, 400 naming the bad parameter, and
// another tenant's rows never listed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@cr/testkit';
import request from 'supertest';
import { withTenant } from '../src/db/with-tenant';
import { post } from './support/client';
import { insertTestDocument, randomClave, signedExportInvoiceXml } from './support/documents';
import { issuerBody } from './support/issuer-mother';
import { describeSecurityTable } from './support/security-cases';
import { type TestApp, startTestApp } from './support/test-app';

let ctx: TestApp;
const MIGRATIONS = join(REPO_ROOT, 'apps', 'tenant-api', 'migrations');

function list(tenant: string, query: Record<string, string> = {}) {
  return request(ctx.app)
    .get('/api/documentos')
    .query(query)
    .set('Host', ctx.host(tenant))
    .set('Authorization', `Bearer ${ctx.forge.token(tenant)}`);
}

const RECEPTOR = { tipo: '02', numero: '3101779527' };
// Five acme documents over three Costa Rica days, one of globex; emission instants in UTC.
const ACME = [
  { n: 11, tipoDoc: '1', estado: 'aceptado', fechaEmision: '2026-11-20T05:30:00Z', receptor: RECEPTOR },
  { n: 12, tipoDoc: '1', estado: 'rechazado', fechaEmision: '2026-11-20T20:00:00Z', receptor: RECEPTOR },
  { n: 13, tipoDoc: '4', estado: 'aceptado', fechaEmision: '2026-11-21T05:59:59Z' },
  {
    n: 14,
    tipoDoc: '3',
    estado: 'enviado',
    fechaEmision: '2026-11-21T06:00:00Z',
    receptor: RECEPTOR,
    moneda: 'USD',
  },
  { n: 15, tipoDoc: '1', estado: 'pendiente', fechaEmision: '2026-11-22T18:00:00Z' },
];
const claves = new Map<number, string>();

beforeAll(async () => {
  ctx = await startTestApp();
  for (const d of ACME) {
    const doc = await insertTestDocument(ctx.db, 'acme', {
      estado: d.estado,
      tipoDoc: d.tipoDoc,
      fechaEmision: d.fechaEmision,
      numeroReferencia: d.n,
      ...(d.receptor ? { receptor: d.receptor } : {}),
      ...(d.moneda ? { moneda: d.moneda } : {}),
      totals: { totalComprobante: `${d.n}300.00000` },
    });
    claves.set(d.n, doc.clave);
  }
  const other = await insertTestDocument(ctx.db, 'globex', {
    estado: 'aceptado',
    fechaEmision: '2026-11-22T19:00:00Z',
    numeroReferencia: 99,
    receptor: RECEPTOR,
  });
  claves.set(99, other.clave);
});
afterAll(() => ctx.close());

const numbers = (body: { data: { numeroReferencia: number }[] }) => body.data.map((d) => d.numeroReferencia);

describeSecurityTable('GET /api/documentos', () => ctx, { method: 'get', path: '/api/documentos' });
describeSecurityTable('GET /api/emisores', () => ctx, { method: 'get', path: '/api/emisores' });

describe('GET /api/documentos', () => {
  it.each(['bearer', 'BEARER'])(
    'when the scheme is written %s, then the token is read (RFC 7235: schemes are case-insensitive)',
    async (scheme) => {
      const res = await request(ctx.app)
        .get('/api/documentos')
        .set('Host', ctx.host('acme'))
        .set('Authorization', `${scheme} ${ctx.forge.token('acme')}`);
      expect(res.status).toBe(200);
    },
  );

  it('when listed without filters, then every document of the tenant, newest emission first, and no other tenant’s', async () => {
    const res = await list('acme').expect(200);
    expect(numbers(res.body)).toEqual([15, 14, 13, 12, 11]);
    expect(res.body.cursor).toBeNull();
    expect(res.body.data[1]).toEqual({
      clave: claves.get(14),
      tipoDoc: '3',
      emisor: '3101123456',
      consecutivo: claves.get(14)!.slice(21, 41),
      numeroReferencia: 14,
      fechaEmision: '2026-11-21T06:00:00Z',
      estado: 'enviado',
      receptor: RECEPTOR,
      total: '14300.00000',
      moneda: 'USD',
    });
    expect(res.body.data[0]).toMatchObject({ receptor: null, moneda: 'CRC' });
    expect(JSON.stringify(res.body)).not.toContain(claves.get(99));
  });

  it('when the tenant answered a received document, then the answer is listed under the 50-digit clave it answers, which consultar/documento opens', async () => {
    const received = randomClave();
    const consecutivo = '00100001050000000007';
    // As answer-received.ts stores an answer: its own row keyed `<clave>-<consecutivo>`, the clave it
    // answers beside it.
    const answer = await insertTestDocument(ctx.db, 'umbrella', {
      clave: `${received}-${consecutivo}`,
      tipoDoc: '5',
      estado: 'aceptado',
      numeroReferencia: 7,
    });
    await withTenant(ctx.db, 'umbrella', (tx) =>
      tx.query(
        'UPDATE documents SET clave_recibida = $2, consecutivo = $3 WHERE tenant_id = $1 AND id = $4',
        ['umbrella', received, consecutivo, answer.id],
      ),
    );

    const res = await list('umbrella').expect(200);
    expect(res.body.data).toEqual([
      expect.objectContaining({ clave: received, tipoDoc: '5', consecutivo, total: null, moneda: null }),
    ]);
    const opened = await post(ctx, 'umbrella', '/api/consultar/documento', { clave: received }).expect(200);
    expect(opened.body.data).toMatchObject({ clave: received, tipoDoc: '5', consecutivo });
  });

  it('when an export invoice to a foreign receptor was stored before its receptor was kept, then migration 0101 reads it back from the XML and the list shows and finds it', async () => {
    // As submissions stored a receptor of Tipo 05 before: no receptor_* columns, the XML naming it.
    const fee = await insertTestDocument(ctx.db, 'hooli', {
      tipoDoc: '9',
      numeroReferencia: 9,
      xml: signedExportInvoiceXml(),
    });
    const national = await insertTestDocument(ctx.db, 'hooli', { tipoDoc: '1', numeroReferencia: 1 });
    expect((await list('hooli').expect(200)).body.data.map((d: { receptor: unknown }) => d.receptor)).toEqual(
      [null, null],
    );

    await ctx.db.query(readFileSync(join(MIGRATIONS, '0101_documents_foreign_receptor.sql'), 'utf8'));

    const found = await list('hooli', { receptor: 'US123456789' }).expect(200);
    expect(found.body.data).toEqual([
      expect.objectContaining({ clave: fee.clave, receptor: { tipo: '05', numero: 'US123456789' } }),
    ]);
    // A national receptor's XML is not read: its columns are written when it is submitted.
    const all = (await list('hooli').expect(200)).body.data;
    expect(all.find((d: { clave: string }) => d.clave === national.clave).receptor).toBeNull();
  });

  it('when globex lists, then it sees only its own document, even searching for acme’s clave', async () => {
    expect(numbers((await list('globex').expect(200)).body)).toEqual([99]);
    const search = await list('globex', { q: claves.get(11)! }).expect(200);
    expect(search.body.data).toEqual([]);
  });

  it.each([
    [{ tipo: '1' }, [15, 12, 11]],
    [{ estado: 'aceptado' }, [13, 11]],
    [{ tipo: '1', estado: 'rechazado' }, [12]],
    [{ receptor: RECEPTOR.numero }, [14, 12, 11]],
    // Costa Rica days (UTC−06:00): 2026-11-20 runs from 06:00Z on the 20th to 06:00Z on the 21st.
    [{ desde: '2026-11-21' }, [15, 14]],
    [{ hasta: '2026-11-20' }, [13, 12, 11]],
    [{ desde: '2026-11-20', hasta: '2026-11-20' }, [13, 12]],
    [{ hasta: '2026-11-19' }, [11]],
  ] as const)('when filtered by %j, then %j', async (query, expected) => {
    expect(numbers((await list('acme', query).expect(200)).body)).toEqual(expected);
  });

  it('when searched by text, then a part of the clave, the consecutivo or the numeroReferencia finds it, and LIKE wildcards are literal', async () => {
    const clave = claves.get(12)!;
    expect(numbers((await list('acme', { q: clave.slice(10, 48) }).expect(200)).body)).toEqual([12]);
    expect(numbers((await list('acme', { q: '13' }).expect(200)).body)).toContain(13);
    expect((await list('acme', { q: '%' }).expect(200)).body.data).toEqual([]);
    expect((await list('acme', { q: '_' }).expect(200)).body.data).toEqual([]);
  });

  it('when paged two at a time, then the cursors walk every document once, newest first, and a new document does not shift them', async () => {
    const first = await list('acme', { limite: '2' }).expect(200);
    expect(numbers(first.body)).toEqual([15, 14]);
    // A document emitted after the walk began sorts before the cursor: the next pages are unchanged.
    await insertTestDocument(ctx.db, 'acme', { fechaEmision: '2026-11-23T00:00:00Z', numeroReferencia: 16 });
    const second = await list('acme', { limite: '2', cursor: first.body.cursor }).expect(200);
    expect(numbers(second.body)).toEqual([13, 12]);
    const third = await list('acme', { limite: '2', cursor: second.body.cursor }).expect(200);
    expect(numbers(third.body)).toEqual([11]);
    expect(third.body.cursor).toBeNull();
    const filtered = await list('acme', { tipo: '1', limite: '1' }).expect(200);
    const next = await list('acme', { tipo: '1', limite: '1', cursor: filtered.body.cursor }).expect(200);
    expect([...numbers(filtered.body), ...numbers(next.body)]).toEqual([16, 15]);
  });

  it.each([
    [{ tipo: '11' }, 'tipo: must be one of 1, 2, 3, 4, 5, 6, 7, 8, 9, 10'],
    [{ estado: 'anulado' }, 'estado: must be one of pendiente, enviado, aceptado, rechazado, error'],
    [{ desde: '2026-13-45' }, 'desde: must be a date YYYY-MM-DD'],
    [{ hasta: 'ayer' }, 'hasta: must be a date YYYY-MM-DD'],
    [
      { receptor: '12-34' },
      'receptor: must be an identification number (1 to 20 letters or digits, no hyphens)',
    ],
    [
      { receptor: 'X'.repeat(21) },
      'receptor: must be an identification number (1 to 20 letters or digits, no hyphens)',
    ],
    [{ q: 'x'.repeat(51) }, 'q: must be 1..50 characters'],
    [{ limite: '0' }, 'limite: must be an integer 1..200'],
    [{ limite: 'diez' }, 'limite: must be an integer 1..200'],
    [{ cursor: 'not-a-cursor' }, 'cursor: is not a cursor this API returned'],
    [
      { cursor: Buffer.from('{"f":"2026-01-01","i":"x"}').toString('base64url') },
      'cursor: is not a cursor this API returned',
    ],
    [{ estados: 'aceptado' }, 'estados: unknown query parameter'],
  ] as const)('when the query is %j, then 400 naming the field', async (query, message) => {
    const res = await list('acme', query).expect(400);
    expect(res.body).toMatchObject({ error: 'bad_request', message });
  });

  it('when a filter is given twice, then 400 naming it', async () => {
    const res = await request(ctx.app)
      .get('/api/documentos?estado=aceptado&estado=rechazado')
      .set('Host', ctx.host('acme'))
      .set('Authorization', `Bearer ${ctx.forge.token('acme')}`)
      .expect(400);
    expect(res.body).toMatchObject({ error: 'bad_request', message: 'estado: must be given once' });
  });
});

describe('GET /api/emisores', () => {
  function emisores(tenant: string) {
    return request(ctx.app)
      .get('/api/emisores')
      .set('Host', ctx.host(tenant))
      .set('Authorization', `Bearer ${ctx.forge.token(tenant)}`);
  }

  it('when the tenant has issuers, then each is listed with its certificate’s days left and the ones about to expire flagged; another tenant’s are not', async () => {
    const soon = new Date(Date.now() + 10 * 86_400_000);
    await post(ctx, 'acme', '/api/enviar/emisor', issuerBody({ identificacion: 3101123456 })).expect(200);
    await post(
      ctx,
      'acme',
      '/api/enviar/emisor',
      issuerBody({ identificacion: 3101654321 }, { notAfter: soon, keyIndex: 1 }),
    ).expect(200);
    await post(ctx, 'globex', '/api/enviar/emisor', issuerBody({ identificacion: 3101999888 })).expect(200);

    const res = await emisores('acme').expect(200);
    expect(res.body.data.map((e: { identificacion: number }) => e.identificacion)).toEqual([
      3101123456, 3101654321,
    ]);
    const [current, expiring] = res.body.data;
    expect(current).toMatchObject({ porVencer: false, nombreComercial: 'Acme Soluciones' });
    expect(current.diasParaVencer).toBeGreaterThan(365);
    expect(expiring).toMatchObject({ porVencer: true, diasParaVencer: 9 });
    expect(expiring.certificado.vence).toBe(new Date(Math.floor(soon.getTime() / 1000) * 1000).toISOString());
    expect(JSON.stringify(res.body)).not.toMatch(/pin|clave|certificadoHacienda|3101999888/i);

    const globex = await emisores('globex').expect(200);
    expect(globex.body.data.map((e: { identificacion: number }) => e.identificacion)).toEqual([3101999888]);
  });

  it('when the tenant has no issuer, then an empty list', async () => {
    expect((await emisores('initech').expect(200)).body).toEqual({ status: 'success', data: [] });
  });
});
