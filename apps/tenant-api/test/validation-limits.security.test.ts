// Request validation as an attack surface. A body of many bad array items once made ajv (allErrors) list
// every problem: 80,000 `{}` lines (240 KB) gave a 75 MB message and seconds of blocked event loop; now a
// 400 lists at most MAX_LISTED_ISSUES problems. A U+0000 character, which PostgreSQL text refuses, once
// reached the database as a 500 (and an error log line); now it is a 400 naming the field or parameter.
import { MAX_LISTED_ISSUES } from '@cr/contracts';
import request from 'supertest';
import { post } from './support/client';
import { documentBody } from './support/document-mother';
import { issuerBody } from './support/issuer-mother';
import { type TestApp, startTestApp } from './support/test-app';

// The machine is shared: starting PGlite and generating RSA keys can take long under load.
jest.setTimeout(120_000);

const NUL = '\u0000';
const NUL_REASON = 'must not contain the NUL character (U+0000)';

let ctx: TestApp;
beforeAll(async () => {
  ctx = await startTestApp();
  expect((await post(ctx, 'acme', '/api/enviar/emisor', issuerBody())).status).toBe(200);
});
afterAll(() => ctx.close());

const count = async (sql: string) => Number((await ctx.db.query<{ n: string }>(sql)).rows[0]!.n);
const countDocuments = () => count('SELECT count(*) AS n FROM documents');
const errorLogLines = () =>
  ctx.log.lines.filter((line) => (JSON.parse(line) as { level: string }).level === 'error').length;

describe('POST /api/enviar/items: a body of many bad items', () => {
  it('when 80,000 empty lines are posted, then a small 400 names detalleServicio and lists a capped number of issues', async () => {
    const body = {
      ...documentBody('invoice', 1),
      detalleServicio: Array.from({ length: 80_000 }, () => ({})),
    };
    const before = await countDocuments();

    const res = await post(ctx, 'acme', '/api/enviar/items', body);

    expect(res.status).toBe(400);
    expect(res.text.length).toBeLessThan(64 * 1024);
    expect(res.body.error).toBe('bad_request');
    expect(res.body.message).toMatch(/detalleServicio/);
    expect(res.body.details.length).toBeGreaterThan(0);
    expect(res.body.details.length).toBeLessThanOrEqual(MAX_LISTED_ISSUES);
    expect(await countDocuments()).toBe(before);
  });

  it('when only the 80,000 empty lines are posted (no other field), then the 400 is still small', async () => {
    const res = await post(ctx, 'acme', '/api/enviar/items', {
      detalleServicio: Array.from({ length: 80_000 }, () => ({})),
    });

    expect(res.status).toBe(400);
    expect(res.text.length).toBeLessThan(64 * 1024);
    expect(res.body.details.length).toBeLessThanOrEqual(MAX_LISTED_ISSUES);
  });

  it('when a small body has more problems than are listed, then the message says how many more there are', async () => {
    // 30 empty lines: small enough to be searched for every problem, ~8 of them per line.
    const body = { ...documentBody('invoice', 2), detalleServicio: Array.from({ length: 30 }, () => ({})) };

    const res = await post(ctx, 'acme', '/api/enviar/items', body);

    expect(res.status).toBe(400);
    expect(res.body.details).toHaveLength(MAX_LISTED_ISSUES);
    expect(res.body.message).toMatch(/detalleServicio\[0\]\.\w+: is required; .*detalleServicio\[1\]/);
    expect(res.body.message).toMatch(/; … and \d+ more$/);
  });
});

describe('U+0000 in a request', () => {
  it('when a listing is searched for a NUL, then 400 naming q', async () => {
    const errors = errorLogLines();
    const res = await request(ctx.app)
      .get('/api/documentos?q=%00abc')
      .set('Host', ctx.host('acme'))
      .set('Authorization', `Bearer ${ctx.forge.token('acme')}`);

    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'bad_request', message: `q: ${NUL_REASON}` });
    expect(errorLogLines()).toBe(errors);
  });

  it('when the PDF footer holds a NUL, then 400 naming pieDePagina and nothing is stored', async () => {
    const errors = errorLogLines();
    const res = await post(ctx, 'acme', '/api/configurar/marca', { pieDePagina: `a${NUL}b` });

    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'bad_request', message: `pieDePagina: ${NUL_REASON}` });
    expect(await count("SELECT count(*) AS n FROM tenant_branding WHERE tenant_id = 'acme'")).toBe(0);
    expect(errorLogLines()).toBe(errors);
  });

  it.each([
    ['nombreComercial', { nombreComercial: `Acme${NUL}Co` }],
    ['usuarioHacienda', { usuarioHacienda: `cpf-01${NUL}` }],
  ])(
    'when an issuer update holds a NUL in %s, then 400 naming it and the issuer is unchanged',
    async (field, change) => {
      const before = await ctx.db.query('SELECT * FROM issuers WHERE tenant_id = $1', ['acme']);
      const errors = errorLogLines();

      const res = await post(ctx, 'acme', '/api/actualizar/emisor', issuerBody(change));

      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'bad_request', message: `${field}: ${NUL_REASON}` });
      expect((await ctx.db.query('SELECT * FROM issuers WHERE tenant_id = $1', ['acme'])).rows).toEqual(
        before.rows,
      );
      expect(errorLogLines()).toBe(errors);
    },
  );

  it('when a copy address holds a NUL, then 400 naming copias[0] and no document is stored', async () => {
    const before = await countDocuments();
    const errors = errorLogLines();

    const res = await post(ctx, 'acme', '/api/enviar/items', {
      ...documentBody('invoice', 3),
      copias: [`a${NUL}@b.cr`],
    });

    expect(res.status).toBe(400);
    expect(res.body.error).toBe('bad_request');
    expect(res.body.message).toContain(`copias[0]: ${NUL_REASON}`);
    expect(await countDocuments()).toBe(before);
    expect(errorLogLines()).toBe(errors);
  });
});
