// POST /api/enviar/items checks every CABYS code before the document is signed (ADR 0066): a code the local
// catalogue has passes without a call; any other is asked of Hacienda's /fe/cabys?codigo=, and one Hacienda
// says does not exist is a 400 naming the field, before a consecutivo is spent. When Hacienda cannot be asked
// (down, or the tenant's window of lookups used up), the document goes on and Hacienda judges it. Hacienda's
// public API here is a fake in this process that answers as the real one (an array, empty for an unknown code)
// and records what reaches it; the local catalogue is a small real one that lacks the "new" codes.
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCabysIndex, createCabysSearch } from '@cr/cabys';
import { createLookupLimiter } from '../src/lookups/tenant-lookup-limit';
import { post } from './support/client';
import { documentBody } from './support/document-mother';
import { issuerBody } from './support/issuer-mother';
import { type TestApp, startTestApp, testPublicApi } from './support/test-app';

jest.setTimeout(120_000);

/** The mothers' line code: in the local catalogue. */
const SERVICE = '8314300000000';
/** Real codes the local catalogue below lacks (a copy older than Hacienda's, say), and Hacienda has. */
const NEW_SERVICE = '8111100000000';
const NEW_GOODS = '2391102010100';
const HACIENDA_CATALOGUE = new Set([SERVICE, NEW_SERVICE, NEW_GOODS]);

const local = createCabysSearch({
  index: createCabysIndex([{ codigo: SERVICE, descripcion: 'Servicios informáticos', impuesto: 13 }]),
});

/** The codes /fe/cabys was asked for, each try counted. */
const asked: string[] = [];
let down = false;
let hacienda: Server;
let url = '';
let ctx: TestApp;

beforeAll(async () => {
  hacienda = createServer((req, res) => {
    req.resume();
    const query = new URL(req.url ?? '/', 'http://hacienda').searchParams;
    const codigo = query.get('codigo');
    if (req.method !== 'GET' || !req.url?.startsWith('/fe/cabys?') || !codigo) {
      res.statusCode = 404;
      res.end('{}');
      return;
    }
    asked.push(codigo);
    if (down) {
      res.statusCode = 503;
      res.end('Service Unavailable');
      return;
    }
    res.setHeader('Content-Type', 'application/json');
    const items = HACIENDA_CATALOGUE.has(codigo)
      ? [
          {
            codigo,
            descripcion: 'Descripción',
            categorias: [],
            impuesto: 13,
            uri: `/fe/cabys?codigo=${codigo}`,
          },
        ]
      : [];
    res.end(JSON.stringify(items));
  });
  await new Promise<void>((resolve) => hacienda.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(hacienda.address() as AddressInfo).port}`;
  ctx = await startTestApp({ cabys: local, publicApi: testPublicApi(url) });
  expect((await post(ctx, 'acme', '/api/enviar/emisor', issuerBody())).status).toBe(200);
});
afterAll(async () => {
  await ctx?.close();
  await new Promise<void>((resolve) => hacienda.close(() => resolve()));
});
beforeEach(() => {
  asked.length = 0;
  down = false;
});

const stored = async (app: TestApp) =>
  Number((await app.db.query<{ n: string }>('SELECT count(*) AS n FROM documents')).rows[0]!.n);

/** An invoice of the mother (two lines of SERVICE) whose second line has `codigo`. */
function invoiceWith(numero: number, codigo: string) {
  const body = documentBody('invoice', numero);
  body.detalleServicio[1]!.codigo = codigo;
  return body;
}

describe('POST /api/enviar/items: CABYS codes Hacienda does not have', () => {
  it("when a line's code is not in Hacienda's catalogue, then 400 naming that line, nothing stored, and the number stays free", async () => {
    const before = await stored(ctx);

    const refused = await post(ctx, 'acme', '/api/enviar/items', invoiceWith(41, '9999999999999'));

    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      error: 'bad_request',
      message: expect.stringContaining("CABYS 9999999999999 is not in Hacienda's catalogue"),
      details: [
        { path: 'detalleServicio[1].codigo', reason: "CABYS 9999999999999 is not in Hacienda's catalogue" },
      ],
    });
    expect(await stored(ctx)).toBe(before);
    // Only the code the local catalogue lacks was asked.
    expect(asked).toEqual(['9999999999999']);

    // The corrected document takes the same consecutivo: the refusal spent none.
    const accepted = await post(ctx, 'acme', '/api/enviar/items', documentBody('invoice', 41));
    expect(accepted.status).toBe(200);
    const { rows } = await ctx.db.query<{ consecutivo: string }>(
      'SELECT consecutivo FROM documents WHERE clave = $1',
      [accepted.body.clave],
    );
    expect(rows[0]!.consecutivo).toBe('00100001010000000041');
    expect(accepted.body.clave.slice(21, 41)).toBe('00100001010000000041');
  });
});

describe('POST /api/enviar/items: codes the local catalogue lacks but Hacienda has', () => {
  it('when a code is new to the local catalogue, then Hacienda confirms it, the document is accepted, and the next one uses the cached answer', async () => {
    const before = await stored(ctx);

    const first = await post(ctx, 'acme', '/api/enviar/items', invoiceWith(42, NEW_SERVICE));
    const second = await post(ctx, 'acme', '/api/enviar/items', invoiceWith(43, NEW_SERVICE));

    expect([first.status, second.status]).toEqual([200, 200]);
    expect(await stored(ctx)).toBe(before + 2);
    expect(asked).toEqual([NEW_SERVICE]);
  });
});

describe('POST /api/enviar/items when the CABYS check cannot run', () => {
  it("when Hacienda's public API is down, then the document is accepted and a warning names the code", async () => {
    down = true;
    const before = await stored(ctx);

    const res = await post(ctx, 'acme', '/api/enviar/items', invoiceWith(44, '9999999999998'));

    expect(res.status).toBe(200);
    expect(await stored(ctx)).toBe(before + 1);
    // The client's tries (one and its retries), then nothing more.
    expect(asked.length).toBeGreaterThan(0);
    expect(new Set(asked)).toEqual(new Set(['9999999999998']));
    const warning = ctx.log.lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => Array.isArray(l.codes) && (l.codes as string[]).includes('9999999999998'));
    expect(warning).toMatchObject({
      level: 'warn',
      message: expect.stringContaining('Hacienda will judge them'),
      tenantId: 'acme',
    });
  });

  it("when the tenant's window of lookups is used up, then the document is accepted, not refused with 429", async () => {
    const tight = await startTestApp({
      cabys: local,
      publicApi: testPublicApi(url),
      lookupLimiter: createLookupLimiter({ limit: 1, windowSeconds: 3_600 }),
    });
    try {
      expect((await post(tight, 'acme', '/api/enviar/emisor', issuerBody())).status).toBe(200);
      // The one slot of the window: Hacienda confirms the new code.
      expect((await post(tight, 'acme', '/api/enviar/items', invoiceWith(1, NEW_GOODS))).status).toBe(200);
      expect(asked).toEqual([NEW_GOODS]);

      const res = await post(tight, 'acme', '/api/enviar/items', invoiceWith(2, '9999999999997'));

      expect(res.status).toBe(200);
      expect(await stored(tight)).toBe(2);
      expect(asked).toEqual([NEW_GOODS]);
      // The window is indeed used up: a lookup of the tenant's is refused.
      const lookup = await post(tight, 'acme', '/api/hacienda/exoneracion', {
        exoneracion: 'AL-00020402-24',
      });
      expect(lookup.status).toBe(429);
    } finally {
      await tight.close();
    }
  });
});
