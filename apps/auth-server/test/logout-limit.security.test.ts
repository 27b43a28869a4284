// Logouts per credential and minute (LOGOUTS_PER_MINUTE): each one is a revocation every tenant-api replica
// holds until the token would have expired, so a client logging in and out in a loop must not grow that list
// without bound. Past the limit a logout is a 429 with Retry-After and revokes nothing. The count is the
// credential's (the password, or one API key), and a token already revoked is not counted: the holder of one
// key, or of a dead token, cannot spend the dashboard's sign-outs.
import jwt from 'jsonwebtoken';
import request from 'supertest';
import type { TokenClaims } from '@cr/contracts';
import { type Harness, admin, startHarness } from './helpers';

describe('logouts per credential and minute', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ logoutsPerMinute: 3 });
    for (const base of ['acme', 'globex']) {
      await request(h.app)
        .post('/admin/clients')
        .set(admin())
        .send({ base, password: 'correct-horse-1' })
        .expect(201);
    }
  });
  afterAll(() => h.close());

  async function login(base: string, apiKey?: string): Promise<{ token: string; jti: string }> {
    const res = await request(h.app)
      .post('/login')
      .send(apiKey ? { base, apiKey } : { base, password: 'correct-horse-1' })
      .expect(200);
    return { token: res.body.token, jti: (jwt.decode(res.body.token) as TokenClaims).jti };
  }
  const logout = (token: string) => request(h.app).post('/logout').set('authorization', `Bearer ${token}`);
  const revokedJtis = async () =>
    (
      (await request(h.app).get('/revocations?since=0').expect(200)).body.revoked as Array<{ jti: string }>
    ).map((r) => r.jti);
  /** To the start of the next minute, so a test's logouts fall in one window. */
  const nextMinute = () => h.clock.advance(60_000 - (h.clock.now % 60_000));

  it('when a password logs out more live tokens in a minute than the limit, then 429 with Retry-After and that token is not revoked; other clients and the next minute are served', async () => {
    nextMinute();
    const tokens = [await login('acme'), await login('acme'), await login('acme'), await login('acme')];
    for (const t of tokens.slice(0, 3)) expect((await logout(t.token)).status).toBe(200);
    h.clock.advance(18_000);
    const refused = await logout(tokens[3]!.token);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('42');
    expect(refused.body).toMatchObject({
      error: 'too_many_requests',
      message:
        "too many logouts with this password's tokens (at most 3 a minute); this token is not revoked: retry in 42 s",
    });
    const listed = await revokedJtis();
    expect(listed).toEqual(expect.arrayContaining(tokens.slice(0, 3).map((t) => t.jti)));
    expect(listed).not.toContain(tokens[3]!.jti);

    // Another client's logouts count on their own.
    const other = await login('globex');
    expect((await logout(other.token)).status).toBe(200);

    // The next minute: the refused token can be logged out, and the past minutes are pruned.
    h.clock.advance(42_000);
    expect((await logout(tokens[3]!.token)).status).toBe(200);
    expect(await revokedJtis()).toContain(tokens[3]!.jti);
    expect(await h.services.logouts.prune()).toBe(2);
    const { rows } = await h.db.query<{ n: string }>('SELECT count(*) AS n FROM logout_windows');
    expect(Number(rows[0]!.n)).toBe(1);
  });

  it("when a token already revoked is logged out again and again, then each is a 200 that counts nothing; an API key's logouts count apart from the password's", async () => {
    nextMinute();
    const dead = await login('globex');
    expect((await logout(dead.token)).status).toBe(200);
    for (let i = 0; i < 6; i++) expect((await logout(dead.token)).status).toBe(200);
    // A token of the client's whole revocation (a password change) is not counted either.
    const beforeChange = await login('globex');
    h.clock.advance(1_000);
    await h.services.revocations.revokeSubject('globex');
    for (let i = 0; i < 3; i++) expect((await logout(beforeChange.token)).status).toBe(200);

    // A key that may only look things up spends its own minute, not the password's.
    const created = await request(h.app)
      .post('/admin/clients/globex/api-keys')
      .set(admin())
      .send({ name: 'lookups', scopes: ['lookups:read'] })
      .expect(201);
    h.clock.advance(1_000);
    for (let i = 0; i < 3; i++) {
      expect((await logout((await login('globex', created.body.key)).token)).status).toBe(200);
    }
    const keyRefused = await logout((await login('globex', created.body.key)).token);
    expect(keyRefused.status).toBe(429);
    expect(keyRefused.body.message).toContain("this API key's tokens");
    // The password has used one of its three this minute (the first logout of `dead`).
    expect((await logout((await login('globex')).token)).status).toBe(200);
    expect((await logout((await login('globex')).token)).status).toBe(200);
    expect((await logout((await login('globex')).token)).status).toBe(429);
  });

  it('when the limit is 0, then logouts are not counted', async () => {
    const unlimited = await startHarness({ logoutsPerMinute: 0 });
    try {
      await request(unlimited.app)
        .post('/admin/clients')
        .set(admin())
        .send({ base: 'acme', password: 'correct-horse-1' })
        .expect(201);
      for (let i = 0; i < 5; i++) {
        const res = await request(unlimited.app)
          .post('/login')
          .send({ base: 'acme', password: 'correct-horse-1' })
          .expect(200);
        await request(unlimited.app)
          .post('/logout')
          .set('authorization', `Bearer ${res.body.token}`)
          .expect(200);
      }
      const { rows } = await unlimited.db.query<{ n: string }>('SELECT count(*) AS n FROM logout_windows');
      expect(Number(rows[0]!.n)).toBe(0);
    } finally {
      await unlimited.close();
    }
  });
});
