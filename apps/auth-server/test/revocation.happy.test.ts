import jwt from 'jsonwebtoken';
import request from 'supertest';
import { RevocationList, type TokenClaims, validate } from '@cr/contracts';
import { type Harness, admin, startHarness } from './helpers';

describe('revocation', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
    await request(h.app)
      .post('/admin/clients')
      .set(admin())
      .send({ base: 'acme', password: 'correct-horse-1' })
      .expect(201);
  });
  afterAll(() => h.close());

  async function login(): Promise<{ token: string; claims: TokenClaims }> {
    const res = await request(h.app)
      .post('/login')
      .send({ base: 'acme', password: 'correct-horse-1' })
      .expect(200);
    return { token: res.body.token, claims: jwt.decode(res.body.token) as TokenClaims };
  }

  it('when a client logs out, then its jti is listed with its exp until the token expires', async () => {
    const since = Math.floor(h.clock.now / 1000);
    const { token, claims } = await login();
    await request(h.app)
      .post('/logout')
      .set('authorization', `Bearer ${token}`)
      .expect(200, { status: 'success', message: 'token revoked' });

    const list = await request(h.app).get(`/revocations?since=${since}`).expect(200);
    expect(validate(RevocationList, list.body).ok).toBe(true);
    expect(list.body.revoked).toContainEqual({ jti: claims.jti, exp: claims.exp });
    // The server's cursor: its clock a few seconds back, so a revocation still committing is not skipped.
    expect(list.body.asOf).toBe(since - 5);

    h.clock.advance(28_800_000);
    const after = await request(h.app).get('/revocations?since=0').expect(200);
    expect(after.body.revoked.map((r: { jti: string }) => r.jti)).not.toContain(claims.jti);
    expect(await h.services.revocations.pruneExpired()).toBeGreaterThanOrEqual(1);
  });

  it('when an admin revokes a jti, then it is listed; a later `since` leaves it out', async () => {
    const { claims } = await login();
    const r = await request(h.app)
      .post('/admin/tokens/revoke')
      .set(admin())
      .send({ jti: claims.jti, exp: claims.exp })
      .expect(200);
    expect(r.body).toEqual({ jti: claims.jti, exp: claims.exp });
    const all = await request(h.app).get('/revocations').expect(200);
    expect(all.body.revoked).toContainEqual({ jti: claims.jti, exp: claims.exp });
    h.clock.advance(2000);
    const later = await request(h.app)
      .get(`/revocations?since=${Math.floor(h.clock.now / 1000)}`)
      .expect(200);
    expect(later.body.revoked).toEqual([]);
  });

  it('when the exp is not given, then the entry lives for the longest token lifetime', async () => {
    const r = await request(h.app)
      .post('/admin/tokens/revoke')
      .set(admin())
      .send({ jti: 'some-jti' })
      .expect(200);
    expect(r.body.exp).toBe(Math.floor(h.clock.now / 1000) + 28800);
  });

  it.each([
    ['no token', undefined],
    ['a garbage token', 'Bearer abc.def.ghi'],
    ['an alg none token', `Bearer ${jwt.sign({ jti: 'x' }, '', { algorithm: 'none' })}`],
  ])('when logging out with %s, then 401 unauthorized', async (_name, header) => {
    const req = request(h.app).post('/logout');
    if (header) req.set('authorization', header);
    const res = await req.expect(401);
    expect(res.body.error).toBe('unauthorized');
  });

  it.each(['-1', 'abc', '1.5', '1e3'])('when since is %s, then 400 naming since', async (since) => {
    const res = await request(h.app).get(`/revocations?since=${since}`).expect(400);
    expect(res.body.message).toContain('since');
  });

  it.each([1e19, 1e300, 253_402_300_800])(
    'when revoking with exp %s (past the year 9999), then 400 naming exp and nothing stored',
    async (exp) => {
      const res = await request(h.app)
        .post('/admin/tokens/revoke')
        .set(admin())
        .send({ jti: `far-${exp}`, exp })
        .expect(400);
      expect(res.body.error).toBe('bad_request');
      expect(res.body.message).toContain('exp');
      const stored = await h.db.query('SELECT 1 FROM revoked_tokens WHERE jti = $1', [`far-${exp}`]);
      expect(stored.rows).toEqual([]);
    },
  );

  it('when revoking with the largest exp allowed, then it is stored', async () => {
    const r = await request(h.app)
      .post('/admin/tokens/revoke')
      .set(admin())
      .send({ jti: 'far-max', exp: 253_402_300_799 })
      .expect(200);
    expect(r.body).toEqual({ jti: 'far-max', exp: 253_402_300_799 });
  });

  it('when revoking a jti with control characters, then 400 naming jti', async () => {
    const res = await request(h.app)
      .post('/admin/tokens/revoke')
      .set(admin())
      .send({ jti: 'a\u0000b' })
      .expect(400);
    expect(res.body.message).toContain('jti');
  });
});
