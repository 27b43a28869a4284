// The fallback to Hacienda's public CABYS API, against a fake of it on loopback that answers in Hacienda's
// shape (REFERENCE.md §10.3) and can fail on demand.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppError } from '@cr/service-kit';
import { createCabysIndex, createCabysPublicClient, createCabysSearch } from '../src';

const CATALOGUE = [
  { codigo: '2132100000100', descripcion: 'Jugo de tomate concentrado', impuesto: 13 },
  { codigo: '2132100000200', descripcion: 'Jugo de tomate natural', impuesto: 13 },
  { codigo: '0161001010000', descripcion: 'Café cereza, orgánico', impuesto: 1 },
];

type Mode = 'ok' | 'error' | 'rate-limited' | 'hang' | 'garbage';
let mode: Mode = 'ok';
let server: Server;
let baseUrl: string;
const requests: string[] = [];
const hanging: ServerResponse[] = [];

function answer(req: IncomingMessage, res: ServerResponse) {
  requests.push(req.url ?? '');
  const url = new URL(req.url ?? '/', 'http://x');
  const send = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (mode === 'hang') return void hanging.push(res);
  if (mode === 'error') return send(503, { message: 'Service Unavailable' });
  if (mode === 'rate-limited') return send(429, { message: 'Too Many Requests' });
  if (mode === 'garbage') return send(200, { hello: 'world' });
  if (url.pathname !== '/fe/cabys') return send(404, {});
  const codigo = url.searchParams.get('codigo');
  if (codigo) {
    const hit = CATALOGUE.filter((c) => c.codigo === codigo);
    return hit.length
      ? send(
          200,
          hit.map((c) => ({ ...c, categorias: ['x'] })),
        )
      : send(404, []);
  }
  const fold = (t: string) =>
    t
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase();
  const q = fold(url.searchParams.get('q') ?? '');
  const topN = Number(url.searchParams.get('top') ?? 10);
  const found = CATALOGUE.filter((c) => q.split(' ').every((w) => fold(c.descripcion).includes(w)));
  send(200, {
    total: found.length,
    cantidad: Math.min(found.length, topN),
    cabys: [
      ...found
        .slice(0, topN)
        .map((c) => ({ ...c, categorias: ['a', 'b'], uri: `/fe/cabys?codigo=${c.codigo}` })),
      { codigo: 'not-a-code', descripcion: 'dropped', impuesto: 13 },
    ],
  });
}

beforeAll(async () => {
  server = createServer(answer);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const res of hanging) res.destroy();
  server.closeAllConnections();
  server.close();
});
beforeEach(() => {
  mode = 'ok';
  requests.length = 0;
});

function client(extra: { now?: () => number; timeoutMs?: number } = {}) {
  return createCabysPublicClient({ baseUrl: `${baseUrl}/`, cacheTtlMs: 60_000, ...extra });
}

describe('Hacienda CABYS fallback', () => {
  it('when Hacienda answers, then items are mapped to {codigo, descripcion, impuesto} and bad ones dropped', async () => {
    const c = client();
    expect(await c.search('jugo tomate', { limit: 5 })).toEqual([CATALOGUE[0], CATALOGUE[1]]);
    expect(requests).toEqual(['/fe/cabys?q=jugo+tomate&top=5']);
  });

  it('when the same query comes again within the TTL, then Hacienda is asked once; after it, again', async () => {
    let t = 1_000_000;
    const c = client({ now: () => t });
    await c.search('Jugo tomate');
    await c.search('jugo   TOMATE');
    await c.search('jugo tomate');
    expect(requests).toHaveLength(1);
    t += 60_001;
    await c.search('jugo tomate');
    expect(requests).toHaveLength(2);
  });

  it('when the query is a 13-digit code, then the code lookup is used', async () => {
    const c = client();
    expect(await c.search('2132100000100')).toEqual([CATALOGUE[0]]);
    expect(await c.lookup('0161001010000')).toEqual(CATALOGUE[2]);
    expect(await c.lookup('9999999999999')).toBeUndefined();
    expect(await c.lookup('123')).toBeUndefined();
    expect(requests).toEqual([
      '/fe/cabys?codigo=2132100000100',
      '/fe/cabys?codigo=0161001010000',
      '/fe/cabys?codigo=9999999999999',
    ]);
  });

  it('when the query is blank, then Hacienda is not asked', async () => {
    expect(await client().search('   ')).toEqual([]);
    expect(requests).toEqual([]);
  });

  it.each([
    ['error', /answered HTTP 503/],
    ['rate-limited', /rate limit, HTTP 429/],
    ['garbage', /unreadable answer/],
  ] as const)(
    'when Hacienda fails (%s), then upstream_error (502) with a clear message, and nothing is cached',
    async (m, message) => {
      const c = client();
      mode = m;
      const err = await c.search('cafe').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ code: 'upstream_error', status: 502 });
      expect((err as Error).message).toMatch(message);
      mode = 'ok';
      expect(await c.search('cafe')).toEqual([CATALOGUE[2]]);
    },
  );

  it('when Hacienda does not answer in time, then upstream_error after the timeout', async () => {
    mode = 'hang';
    const err = await client({ timeoutMs: 150 })
      .search('cafe')
      .catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'upstream_error',
      message: 'Hacienda CABYS API did not answer in time',
    });
  });

  it('when Hacienda is unreachable, then upstream_error naming the network failure', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, 'close');
    const err = await createCabysPublicClient({ baseUrl: `http://127.0.0.1:${port}` })
      .search('cafe')
      .catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'upstream_error',
      message: 'Hacienda CABYS API is unreachable (ECONNREFUSED)',
    });
  });
});

describe('createCabysSearch', () => {
  it('when a local catalogue is loaded, then it answers and Hacienda is not asked', async () => {
    const s = createCabysSearch({ index: createCabysIndex(CATALOGUE), fallback: client() });
    expect(s.source).toBe('local');
    expect(await s.search('cafe')).toEqual([CATALOGUE[2]]);
    expect(requests).toEqual([]);
  });

  it('when there is no local catalogue, then the fallback answers', async () => {
    const s = createCabysSearch({ fallback: client() });
    expect(s.source).toBe('hacienda');
    expect(await s.search('cafe')).toEqual([CATALOGUE[2]]);
    expect(requests).toHaveLength(1);
  });

  it('when there is neither, then service_unavailable says what to configure', async () => {
    const s = createCabysSearch({});
    expect(s.source).toBeUndefined();
    await expect(s.search('cafe')).rejects.toMatchObject({ code: 'service_unavailable', status: 503 });
  });
});
