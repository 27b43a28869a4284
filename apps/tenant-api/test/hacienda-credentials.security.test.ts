// New ATV credentials take effect on the next token request of the submit and status jobs: the process
// that took POST /api/actualizar/emisor ends the issuer's IdP session at once, and a process that did not
// (its row changed under it) notices the new credentials on its next token request. The old session is
// never refreshed again.
import { FakeHacienda } from '../../../packages/hacienda-client/test/fake-hacienda';
import type { Job } from '@cr/jobs';
import { withTenant } from '../src/db/with-tenant';
import { secretContext } from '../src/emisor/issuer-secrets';
import { accessTokenFor } from '../src/hacienda/hacienda-access';
import { post } from './support/client';
import { issuerBody } from './support/issuer-mother';
import { type TestApp, startTestApp } from './support/test-app';

jest.setTimeout(120_000);

const EMISOR = '3101123456';
const USER_A = 'cpj-3-101-123456@stag.comprobanteselectronicos.go.cr';
const PASSWORD_A = 'S3cr3t-Hacienda!';
const USER_B = 'cpj-3-101-123456-b@stag.comprobanteselectronicos.go.cr';
const PASSWORD_B = 'N3w&Secret=B+/%';
const USER_C = 'cpj-3-101-123456-c@stag.comprobanteselectronicos.go.cr';
const PASSWORD_C = 'Th1rd:Secret?C';
const HOUR = 3_600_000;

let fake: FakeHacienda;
let ctx: TestApp;
beforeAll(async () => {
  fake = new FakeHacienda();
  await fake.start();
  fake.users.set(USER_A, PASSWORD_A);
  fake.users.set(USER_B, PASSWORD_B);
  fake.users.set(USER_C, PASSWORD_C);
  ctx = await startTestApp({ hacienda: fake.settings });
  const registered = await post(ctx, 'acme', '/api/enviar/emisor', issuerBody({ usuarioHacienda: USER_A }));
  expect(registered.status).toBe(200);
});
afterAll(async () => {
  await ctx.close();
  await fake.stop();
});

async function waitFor(done: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !done(); i++) await new Promise((r) => setTimeout(r, 20));
  expect(done()).toBe(true);
}

/** The issuer's access token as the submit and status jobs get it. */
async function jobToken(): Promise<string> {
  const job = { payload: { tenantId: 'acme' }, attempts: 1 } as Job<{ tenantId: string }>;
  const got = await accessTokenFor(ctx.submission, job, { emisor: EMISOR, ambiente: 2 }, new Date(), [HOUR]);
  if (!('token' in got)) throw new Error(`no token: ${JSON.stringify(got.result)}`);
  expect(fake.accessTokens.has(got.token)).toBe(true);
  return got.token;
}

const grantsSince = (from: number) =>
  fake.grants.slice(from).map((g) => `${g.grantType}${g.username ? ` ${g.username}` : ''}`);
const lastRefresh = () => [...fake.refreshTokens.keys()].at(-1);

describe('changed Hacienda credentials', () => {
  it('when actualizar/emisor replaces them, then the old IdP session is logged out and the next token request signs in with the new ones', async () => {
    const tokenA = await jobToken();
    expect(await jobToken()).toBe(tokenA); // cached while the credentials stay
    expect(grantsSince(0)).toEqual([`password ${USER_A}`]);
    const sessionA = lastRefresh();

    const updated = await post(
      ctx,
      'acme',
      '/api/actualizar/emisor',
      issuerBody({ usuarioHacienda: USER_B, claveHacienda: Buffer.from(PASSWORD_B).toString('base64') }),
    );
    expect(updated.status).toBe(200);
    await waitFor(() => fake.logouts.includes(sessionA ?? ''));

    const before = fake.grants.length;
    expect(await jobToken()).not.toBe(tokenA);
    expect(grantsSince(before)).toEqual([`password ${USER_B}`]);
    expect(ctx.log.text).not.toContain(PASSWORD_B);
    expect(ctx.log.text).not.toContain(PASSWORD_A);
  });

  it('when another process replaced them (the row changed under this one), then the cached session is dropped on the next token request', async () => {
    const tokenB = await jobToken(); // a session for B is cached, its access token fresh
    const sessionB = lastRefresh();
    await withTenant(ctx.db, 'acme', (tx) =>
      tx.query(
        'UPDATE issuers SET usuario_hacienda = $3, clave_hacienda_sealed = $4 WHERE tenant_id = $1 AND identificacion = $2',
        [
          'acme',
          EMISOR,
          USER_C,
          ctx.secrets.seal(
            Buffer.from(PASSWORD_C).toString('base64'),
            secretContext('acme', EMISOR, 'clave_hacienda'),
          ),
        ],
      ),
    );
    const before = fake.grants.length;
    expect(await jobToken()).not.toBe(tokenB);
    expect(grantsSince(before)).toEqual([`password ${USER_C}`]);
    await waitFor(() => fake.logouts.includes(sessionB ?? ''));
    expect(ctx.log.text).not.toContain(PASSWORD_C);
  });
});
