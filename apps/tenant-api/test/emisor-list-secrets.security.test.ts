// GET /api/emisores of a tenant with many issuers (an accounting firm's; ISSUER_WRITE_RATE_LIMIT lets 240 a day
// in): the list read every issuer's whole row, its sealed .p12 (up to 150 KB) and credentials included, only
// to show the public data. Measured on PostgreSQL with 1,001 issuers: 1.8–2.0 s and +171–238 MB of RSS for a
// 373 KB answer. The proof that it no longer does is the database's own: with the tenant role's SELECT on the
// sealed columns withdrawn (any read of them is "permission denied"), the list still answers in full.
import request from 'supertest';
import { post } from './support/client';
import { issuerBody } from './support/issuer-mother';
import { type TestApp, startTestApp } from './support/test-app';
import { withColumnsWithheld } from './support/withheld-columns';

jest.setTimeout(120_000);

const SEALED = ['clave_hacienda_sealed', 'pin_sealed', 'certificate_sealed'];

let ctx: TestApp;

beforeAll(async () => {
  ctx = await startTestApp({ checkExonerations: false });
  expect((await post(ctx, 'acme', '/api/enviar/emisor', issuerBody())).status).toBe(200);
});
afterAll(() => ctx?.close());

const list = () =>
  request(ctx.app)
    .get('/api/emisores')
    .set('Host', ctx.host('acme'))
    .set('Authorization', `Bearer ${ctx.forge.token('acme')}`);

it('when the sealed secrets cannot be read, then the issuers list still answers with every public field', async () => {
  const before = await list();
  expect(before.status).toBe(200);
  await withColumnsWithheld(ctx.db, 'issuers', SEALED, async () => {
    const after = await list();
    expect(after.status).toBe(200);
    expect(after.body).toEqual(before.body);
    expect(after.body.data).toHaveLength(1);
  });
});
