// Attack (found 2026-12-03): a login read the client (hash, disabled, notBefore) before its password check,
// which waits in the hash queue. An admin disabling the client, changing its password or deleting it (or
// revoking an API key) meanwhile wrote a revocation with notBefore = that second + 1; the login then passed
// on the stale record and, signed a second or more later, got iat ≥ notBefore: a token the tenant-api
// accepted and that no revocation covered. Refused now: the token is signed from a fresh read.
import jwt from 'jsonwebtoken';
import request from 'supertest';
import type { TokenClaims } from '@cr/contracts';
import { INVALID_CREDENTIALS_BODY } from '../src/routes/login';
import { type Harness, admin, gateAfter, startHarness } from './helpers';

const PASSWORD = 'correct-horse-battery-staple';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120_000);
afterAll(() => h.close());

async function createClient(base: string): Promise<void> {
  await request(h.app).post('/admin/clients').set(admin()).send({ base, password: PASSWORD }).expect(201);
}

async function createKey(base: string): Promise<{ id: string; key: string }> {
  const res = await request(h.app)
    .post(`/admin/clients/${base}/api-keys`)
    .set(admin())
    .send({ name: 'ERP', scopes: ['documents:read'] })
    .expect(201);
  return res.body;
}

/**
 * Starts a login, holds it once its credential has been checked (`gated`), runs the admin `change`, lets
 * 1.5 s pass (so a token signed now has iat past the change's notBefore) and releases it.
 */
async function loginAcross(
  gated: 'verify' | 'authenticate',
  body: Record<string, string>,
  change: () => Promise<unknown>,
): Promise<request.Response> {
  const gate =
    gated === 'verify'
      ? gateAfter(h.services.hasher, 'verify')
      : gateAfter(h.services.apiKeys, 'authenticate');
  try {
    const pending = request(h.app)
      .post('/login')
      .send(body)
      .then((r) => r);
    await gate.reached;
    await change();
    h.clock.advance(1500);
    gate.release();
    return await pending;
  } finally {
    gate.release();
    gate.restore();
  }
}

async function notBeforeOf(sub: string): Promise<number | undefined> {
  const res = await request(h.app).get('/revocations?since=0').expect(200);
  return res.body.revokedSubjects.find((s: { sub: string }) => s.sub === sub)?.notBefore;
}

describe('a login in flight when the client loses access', () => {
  it('when the client is disabled while its password is being checked, then 401 and no token', async () => {
    await createClient('disabled-midway');
    const res = await loginAcross('verify', { base: 'disabled-midway', password: PASSWORD }, () =>
      request(h.app)
        .patch('/admin/clients/disabled-midway')
        .set(admin())
        .send({ disabled: true })
        .expect(200),
    );
    expect(res.status).toBe(401);
    expect(res.text).toBe(INVALID_CREDENTIALS_BODY);
    expect(await notBeforeOf('disabled-midway')).toBeDefined();
  });

  it('when the password changes while the old one is being checked, then 401; the new password logs in', async () => {
    await createClient('repassworded');
    const res = await loginAcross('verify', { base: 'repassworded', password: PASSWORD }, () =>
      request(h.app)
        .patch('/admin/clients/repassworded')
        .set(admin())
        .send({ password: 'a-brand-new-password-42' })
        .expect(200),
    );
    expect(res.status).toBe(401);
    const fresh = await request(h.app)
      .post('/login')
      .send({ base: 'repassworded', password: 'a-brand-new-password-42' })
      .expect(200);
    const claims = jwt.decode(fresh.body.token) as TokenClaims;
    expect(claims.iat).toBeGreaterThanOrEqual((await notBeforeOf('repassworded'))!);
  });

  it('when the client is deleted while its password is being checked, then 401', async () => {
    await createClient('deleted-midway');
    const res = await loginAcross('verify', { base: 'deleted-midway', password: PASSWORD }, () =>
      request(h.app).delete('/admin/clients/deleted-midway').set(admin()).expect(204),
    );
    expect(res.status).toBe(401);
    expect(res.text).toBe(INVALID_CREDENTIALS_BODY);
  });

  it('when an API key is revoked between its check and the token, then 401', async () => {
    await createClient('key-revoked');
    const created = await createKey('key-revoked');
    const res = await loginAcross('authenticate', { base: 'key-revoked', apiKey: created.key }, () =>
      request(h.app).delete(`/admin/clients/key-revoked/api-keys/${created.id}`).set(admin()).expect(200),
    );
    expect(res.status).toBe(401);
    expect(res.text).toBe(INVALID_CREDENTIALS_BODY);
  });

  it('when the client is disabled between its API key check and the token, then 401', async () => {
    await createClient('key-disabled');
    const created = await createKey('key-disabled');
    const res = await loginAcross('authenticate', { base: 'key-disabled', apiKey: created.key }, () =>
      request(h.app).patch('/admin/clients/key-disabled').set(admin()).send({ disabled: true }).expect(200),
    );
    expect(res.status).toBe(401);
  });

  it('when nothing changes while the password is being checked, then the login passes', async () => {
    await createClient('steady');
    const res = await loginAcross('verify', { base: 'steady', password: PASSWORD }, async () => undefined);
    expect(res.status).toBe(200);
    expect((jwt.decode(res.body.token) as TokenClaims).sub).toBe('steady');
  });

  it('when the client was re-enabled after a disable while the password was checked, then the token is not caught by the revocation', async () => {
    await createClient('re-enabled');
    const res = await loginAcross('verify', { base: 're-enabled', password: PASSWORD }, async () => {
      await request(h.app)
        .patch('/admin/clients/re-enabled')
        .set(admin())
        .send({ disabled: true })
        .expect(200);
      await request(h.app)
        .patch('/admin/clients/re-enabled')
        .set(admin())
        .send({ disabled: false })
        .expect(200);
    });
    expect(res.status).toBe(200);
    const claims = jwt.decode(res.body.token) as TokenClaims;
    expect(claims.iat).toBeGreaterThanOrEqual((await notBeforeOf('re-enabled'))!);
  });
});
