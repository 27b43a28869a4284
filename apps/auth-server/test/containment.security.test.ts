// Attacks the auth-server must contain (issue 11, items 4 and 5).
//  - A disabled, deleted or re-passworded client kept using the tokens it already held for up to 8 hours:
//    now each of those writes a subject revocation (notBefore) that /revocations publishes.
//  - A leaked signing key could not be withdrawn before its natural retirement: now an admin retires it at
//    once; it leaves the JWKS, stops signing and verifying, and its private half is destroyed.
import { sign } from 'node:crypto';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { RevocationList, type TokenClaims, validate } from '@cr/contracts';
import { type Harness, admin, startHarness } from './helpers';

const PASSWORD = 'correct-horse-battery-staple';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  for (const base of ['acme', 'globex', 'initech'])
    await request(h.app).post('/admin/clients').set(admin()).send({ base, password: PASSWORD }).expect(201);
}, 120_000);
afterAll(() => h.close());

async function login(base: string, password = PASSWORD): Promise<{ token: string; claims: TokenClaims }> {
  const res = await request(h.app).post('/login').send({ base, password }).expect(200);
  return { token: res.body.token, claims: jwt.decode(res.body.token) as TokenClaims };
}

async function subjects(): Promise<Array<{ sub: string; notBefore: number }>> {
  const res = await request(h.app).get('/revocations?since=0').expect(200);
  expect(validate(RevocationList, res.body).ok).toBe(true);
  return res.body.revokedSubjects;
}

describe('a client that loses access loses its tokens', () => {
  it('when a client is disabled, then its subject is revoked from now and a re-enabled login in the same second still passes', async () => {
    const { claims } = await login('acme');
    await request(h.app).patch('/admin/clients/acme').set(admin()).send({ disabled: true }).expect(200);
    const entry = (await subjects()).find((s) => s.sub === 'acme');
    expect(entry).toBeDefined();
    expect(claims.iat).toBeLessThan(entry!.notBefore);

    // Disabled: no login at all.
    await request(h.app).post('/login').send({ base: 'acme', password: PASSWORD }).expect(401);
    // Re-enabled within the same second (frozen clock): the new token is not caught by the revocation.
    await request(h.app).patch('/admin/clients/acme').set(admin()).send({ disabled: false }).expect(200);
    const fresh = await login('acme');
    expect(fresh.claims.iat).toBeGreaterThanOrEqual(entry!.notBefore);
    expect(fresh.claims.exp).toBe(fresh.claims.iat + 28800);
  });

  it('when the password changes, then the old password fails, earlier tokens are revoked, the new password works', async () => {
    const { claims } = await login('globex');
    h.clock.advance(2000);
    const r = await request(h.app)
      .patch('/admin/clients/globex')
      .set(admin())
      .send({ password: 'a-brand-new-password-42' })
      .expect(200);
    expect(r.body).toMatchObject({ base: 'globex', disabled: false });
    await request(h.app).post('/login').send({ base: 'globex', password: PASSWORD }).expect(401);
    const entry = (await subjects()).find((s) => s.sub === 'globex')!;
    expect(claims.iat).toBeLessThan(entry.notBefore);
    const fresh = await login('globex', 'a-brand-new-password-42');
    expect(fresh.claims.iat).toBeGreaterThanOrEqual(entry.notBefore);
  });

  it('when a client is deleted, then its subject is revoked', async () => {
    const { claims } = await login('initech');
    await request(h.app).delete('/admin/clients/initech').set(admin()).expect(204);
    const entry = (await subjects()).find((s) => s.sub === 'initech')!;
    expect(claims.iat).toBeLessThan(entry.notBefore);
  });

  it('when the update body is empty or the password too short, then 400 naming the field', async () => {
    const empty = await request(h.app).patch('/admin/clients/acme').set(admin()).send({}).expect(400);
    expect(empty.body.error).toBe('bad_request');
    const short = await request(h.app).patch('/admin/clients/acme').set(admin()).send({ password: 'short' });
    expect(short.status).toBe(400);
    expect(short.body.message).toContain('password');
  });

  it('when the revocation can no longer match a live token, then it leaves the list and is pruned', async () => {
    h.clock.advance(28_800_000 + 5_000);
    expect(await subjects()).toEqual([]);
    expect(await h.services.revocations.pruneExpired()).toBeGreaterThanOrEqual(3);
  });

  it("when paging, then asOf is the server's clock a few seconds back and a revocation at that second is returned next time", async () => {
    const list = await request(h.app).get('/revocations?since=0').expect(200);
    const asOf = list.body.asOf as number;
    expect(asOf).toBe(Math.floor(h.clock.now / 1000) - 5);
    await request(h.app).patch('/admin/clients/acme').set(admin()).send({ disabled: true }).expect(200);
    const next = await request(h.app).get(`/revocations?since=${asOf}`).expect(200);
    expect(next.body.revokedSubjects.map((s: { sub: string }) => s.sub)).toEqual(['acme']);
  });
});

describe('retiring a leaked signing key now', () => {
  it('when the current key is retired, then it leaves the JWKS, tokens it signed stop verifying, the next key signs', async () => {
    await request(h.app).patch('/admin/clients/acme').set(admin()).send({ disabled: false }).expect(200);
    const before = await request(h.app).get('/admin/keys').set(admin()).expect(200);
    const current = before.body.keys.find((k: { status: string }) => k.status === 'current').kid as string;
    const next = before.body.keys.find((k: { status: string }) => k.status === 'next').kid as string;
    const { token } = await login('acme');
    expect(jwt.decode(token, { complete: true })?.header.kid).toBe(current);

    const r = await request(h.app).post(`/admin/keys/${current}/retire`).set(admin()).expect(200);
    expect(r.body.retired).toBe(current);
    expect(r.body.current).toBe(next);
    expect(r.body.next).not.toBe(next);

    const jwks = await request(h.app).get('/.well-known/jwks.json').expect(200);
    const kids = JSON.parse(jwks.text).keys.map((k: { kid: string }) => k.kid);
    expect(kids).not.toContain(current);
    expect(kids).toEqual(expect.arrayContaining([next, r.body.next]));
    // The auth-server's own verification (logout) no longer knows the key.
    await request(h.app).post('/logout').set('authorization', `Bearer ${token}`).expect(401);
    // New logins are signed by the successor, at once (no cache-age wait in an emergency).
    const fresh = await login('acme');
    expect(jwt.decode(fresh.token, { complete: true })?.header.kid).toBe(next);
    // The private half is gone from the database.
    const row = await h.db.query<{ private_sealed: string; retired_at: string }>(
      'SELECT private_sealed, retired_at FROM signing_keys WHERE kid = $1',
      [current],
    );
    expect(row.rows[0]).toEqual({ private_sealed: '', retired_at: String(h.clock.now) });
  });

  it('when a retired or unknown kid is retired, then 404; a malformed kid is 400', async () => {
    const keys = await request(h.app).get('/admin/keys').set(admin()).expect(200);
    expect(keys.body.keys.some((k: { status: string }) => k.status === 'current')).toBe(true);
    await request(h.app).post('/admin/keys/no-such-kid/retire').set(admin()).expect(404);
    await request(h.app).post('/admin/keys/bad%20kid/retire').set(admin()).expect(400);
  });

  it('when the next key is retired, then a new next key replaces it and the current one keeps signing', async () => {
    const keys = await request(h.app).get('/admin/keys').set(admin()).expect(200);
    const current = keys.body.keys.find((k: { status: string }) => k.status === 'current').kid as string;
    const next = keys.body.keys.find((k: { status: string }) => k.status === 'next').kid as string;
    const r = await request(h.app).post(`/admin/keys/${next}/retire`).set(admin()).expect(200);
    expect(r.body).toEqual({ retired: next, current, next: expect.any(String) });
    expect(r.body.next).not.toBe(next);
    const { token } = await login('acme');
    expect(jwt.decode(token, { complete: true })?.header.kid).toBe(current);
  });

  it('when retiring without the admin token, then 401 and nothing changes', async () => {
    const keys = await request(h.app).get('/admin/keys').set(admin()).expect(200);
    const current = keys.body.keys.find((k: { status: string }) => k.status === 'current').kid as string;
    await request(h.app)
      .post(`/admin/keys/${current}/retire`)
      .set('authorization', 'Bearer not-the-admin-token-xxxxxx')
      .expect(401);
    const after = await request(h.app).get('/admin/keys').set(admin()).expect(200);
    expect(after.body).toEqual(keys.body);
  });
});

describe('the auth-server verifies its own tokens with maxAge', () => {
  it('when a token of ours is older than 8 h by iat, then logout refuses it', async () => {
    const { token } = await login('acme');
    h.clock.advance(8 * 3600_000 + 1000);
    await request(h.app).post('/logout').set('authorization', `Bearer ${token}`).expect(401);
  });

  it('when a token signed with our key lists a critical header extension (crit), then logout refuses it and revokes nothing', async () => {
    const { token, claims } = await login('acme');
    const key = h.services.keys.currentKey();
    expect(key?.kid).toBe(jwt.decode(token, { complete: true })?.header.kid);
    // The token's own claims, re-signed by hand with our key: only the header differs.
    const resign = (header: Record<string, unknown>) => {
      const head = `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${token.split('.')[1]}`;
      return `${head}.${sign('sha256', Buffer.from(head), key!.privateKey()).toString('base64url')}`;
    };
    const plain = { alg: 'RS256', typ: 'JWT', kid: key!.kid };
    const revokedJtis = async () =>
      (await request(h.app).get('/revocations?since=0').expect(200)).body.revoked.map(
        (r: { jti: string }) => r.jti,
      );

    const refused = await request(h.app)
      .post('/logout')
      .set('authorization', `Bearer ${resign({ ...plain, crit: ['x'], x: 1 })}`)
      .expect(401);
    expect(refused.body).toMatchObject({ error: 'unauthorized', message: 'token is invalid or expired' });
    expect(await revokedJtis()).not.toContain(claims.jti);
    // The control: the same claims and key without `crit` are a token logout accepts.
    await request(h.app)
      .post('/logout')
      .set('authorization', `Bearer ${resign(plain)}`)
      .expect(200);
    expect(await revokedJtis()).toContain(claims.jti);
  });
});
