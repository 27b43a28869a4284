import { post } from './support/client';
import { insertTestDocument } from './support/documents';
import { type TestApp, startTestApp } from './support/test-app';

// The production policy: public https targets only.
let ctx: TestApp;
beforeAll(async () => {
  ctx = await startTestApp({ webhooks: { allowPrivateTargets: false } });
});
afterAll(() => ctx.close());

async function expectUrlRefused(body: unknown, reason: RegExp): Promise<void> {
  const res = await post(ctx, 'acme', '/api/configurar/webhook', body);
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ error: 'bad_request', message: expect.stringMatching(/^url: /) });
  expect(res.body.details).toEqual([{ path: 'url', reason: expect.stringMatching(reason) }]);
}

describe('webhooks: bad configuration', () => {
  it.each([
    ['plain http to a public host', 'http://erp.example.com/hook', /must use https/],
    [
      'plain http to loopback when private targets are not allowed',
      'http://127.0.0.1:8080/hook',
      /must use https/,
    ],
    ['a private IPv4 address', 'https://10.0.0.5/hook', /private, loopback or reserved/],
    [
      'the cloud metadata address',
      'https://169.254.169.254/latest/meta-data',
      /private, loopback or reserved/,
    ],
    ['a loopback address', 'https://127.0.0.1/hook', /private, loopback or reserved/],
    ['an IPv6 loopback', 'https://[::1]/hook', /private, loopback or reserved/],
    [
      'an IPv4-mapped private IPv6 address',
      'https://[::ffff:192.168.1.10]/hook',
      /private, loopback or reserved/,
    ],
    ['localhost by name', 'https://localhost/hook', /private, loopback or reserved/],
    ['credentials in the URL', 'https://user:pass@erp.example.com/hook', /credentials/],
    ['not a URL', 'not a url', /absolute URL/],
    ['another scheme', 'ftp://erp.example.com/hook', /must use https/],
    ['a host that does not resolve', 'https://hooks.example.invalid/hook', /could not be resolved/],
  ])('when the url is %s, then 400 naming url', async (_name, url, reason) => {
    await expectUrlRefused({ url }, reason);
  });

  it.each([
    ['a number', { url: 42 }, /string/],
    ['null', { url: null }, /string/],
    ['missing', {}, /required/],
    ['empty', { url: '' }, /fewer than 1|at least 1|must NOT have fewer/],
  ])('when the url is %s, then 400 naming url', async (_name, body, reason) => {
    await expectUrlRefused(body, reason);
  });

  it('when the body has an unknown field or is not an object, then 400, never a 5xx', async () => {
    const extra = await post(ctx, 'acme', '/api/configurar/webhook', { url: 'https://a.example', x: 1 });
    expect(extra.status).toBe(400);
    const array = await post(ctx, 'acme', '/api/configurar/webhook', ['https://a.example']);
    expect(array.status).toBe(400);
    expect(array.body.error).toBe('bad_request');
  });

  it('when nothing was configured, then consultar is 404 not_found', async () => {
    const res = await post(ctx, 'acme', '/api/consultar/webhook', {});
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({
      error: 'not_found',
      message: expect.stringContaining('configurar/webhook'),
    });
  });

  it('when a refused URL was posted, then nothing was stored', async () => {
    const raw = await ctx.db.query('SELECT count(*)::int AS n FROM webhook_endpoints');
    expect(raw.rows[0]).toEqual({ n: 0 });
  });
});

describe('webhooks: bad replays', () => {
  it.each([
    ['missing', {}],
    ['too short', { clave: '506123' }],
    ['not digits', { clave: 'x'.repeat(50) }],
    ['a number', { clave: 5 }],
  ])('when the clave is %s, then 400 naming clave', async (_name, body) => {
    const res = await post(ctx, 'acme', '/api/reenviar/webhook', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'bad_request', message: expect.stringMatching(/^clave: /) });
  });

  it('when the clave is unknown, then 404 naming it', async () => {
    const clave = '5'.repeat(50);
    const res = await post(ctx, 'acme', '/api/reenviar/webhook', { clave });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: 'not_found', message: `clave: document ${clave} not found` });
  });

  it('when the document is still pendiente, then 409 conflict and no job is queued', async () => {
    const doc = await insertTestDocument(ctx.db, 'acme', { estado: 'pendiente' });
    const res = await post(ctx, 'acme', '/api/reenviar/webhook', { clave: doc.clave });
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('conflict');
    const jobs = await ctx.db.query("SELECT count(*)::int AS n FROM jobs WHERE queue = 'webhook.deliver'");
    expect(jobs.rows[0]).toEqual({ n: 0 });
  });
});
