// POST /api/recepcion/sincronizar costs Hacienda's patience with the issuer's credentials (up to 20 listing
// pages and a thousand reads a call, the same claves read again on every call in production) and imports on
// the event loop every tenant shares. A tenant calling it in a loop is refused past RECEPCION_SYNC_LIMIT per
// window (429 with Retry-After) before anything reaches Hacienda, and a call counts as one of the tenant's
// uploads in progress (RECEPCION_UPLOADS_PER_TENANT). Another tenant's window is its own. Hacienda here is a
// fake in this process (its IdP and GET /comprobantes), counting what reaches it.
import { latch } from '@cr/testkit';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTenantLimiter } from '../src/tenancy/tenant-rate-limit';
import { TenantConcurrency } from '../src/tenancy/tenant-concurrency';
import { post } from './support/client';
import { RECEIVER_ID, registerReceiver } from './support/supplier-documents';
import { haciendaSettingsFor } from './support/hacienda-sandbox';
import { type TestApp, startTestApp } from './support/test-app';

jest.setTimeout(60_000);

/** What reached the fake Hacienda: token grants and listing pages. */
const reached = { tokens: 0, listings: 0 };
let hacienda: Server;
let ctx: TestApp;
/** The app's RECEPCION_UPLOADS_PER_TENANT gate, at 1: a test holds it to see the call refused. */
const uploads = new TenantConcurrency('uploads', 1);

beforeAll(async () => {
  hacienda = createServer((req, res) => {
    req.resume();
    res.setHeader('Content-Type', 'application/json');
    if (req.method === 'POST' && req.url?.endsWith('/token')) {
      reached.tokens += 1;
      res.end(JSON.stringify({ access_token: 'fake-access-token', expires_in: 300 }));
    } else if (req.method === 'GET' && req.url?.startsWith('/recepcion/v1/comprobantes?')) {
      reached.listings += 1;
      res.end('[]');
    } else {
      res.statusCode = 404;
      res.end('{}');
    }
  });
  await new Promise<void>((resolve) => hacienda.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(hacienda.address() as AddressInfo).port}`;
  ctx = await startTestApp({
    checkExonerations: false,
    hacienda: haciendaSettingsFor(url),
    recepcionSyncLimiter: createTenantLimiter('received document synchronizations', {
      limit: 2,
      windowSeconds: 3_600,
    }),
    recepcionUploads: uploads,
  });
  for (const tenant of ['acme', 'other', 'gated']) await registerReceiver(ctx, tenant);
});
afterAll(async () => {
  await ctx.close();
  await new Promise<void>((resolve) => hacienda.close(() => resolve()));
});

const synchronize = (tenant: string) =>
  post(ctx, tenant, '/api/recepcion/sincronizar', { receptor: RECEIVER_ID });

describe('POST /api/recepcion/sincronizar: per-tenant limits', () => {
  it('when a tenant has used its window, then the next call is 429 with Retry-After and Hacienda is not asked, while another tenant is still served', async () => {
    for (let i = 0; i < 2; i += 1) {
      const ok = await synchronize('acme');
      expect(ok.status).toBe(200);
      expect(ok.body.data).toMatchObject({ listados: 0, importados: [] });
    }
    expect(reached.listings).toBe(2);

    const refused = await synchronize('acme');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      error: 'too_many_requests',
      message: expect.stringMatching(
        /^too many synchronizations with Hacienda for this tenant; retry in \d+ s$/,
      ),
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3_000);
    expect(reached.listings).toBe(2);

    const other = await synchronize('other');
    expect(other.status).toBe(200);
    expect(reached.listings).toBe(3);
  });

  it("when the tenant's uploads gate is full, then the call is 429 before Hacienda, and its window keeps the slot", async () => {
    const before = reached.listings;
    const { promise: holding, release } = latch();
    const held = uploads.run('gated', () => holding);
    try {
      const refused = await synchronize('gated');
      expect(refused.status).toBe(429);
      expect(refused.body.message).toBe('too many uploads at once for this tenant; retry in 1 s');
      expect(refused.headers['retry-after']).toBe('1');
      expect(reached.listings).toBe(before);
    } finally {
      release();
      await held;
    }
    // Refused at the gate, it took no slot of the window: two calls still pass.
    for (let i = 0; i < 2; i += 1) expect((await synchronize('gated')).status).toBe(200);
    expect(reached.listings).toBe(before + 2);
  });
});
