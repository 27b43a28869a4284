// The API documentation: every route the app registers is in the OpenAPI document (and nothing more), and
// /openapi.json and /docs are served on any host, without a token, from this server only.
import { buildTenantApiOpenApi, compareRoutes, listRoutes } from '@cr/contracts';
import request from 'supertest';
import { type TestApp, startTestApp } from './support/test-app';

const DOCS_ROUTES = ['/openapi.json', '/docs', '/docs/init.js'];

let ctx: TestApp;
beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(() => ctx.close());

describe('the tenant-api OpenAPI document', () => {
  it('when the app router is walked, then every registered route is documented and every documented one is served', () => {
    const routes = listRoutes(ctx.app);
    expect(routes).toEqual(
      expect.arrayContaining([
        { method: 'post', path: '/api/enviar/emisor' },
        { method: 'post', path: '/api/reenviar/webhook' },
        { method: 'post', path: '/api/enviar/items' },
        { method: 'get', path: '/api/descargar/{clave}/respuesta' },
        { method: 'post', path: '/api/hacienda/cabys' },
        { method: 'post', path: '/hacienda/callback/{token}' },
        { method: 'get', path: '/health' },
        { method: 'get', path: '/docs' },
      ]),
    );
    expect(compareRoutes(buildTenantApiOpenApi({ baseDomain: 'localhost' }), routes, DOCS_ROUTES)).toEqual({
      undocumented: [],
      unserved: [],
    });
  });

  it('when a route is added without documenting it, then the comparison names it', () => {
    const routes = [...listRoutes(ctx.app), { method: 'post', path: '/api/enviar/nada' }];
    const doc = buildTenantApiOpenApi();
    delete (doc.paths as Record<string, unknown>)['/api/consultar/webhook'];
    expect(compareRoutes(doc, routes, DOCS_ROUTES)).toEqual({
      undocumented: ['POST /api/consultar/webhook', 'POST /api/enviar/nada'],
      unserved: [],
    });
  });

  it.each(['acme.localhost', 'localhost', 'docs.example.com'])(
    'when GET /openapi.json on host %s without a token, then it is the document for the configured domain',
    async (host) => {
      const res = await request(ctx.app).get('/openapi.json').set('Host', host).expect(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual(buildTenantApiOpenApi({ baseDomain: 'localhost' }));
      expect(res.body.servers[0].url).toBe('https://{tenant}.localhost');
    },
  );
});

describe('GET /docs', () => {
  it('when requested on a host that names no tenant, then it is the viewer page and every asset it names loads from this server', async () => {
    const res = await request(ctx.app).get('/docs').set('Host', 'localhost').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('<title>tenant-api API</title>');
    expect(res.text).not.toMatch(/(?:https?:)?\/\/[a-z0-9]/i);
    const urls = [...res.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(urls.length).toBeGreaterThanOrEqual(4);
    for (const url of urls) {
      expect(url.startsWith('/')).toBe(true);
      const asset = await request(ctx.app).get(url).set('Host', 'acme.localhost');
      expect([url, asset.status]).toEqual([url, 200]);
    }
  });

  it('when a viewer file outside the page is asked for, then 404, and the API itself still needs a tenant host', async () => {
    await request(ctx.app).get('/docs/assets/index.html').set('Host', 'acme.localhost').expect(404);
    const api = await request(ctx.app).post('/api/consultar/webhook').set('Host', 'localhost').send({});
    expect(api.status).toBe(404);
    expect(api.body).toMatchObject({ error: 'not_found', message: 'unknown host' });
  });
});
