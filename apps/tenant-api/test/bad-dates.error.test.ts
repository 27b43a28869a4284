// Dates that do not exist or that no real document can carry: listing filters (2026-02-31, which Date rolls
// into March and PostgreSQL refuses; 9999-12-31, whose next day has five digits), forged cursors naming such
// dates, and a supplier's FechaEmision of the year 50 or 9999. Each is a 400 naming the field, never a 500
// from the database or the deadline calendar, on the real database and app.
import { get as getAs, post } from './support/client';
import { insertTestDocument } from './support/documents';
import {
  RECEIVER_ID,
  b64,
  registerReceiver,
  storedReceivedCount,
  supplierInvoice,
  supplierInvoiceDated,
} from './support/supplier-documents';
import { type TestApp, startTestApp } from './support/test-app';

jest.setTimeout(120_000);

let ctx: TestApp;

const get = (path: string, query: Record<string, string> = {}) => getAs(ctx, 'acme', path).query(query);

const cursor = (position: object) => Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');

const storedCount = () => storedReceivedCount(ctx);

beforeAll(async () => {
  ctx = await startTestApp({ checkExonerations: false });
  await registerReceiver(ctx);
  await insertTestDocument(ctx.db, 'acme', { fechaEmision: '2026-02-28T18:00:00Z', numeroReferencia: 1 });
});
afterAll(() => ctx.close());

describe.each(['/api/documentos', '/api/recepcion/documentos'])('GET %s date filters', (path) => {
  it.each([
    [{ desde: '2026-02-31' }, 'desde: must be a date YYYY-MM-DD'],
    [{ desde: '2026-04-31' }, 'desde: must be a date YYYY-MM-DD'],
    [{ hasta: '2026-02-29' }, 'hasta: must be a date YYYY-MM-DD'],
    [{ hasta: '0000-01-01' }, 'hasta: must be a date YYYY-MM-DD'],
    [{ hasta: '9999-12-31' }, 'hasta: must be from 2000-01-01 to 9998-12-31'],
    [{ desde: '1999-12-31' }, 'desde: must be from 2000-01-01 to 9998-12-31'],
  ] as const)('when the query is %j, then 400 naming the field', async (query, message) => {
    const res = await get(path, query);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'bad_request', message });
  });

  it('when the dates are the last ones accepted and a leap day, then 200', async () => {
    expect((await get(path, { desde: '2000-01-01', hasta: '9998-12-31' })).status).toBe(200);
    expect((await get(path, { desde: '2024-02-29', hasta: '2028-02-29' })).status).toBe(200);
  });
});

describe('forged cursors', () => {
  const id = '0f8a4a3e-5b7c-4d1e-9f20-3c6b8d9e1a2b';

  it.each([
    ['/api/documentos', { f: '2026-13-45T99:99:99.000000Z', i: id }],
    ['/api/documentos', { f: '2026-02-31T12:00:00.000000Z', i: id }],
    ['/api/documentos', { f: '0000-01-01T00:00:00.000000Z', i: id }],
    ['/api/recepcion/documentos', { rank: 0, vence: '2026-99-99', id }],
    ['/api/recepcion/documentos', { rank: 1, vence: '2026-02-30', id }],
    ['/api/recepcion/documentos', { rank: 0, vence: '0000-12-01', id }],
    ['/api/recepcion/documentos', { rank: 0, vence: 20261201, id }],
  ] as const)('when %s gets the cursor %j, then 400 naming the cursor', async (path, position) => {
    const res = await get(path, { cursor: cursor(position) });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: 'bad_request',
      message: 'cursor: is not a cursor this API returned',
    });
  });

  it('when a cursor names real dates, then the listing continues after it', async () => {
    const docs = await get('/api/documentos', {
      cursor: cursor({ f: '2026-03-01T00:00:00.000000Z', i: id }),
    });
    expect(docs.status).toBe(200);
    expect(docs.body.data.map((d: { numeroReferencia: number }) => d.numeroReferencia)).toEqual([1]);
    const received = await get('/api/recepcion/documentos', {
      cursor: cursor({ rank: 0, vence: '2024-02-29', id }),
    });
    expect(received.status).toBe(200);
  });
});

describe('POST /api/recepcion/documentos FechaEmision', () => {
  const inDays = (days: number) => {
    const at = new Date(Date.now() + days * 86_400_000 - 6 * 3_600_000);
    return `${at.toISOString().slice(0, 19)}-06:00`;
  };

  it.each([
    ['0050-06-15T10:00:00-06:00', '0050-06-15T10:00:00-06:00', 701],
    ['9999-12-15T10:00:00-06:00', '9999-12-15T10:00:00-06:00', 702],
    ['2017-12-31T23:59:59-06:00', '2017-12-31T23:59:59-06:00', 703],
    ['three days from now', inDays(3), 704],
  ])(
    'when a signed supplier FE is dated %s, then 400 naming FechaEmision and nothing stored',
    async (_, fecha, n) => {
      const fe = supplierInvoiceDated(n, fecha);
      expect(fe.xml).toContain(`<FechaEmision>${fecha}</FechaEmision>`);
      const before = await storedCount();
      const res = await post(ctx, 'acme', '/api/recepcion/documentos', {
        receptor: RECEIVER_ID,
        xml: b64(fe.xml),
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        error: 'bad_request',
        message: `xml: FechaEmision ${fecha} is not a plausible emission date (from 2018-01-01 to a day from now)`,
      });
      expect(await storedCount()).toBe(before);
    },
  );

  it('when a signed supplier FE is dated early in 2018, then it is received with its deadline', async () => {
    const fe = supplierInvoice(801, { fechaEmision: '2018-01-02T09:00:00-06:00' });
    const res = await post(ctx, 'acme', '/api/recepcion/documentos', {
      receptor: RECEIVER_ID,
      xml: b64(fe.xml),
    });
    expect(res.status).toBe(201);
    // February 2018 begins on a Thursday: its 8th business day is Monday the 12th.
    expect(res.body.data).toMatchObject({ fechaEmision: '2018-01-02T09:00:00-06:00', vence: '2018-02-12' });
  });
});
