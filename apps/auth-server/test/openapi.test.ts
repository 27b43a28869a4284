// The API documentation: every route the app registers is in the OpenAPI document (and nothing more), and
// /openapi.json and /docs are served from this server only.
import { buildAuthServerOpenApi, compareRoutes, listRoutes } from '@cr/contracts';
import request from 'supertest';
import { type Harness, admin, startHarness } from './helpers';

const DOCS_ROUTES = ['/openapi.json', '/docs', '/docs/init.js'];

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('the auth-server OpenAPI document', () => {
  it('when the app router is walked, then every registered route is documented and every documented one is served', () => {
    const routes = listRoutes(h.app);
    // The walker reached the outer app (JWKS), the inner app (login, admin) and its sub-router (admin).
    expect(routes).toEqual(
      expect.arrayContaining([
        { method: 'get', path: '/.well-known/jwks.json' },
        { method: 'post', path: '/login' },
        { method: 'patch', path: '/admin/clients/{base}' },
        { method: 'get', path: '/health/live' },
        { method: 'get', path: '/docs' },
      ]),
    );
    expect(compareRoutes(buildAuthServerOpenApi(), routes, DOCS_ROUTES)).toEqual({
      undocumented: [],
      unserved: [],
    });
  });

  it('when a path parameter of an admin route is malformed, then the route answers a 400 the document lists, and the parameter documents its pattern', async () => {
    type Param = { name: string; in: string; schema: { pattern?: string }; example?: unknown };
    type Operation = {
      parameters?: Param[];
      responses: Record<
        string,
        { content?: Record<string, { examples?: Record<string, { value: unknown }> }> }
      >;
    };
    const paths = buildAuthServerOpenApi().paths as Record<string, Record<string, Operation>>;
    let checked = 0;
    for (const [path, item] of Object.entries(paths).filter(([p]) => p.startsWith('/admin/'))) {
      for (const [method, op] of Object.entries(item)) {
        const params = (op.parameters ?? []).filter((p) => p.in === 'path');
        for (const bad of params) {
          expect([method, path, bad.name, bad.schema.pattern]).toEqual([
            method,
            path,
            bad.name,
            expect.any(String),
          ]);
          expect(new RegExp(bad.schema.pattern!).test('bad!')).toBe(false);
          let url = path;
          for (const p of params) {
            expect([method, path, p.name, p.example]).toEqual([method, path, p.name, expect.any(String)]);
            url = url.replace(`{${p.name}}`, encodeURIComponent(p === bad ? 'bad!' : (p.example as string)));
          }
          const res = await request(h.app)
            [method as 'get' | 'post' | 'patch' | 'delete'](url)
            .set(admin())
            .send({});
          const documented = Object.values(
            op.responses['400']?.content?.['application/json']?.examples ?? {},
          );
          const answered = { error: res.body.error, message: res.body.message };
          expect([method, url, res.status]).toEqual([method, url, 400]);
          expect([method, path, documented.map((e) => e.value)]).toEqual([
            method,
            path,
            expect.arrayContaining([answered]),
          ]);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(6);
  });

  it('when GET /openapi.json, then it is the document built from the contracts', async () => {
    const res = await request(h.app).get('/openapi.json').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual(buildAuthServerOpenApi());
    expect(res.body.openapi).toBe('3.1.0');
  });
});

describe('GET /docs', () => {
  it('when requested without any credential, then it is the viewer page and every asset it names loads from this server', async () => {
    const res = await request(h.app).get('/docs').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('<div id="swagger-ui"></div>');
    expect(res.text).not.toMatch(/(?:https?:)?\/\/[a-z0-9]/i);
    const urls = [...res.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(urls).toEqual(
      expect.arrayContaining([
        '/docs/assets/swagger-ui-bundle.js',
        '/docs/assets/swagger-ui.css',
        '/docs/init.js',
      ]),
    );
    for (const url of urls) {
      expect(url.startsWith('/')).toBe(true);
      const asset = await request(h.app).get(url);
      expect([url, asset.status]).toEqual([url, 200]);
      expect(Number(asset.headers['content-length'] ?? asset.text?.length ?? 0)).toBeGreaterThan(100);
    }
    // Our own scripts only: the default CSP allows same-origin scripts and no inline ones.
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
  });

  it('when the start-up script is read, then it loads our document and never the public validator', async () => {
    const res = await request(h.app).get('/docs/init.js').expect(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.text).toContain('"/openapi.json"');
    expect(res.text).toContain('validatorUrl: null');
  });

  it('when a file of the viewer package that the page does not use is asked for, then it is not served', async () => {
    await request(h.app).get('/docs/assets/index.html').expect(404);
    await request(h.app).get('/docs/assets/swagger-initializer.js').expect(404);
    await request(h.app).get('/docs/assets/..%2Fpackage.json').expect(404);
  });
});
