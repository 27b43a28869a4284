// Every new route: the shared 401 table, and tenant isolation (another tenant's clave is a plain 404,
// through the routes and through row-level security).
import request from 'supertest';
import { ONE_STATEMENT, withTenant } from '../src/db/with-tenant';
import { get as getAs, post } from './support/client';
import { documentBody } from './support/document-mother';
import { issuerBody } from './support/issuer-mother';
import { describeSecurityTable } from './support/security-cases';
import { type TestApp, startTestApp } from './support/test-app';

jest.setTimeout(120_000);

let ctx: TestApp;
let clave: string;
beforeAll(async () => {
  ctx = await startTestApp();
  expect((await post(ctx, 'acme', '/api/enviar/emisor', issuerBody())).status).toBe(200);
  const res = await post(ctx, 'acme', '/api/enviar/items', documentBody('invoice', 1));
  expect(res.status).toBe(200);
  clave = res.body.clave;
});
afterAll(() => ctx.close());

describeSecurityTable('POST /api/enviar/items', () => ctx, {
  method: 'post',
  path: '/api/enviar/items',
  body: documentBody('invoice', 2),
});
describeSecurityTable('POST /api/consultar/documento', () => ctx, {
  method: 'post',
  path: '/api/consultar/documento',
  body: { clave: '5'.repeat(50) },
});
describeSecurityTable('GET /api/descargar/{clave}/xml', () => ctx, {
  method: 'get',
  path: `/api/descargar/${'5'.repeat(50)}/xml`,
});
describeSecurityTable('GET /api/descargar/{clave}/respuesta', () => ctx, {
  method: 'get',
  path: `/api/descargar/${'5'.repeat(50)}/respuesta`,
});

describe('documents: tenant isolation', () => {
  const get = (tenant: string, path: string) => getAs(ctx, tenant, path);

  it('when the owner consults its document, then it is found', async () => {
    expect((await post(ctx, 'acme', '/api/consultar/documento', { clave })).status).toBe(200);
    expect((await get('acme', `/api/descargar/${clave}/xml`)).status).toBe(200);
  });

  it('when another tenant consults or downloads the clave, then 404 as for an unknown one', async () => {
    const consult = await post(ctx, 'intruder', '/api/consultar/documento', { clave });
    expect(consult.status).toBe(404);
    expect(consult.body).toMatchObject({ error: 'not_found' });
    const unknown = await post(ctx, 'intruder', '/api/consultar/documento', { clave: '5'.repeat(50) });
    expect(consult.body.message.replace(clave, 'X')).toBe(unknown.body.message.replace('5'.repeat(50), 'X'));
    expect((await get('intruder', `/api/descargar/${clave}/xml`)).status).toBe(404);
    expect((await get('intruder', `/api/descargar/${clave}/respuesta`)).status).toBe(404);
  });

  it('when another tenant posts the same body, then its emisor is unknown there (404), nothing is created', async () => {
    const res = await post(ctx, 'intruder', '/api/enviar/items', documentBody('invoice', 1));
    expect(res.status).toBe(404);
  });

  it('when a query forgets the tenant filter, then row-level security still hides the rows', async () => {
    const seen = await withTenant(ctx.db, 'intruder', async (tx) => ({
      documents: (await tx.query('SELECT clave FROM documents')).rowCount,
      events: (await tx.query('SELECT id FROM document_events')).rowCount,
    }));
    expect(seen).toEqual({ documents: 0, events: 0 });
    await expect(
      withTenant(ctx.db, 'intruder', (tx) =>
        tx.query("UPDATE documents SET estado = 'aceptado' WHERE clave = $1", [clave]),
      ),
    ).resolves.toMatchObject({ rowCount: 0 });
    // A one-statement transaction (ADR 0047) opens the same way: each text twice, so that on PostgreSQL the
    // second use travels in one batch with the opening and the COMMIT.
    for (let round = 0; round < 2; round++) {
      const rows = await withTenant(
        ctx.db,
        'intruder',
        (tx) => tx.query('SELECT clave FROM documents'),
        ONE_STATEMENT,
      );
      expect(rows.rowCount).toBe(0);
      await expect(
        withTenant(
          ctx.db,
          'intruder',
          (tx) => tx.query("UPDATE documents SET estado = 'aceptado' WHERE clave = $1", [clave]),
          ONE_STATEMENT,
        ),
      ).resolves.toMatchObject({ rowCount: 0 });
      await expect(
        withTenant(
          ctx.db,
          'intruder',
          (tx) => tx.query('SELECT payload FROM jobs WHERE id > $1', [0]),
          ONE_STATEMENT,
        ),
      ).rejects.toThrow(/permission denied/);
    }
    // Options carrying their own opening cannot replace the tenant's.
    const smuggled = { ...ONE_STATEMENT, begin: [] } as unknown as typeof ONE_STATEMENT;
    await expect(
      withTenant(ctx.db, 'intruder', (tx) => tx.query('SELECT clave FROM documents'), smuggled),
    ).resolves.toMatchObject({ rowCount: 0 });
    const own = await withTenant(
      ctx.db,
      'acme',
      (tx) => tx.query('SELECT clave FROM documents WHERE clave = $1', [clave]),
      ONE_STATEMENT,
    );
    expect(own.rows).toHaveLength(1);
  });

  it('when the tenant role reads the jobs table, then payloads stay hidden', async () => {
    await expect(
      withTenant(ctx.db, 'intruder', (tx) => tx.query('SELECT payload FROM jobs')),
    ).rejects.toThrow(/permission denied/);
  });

  it('when the clave is malformed, then 400 naming it', async () => {
    const res = await post(ctx, 'acme', '/api/consultar/documento', { clave: '123' });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/clave/);
    expect((await get('acme', '/api/descargar/123/xml')).status).toBe(400);
  });
});

describe('POST /api/enviar/items: deeply nested bodies', () => {
  // ~40 KB, under the JSON limit: JSON.parse takes it, but a recursive walk of it overflows the stack.
  const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
  const postRaw = () =>
    request(ctx.app)
      .post('/api/enviar/items')
      .set('Host', ctx.host('acme'))
      .set('Authorization', `Bearer ${ctx.forge.token('acme')}`)
      .set('Content-Type', 'application/json');

  it('when a body nested 20,000 levels deep comes with an Idempotency-Key, then 400 naming the body', async () => {
    const res = await postRaw().set('Idempotency-Key', 'deep-1').send(deep);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'bad_request', message: expect.stringMatching(/^body: /) });
  });

  it('when a body nested 20,000 levels deep comes without a key, then 400', async () => {
    const res = await postRaw().send(deep);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('bad_request');
  });

  it('when a deep object hides under a document field, then 400 and no 500', async () => {
    const raw = JSON.stringify({ ...documentBody('invoice', 3), otros: 'X' }).replace(
      '"otros":"X"',
      `"otros":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`,
    );
    const res = await postRaw().set('Idempotency-Key', 'deep-2').send(raw);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^body: /);
  });
});
