import { enqueue } from '@cr/jobs';
import request from 'supertest';
import { withTenant } from '../src/db/with-tenant';
import { post } from './support/client';
import { issuerBody } from './support/issuer-mother';
import { type TestApp, startTestApp } from './support/test-app';

let ctx: TestApp;
const acmeIssuer = issuerBody();

beforeAll(async () => {
  ctx = await startTestApp();
  expect((await post(ctx, 'acme', '/api/enviar/emisor', acmeIssuer)).status).toBe(200);
});
afterAll(() => ctx.close());

describe('tenancy: host resolution', () => {
  it.each([
    ['localhost', 'no tenant label'],
    ['a.b.localhost', 'nested labels'],
    ['ac_me.localhost', 'invalid characters'],
    ['acme.example.com', 'another domain'],
  ])('when the host is %s (%s), then 404 not_found before the body is read', async (host) => {
    const res = await request(ctx.app)
      .post('/api/consultar/emisor')
      .set('Host', host)
      .set('Content-Type', 'application/json')
      .send('{not json');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: 'not_found', message: 'unknown host' });
  });

  it('when health is asked on any host, then it answers', async () => {
    const res = await request(ctx.app).get('/health/ready').set('Host', 'localhost');
    expect(res.status).toBe(200);
    expect(res.body.checks).toEqual({ database: 'ok', tokenKeys: 'ok' });
  });

  it('when X-Forwarded-Host names a tenant but TRUST_PROXY is off, then it is ignored', async () => {
    const res = await request(ctx.app)
      .post('/api/consultar/emisor')
      .set('Host', 'localhost')
      .set('X-Forwarded-Host', 'acme.localhost')
      .set('Authorization', `Bearer ${ctx.forge.token('acme')}`)
      .send({ identificacion: 3101123456 });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('unknown host');
  });

  it('when TRUST_PROXY is on, then X-Forwarded-Host decides the tenant', async () => {
    const proxied = await startTestApp({ trustProxy: 'true' });
    try {
      const res = await request(proxied.app)
        .post('/api/consultar/emisor')
        .set('Host', 'internal:4001')
        .set('X-Forwarded-Host', 'globex.localhost')
        .set('Authorization', `Bearer ${proxied.forge.token('globex')}`)
        .send({ identificacion: 3101123456 });
      expect(res.status).toBe(404);
      expect(res.body.message).toMatch(/issuer 3101123456 is not registered/);
    } finally {
      await proxied.close();
    }
  });
});

describe('tenancy: isolation', () => {
  it("when tenant B's token is used at A's host, then 401", async () => {
    const res = await post(
      ctx,
      'acme',
      '/api/consultar/emisor',
      { identificacion: 3101123456 },
      ctx.forge.token('globex'),
    );
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('unauthorized');
  });

  it("when tenant B at its own host consults A's issuer, then 404 as if it did not exist", async () => {
    const res = await post(ctx, 'globex', '/api/consultar/emisor', { identificacion: 3101123456 });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('not_found');
  });

  it("when tenant B at its own host updates A's issuer, then 404 and A's data is unchanged", async () => {
    const res = await post(ctx, 'globex', '/api/actualizar/emisor', {
      ...acmeIssuer,
      nombreComercial: 'Hijacked',
    });
    expect(res.status).toBe(404);
    const mine = await post(ctx, 'acme', '/api/consultar/emisor', { identificacion: 3101123456 });
    expect(mine.body.data.nombreComercial).toBe('Acme Soluciones');
  });

  it('when tenant B registers the same identificacion, then it is its own issuer', async () => {
    const res = await post(ctx, 'globex', '/api/enviar/emisor', {
      ...acmeIssuer,
      nombreComercial: 'Globex copy',
    });
    expect(res.status).toBe(200);
    const a = await post(ctx, 'acme', '/api/consultar/emisor', { identificacion: 3101123456 });
    const b = await post(ctx, 'globex', '/api/consultar/emisor', { identificacion: 3101123456 });
    expect([a.body.data.nombreComercial, b.body.data.nombreComercial]).toEqual([
      'Acme Soluciones',
      'Globex copy',
    ]);
  });

  it('when a query inside withTenant forgets its tenant filter, then row-level security still hides other tenants', async () => {
    const seen = await withTenant(ctx.db, 'acme', async (tx) =>
      (await tx.query<{ tenant_id: string }>('SELECT tenant_id FROM issuers')).rows.map((r) => r.tenant_id),
    );
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen)).toEqual(new Set(['acme']));
    const all = await ctx.db.query<{ n: number }>('SELECT count(DISTINCT tenant_id)::int AS n FROM issuers');
    expect(all.rows[0]!.n).toBe(2);

    const touched = await withTenant(ctx.db, 'acme', (tx) =>
      tx.query("UPDATE issuers SET nombre_comercial = 'x' WHERE tenant_id = 'globex'"),
    );
    expect(touched.rowCount).toBe(0);

    await expect(
      withTenant(ctx.db, 'acme', (tx) =>
        tx.query(
          `INSERT INTO issuers SELECT 'globex', '9' || identificacion, tipo_identificacion, nombre, nombre_comercial,
           codigo_actividad, sucursal, telefono, correo_electronico, provincia, canton, distrito, barrio, direccion,
           ambiente, usuario_hacienda, clave_hacienda_sealed, pin_sealed, certificate_sealed, secrets_key_id,
           certificate_subject, certificate_serial, certificate_not_before, certificate_not_after
           FROM issuers WHERE identificacion = '3101123456'`,
        ),
      ),
    ).rejects.toThrow(/row-level security/);
  });

  it("when tenant work touches jobs, then it can add them but change one only through its claim's token", async () => {
    const job = await enqueue(ctx.db, { queue: 'tenancy.probe', tenant: 'globex', payload: { secret: 'x' } });
    await ctx.db.query(
      "UPDATE jobs SET state = 'running', attempts = 1, locked_by = 'worker-1' WHERE id = $1::bigint",
      [job.id],
    );
    await expect(
      withTenant(ctx.db, 'acme', (tx) =>
        tx.query("UPDATE jobs SET state = 'done' WHERE id = $1::bigint", [job.id]),
      ),
    ).rejects.toThrow(/permission denied/);
    await expect(
      withTenant(ctx.db, 'acme', (tx) =>
        tx.query('SELECT payload FROM jobs WHERE id = $1::bigint', [job.id]),
      ),
    ).rejects.toThrow(/permission denied/);
    await expect(
      withTenant(ctx.db, 'acme', (tx) =>
        tx.query("SELECT id FROM jobs_claim('acme-worker', now() + interval '1 minute', $1, now(), 10)", [
          ['tenancy.probe'],
        ]),
      ),
    ).rejects.toThrow(/permission denied for function jobs_claim/);
    const record = (worker: string) =>
      withTenant(ctx.db, 'acme', async (tx) => {
        const r = await tx.query<{ recorded: boolean }>(
          "SELECT jobs_record($1::bigint, $2, 1, 'done', NULL, NULL, now()) AS recorded",
          [job.id, worker],
        );
        return r.rows[0]!.recorded;
      });
    expect(await record('another-worker')).toBe(false);
    const state = async () =>
      (await ctx.db.query<{ state: string }>('SELECT state FROM jobs WHERE id = $1::bigint', [job.id]))
        .rows[0]!.state;
    expect(await state()).toBe('running');
    expect(await record('worker-1')).toBe(true);
    expect(await state()).toBe('done');
  });
});
