// The dashboard's cookie session at the HTTP boundary (docs/decisions/0021): the cookie authenticates /api
// when no Authorization header is sent, a state-changing cookie request needs the session's X-CSRF-Token,
// a cookie of one tenant is nothing on another's host, and the Bearer path is what it was. The sign-in
// through a real auth-server is in packages/dashboard's browser tests.
import { createHash } from 'node:crypto';
import request from 'supertest';
import { type TestApp, startTestApp } from './support/test-app';

let ctx: TestApp;
beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(() => ctx.close());

const cookie = (token: string) => `theme=dark; __Host-cr_session=${token}`;
const csrfOf = (token: string) => createHash('sha256').update(token).digest('base64url');

describe('the session cookie on /api', () => {
  it('when a GET carries only the cookie, then it is authenticated without a CSRF header', async () => {
    const token = ctx.forge.token('acme');
    const res = await request(ctx.app)
      .get('/api/documentos')
      .set('Host', ctx.host('acme'))
      .set('Cookie', cookie(token));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'success', data: [], cursor: null });
  });

  it("when /api answers a browser's session, then with Cache-Control: no-store: receptors' data stays out of the browser's disk cache", async () => {
    const token = ctx.forge.token('acme');
    for (const path of ['/api/documentos', '/api/emisores', '/api/recepcion/documentos', '/api/nada']) {
      const res = await request(ctx.app).get(path).set('Host', ctx.host('acme')).set('Cookie', cookie(token));
      expect([path, res.headers['cache-control']]).toEqual([path, 'no-store']);
    }
  });

  it.each([
    ['no X-CSRF-Token', undefined],
    ['an X-CSRF-Token of another token', csrfOf('another.session.token')],
    ['the token itself as X-CSRF-Token', 'TOKEN'],
    ['an empty X-CSRF-Token', ''],
  ])('when a POST carries the cookie and %s, then 403 forbidden and nothing runs', async (_n, header) => {
    const token = ctx.forge.token('acme');
    let req = request(ctx.app)
      .post('/api/configurar/webhook')
      .set('Host', ctx.host('acme'))
      .set('Cookie', cookie(token));
    if (header !== undefined) req = req.set('X-CSRF-Token', header === 'TOKEN' ? token : header);
    const res = await req.send({ url: 'https://hooks.example.com/x' });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      error: 'forbidden',
      message: 'X-CSRF-Token: missing or not this session’s',
    });
    const stored = await ctx.db.query("SELECT 1 FROM webhook_endpoints WHERE tenant_id = 'acme'");
    expect(stored.rowCount).toBe(0);
  });

  it('when a POST carries the cookie and its CSRF value, then it runs', async () => {
    const token = ctx.forge.token('acme');
    const res = await request(ctx.app)
      .post('/api/consultar/webhook')
      .set('Host', ctx.host('acme'))
      .set('Cookie', cookie(token))
      .set('X-CSRF-Token', csrfOf(token))
      .send({});
    expect(res.status).toBe(404);
    expect(res.body.message).toMatch(/no webhook is configured/);
  });

  it("when acme's cookie is sent to globex's host, then 401, as its token would be", async () => {
    const token = ctx.forge.token('acme');
    const res = await request(ctx.app)
      .get('/api/documentos')
      .set('Host', ctx.host('globex'))
      .set('Cookie', cookie(token));
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('token was not issued for this tenant');
  });

  it('when a Bearer token is sent, then the cookie is ignored and no CSRF header is needed', async () => {
    const res = await request(ctx.app)
      .post('/api/consultar/webhook')
      .set('Host', ctx.host('acme'))
      .set('Authorization', `Bearer ${ctx.forge.token('acme')}`)
      .set('Cookie', cookie(ctx.forge.token('globex')))
      .send({});
    expect(res.status).toBe(404);
  });

  it('when the cookie holds an expired or forged token, then 401', async () => {
    for (const token of [
      ctx.forge.token('acme', { exp: Math.floor(Date.now() / 1000) - 3600 }),
      ctx.forge.withBadSignature('acme'),
    ]) {
      const res = await request(ctx.app)
        .get('/api/documentos')
        .set('Host', ctx.host('acme'))
        .set('Cookie', cookie(token));
      expect(res.status).toBe(401);
    }
  });
});

describe('/app/session', () => {
  it('when read with the cookie, then the base, the expiry and the CSRF value (SHA-256 of the token), never the token', async () => {
    const token = ctx.forge.token('acme');
    const res = await request(ctx.app)
      .get('/app/session')
      .set('Host', ctx.host('acme'))
      .set('Cookie', cookie(token));
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      status: 'success',
      data: { base: 'acme', expira: expect.any(String), csrf: csrfOf(token) },
    });
    expect(res.text).not.toContain(token);
  });

  it('when read with a Bearer token instead of the cookie, then 401: it is not a browser session', async () => {
    const res = await request(ctx.app)
      .get('/app/session')
      .set('Host', ctx.host('acme'))
      .set('Authorization', `Bearer ${ctx.forge.token('acme')}`);
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('no dashboard session');
  });

  it('when sign-out comes without the CSRF header, then 403 and the cookie stays', async () => {
    const token = ctx.forge.token('acme');
    const res = await request(ctx.app)
      .delete('/app/session')
      .set('Host', ctx.host('acme'))
      .set('Cookie', cookie(token));
    expect(res.status).toBe(403);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it.each([
    [{ base: 'globex', password: 'x' }, 401, 'invalid_credentials'],
    [{ base: 'acme' }, 400, 'bad_request'],
    [{ base: 'acme', password: 'x', extra: 1 }, 400, 'bad_request'],
  ])('when signing in with %j on acme, then %i %s and no cookie', async (body, status, error) => {
    const res = await request(ctx.app).post('/app/session').set('Host', ctx.host('acme')).send(body);
    expect(res.status).toBe(status);
    expect(res.body.error).toBe(error);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('when /app is asked for on a host that names no tenant, then 404 like every tenant route', async () => {
    const unknown = await request(ctx.app).get('/app/').set('Host', 'localhost');
    expect(unknown.status).toBe(404);
  });
});
