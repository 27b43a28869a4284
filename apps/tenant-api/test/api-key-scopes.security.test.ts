// API-key tokens (issue 11, item 3) reach only the routes their scopes allow, through one table
// (TENANT_API_ROUTE_SCOPES in packages/contracts); password tokens (no scope claim) keep every route; a
// revoked key's tokens are refused from the next poll.
import { TENANT_API_ROUTE_SCOPES, listRoutes } from '@cr/contracts';
import request from 'supertest';
import { post } from './support/client';
import { type TestApp, startTestApp } from './support/test-app';

let ctx: TestApp;
beforeAll(async () => {
  ctx = await startTestApp();
  await ctx.revocations.sync();
});
afterAll(() => ctx.close());

const keyToken = (scope: string, akid = 'Hk3v9QwLx2Tb7mPa') => ctx.forge.token('acme', { scope, akid });

describe('the route scope table', () => {
  it('when the app router is walked, then every /api route has a scope and every entry is a served route', () => {
    const served = listRoutes(ctx.app)
      .filter((r) => r.path.startsWith('/api/'))
      .map((r) => `${r.method.toUpperCase()} ${r.path}`);
    expect(served.length).toBeGreaterThan(20);
    expect(served.filter((route) => !(route in TENANT_API_ROUTE_SCOPES))).toEqual([]);
    expect(Object.keys(TENANT_API_ROUTE_SCOPES).filter((route) => !served.includes(route))).toEqual([]);
  });
});

describe('scopes', () => {
  it('when a documents:read key submits a document or looks up CABYS, then 403 naming the scope it lacks', async () => {
    const token = keyToken('documents:read');
    const submit = await post(ctx, 'acme', '/api/enviar/items', { any: 'body' }, token);
    expect(submit.status).toBe(403);
    expect(submit.body).toMatchObject({
      error: 'forbidden',
      message: expect.stringContaining('documents:write'),
    });
    expect(submit.headers['www-authenticate']).toContain('insufficient_scope');
    const cabys = await post(ctx, 'acme', '/api/hacienda/cabys', { q: 'cafe' }, token);
    expect(cabys.status).toBe(403);
    expect(cabys.body.message).toContain('lookups:read');
    const issuer = await post(ctx, 'acme', '/api/enviar/emisor', {}, token);
    expect(issuer.status).toBe(403);
  });

  it.each([
    ['/api/configurar/webhook/', 'a trailing slash'],
    ['/api/Configurar/Webhook', 'another letter case'],
    ['/api/CONFIGURAR/webhook/', 'both'],
  ])('when a documents:read key writes %s (%s), then 403 and no webhook is configured', async (path) => {
    const res = await post(
      ctx,
      'acme',
      path,
      { url: 'https://hooks.example.com/stolen' },
      keyToken('documents:read'),
    );
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      error: 'forbidden',
      message: expect.stringContaining('no API key scope'),
    });
    expect(res.body.data).toBeUndefined();
    const stored = await ctx.db.query("SELECT 1 FROM webhook_endpoints WHERE tenant_id = 'acme'");
    expect(stored.rowCount).toBe(0);
  });

  it('when a key calls a path no route serves, then 403 (a scoped token reaches only the table)', async () => {
    const res = await post(ctx, 'acme', '/api/no-such-route', {}, keyToken('documents:read documents:write'));
    expect(res.status).toBe(403);
    // A password token is still told there is no such route.
    expect((await post(ctx, 'acme', '/api/no-such-route', {})).status).toBe(404);
  });

  it('when the key has the scope, then the route runs (its own answer, not 403)', async () => {
    const list = await request(ctx.app)
      .get('/api/documentos')
      .set('Host', ctx.host('acme'))
      .set('Authorization', `Bearer ${keyToken('documents:read')}`);
    expect(list.status).toBe(200);
    const pdf = await request(ctx.app)
      .get(`/api/descargar/${'5'.repeat(50)}/pdf`)
      .set('Host', ctx.host('acme'))
      .set('Authorization', `Bearer ${keyToken('documents:read')}`);
    expect(pdf.status).toBe(404);
    const submit = await post(ctx, 'acme', '/api/enviar/items', {}, keyToken('documents:write'));
    expect(submit.status).toBe(400);
  });

  it('when a password token (no scope claim) calls any route, then scopes do not apply', async () => {
    for (const [path, body] of [
      ['/api/enviar/items', {}],
      ['/api/consultar/webhook', {}],
      ['/api/enviar/emisor', {}],
    ] as const) {
      const res = await post(ctx, 'acme', path, body);
      expect([path, res.status]).not.toEqual([path, 403]);
    }
  });

  it('when a key is revoked, then its tokens are refused after the poll while the password token passes', async () => {
    const token = keyToken('documents:read', 'RevokedKey000000');
    const get = (bearer: string) =>
      request(ctx.app)
        .get('/api/documentos')
        .set('Host', ctx.host('acme'))
        .set('Authorization', `Bearer ${bearer}`);
    expect((await get(token)).status).toBe(200);
    ctx.forge.revokedSubjects.push({
      sub: 'apikey:RevokedKey000000',
      notBefore: Math.floor(Date.now() / 1000) + 1,
    });
    expect(await ctx.revocations.sync()).toBe(true);
    const refused = await get(token);
    expect(refused.status).toBe(401);
    expect(refused.body.message).toBe('token has been revoked');
    expect((await get(ctx.forge.token('acme'))).status).toBe(200);
    expect((await get(keyToken('documents:read', 'AnotherKey000000'))).status).toBe(200);
  });
});
