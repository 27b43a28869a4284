import { createPublicKey } from 'node:crypto';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import type { TokenClaims } from '@cr/contracts';
import { type Harness, admin, publishedKids, startHarness } from './helpers';

const HOUR = 3600_000;

async function login(h: Harness): Promise<string> {
  const res = await request(h.app)
    .post('/login')
    .send({ base: 'acme', password: 'correct-horse-1' })
    .expect(200);
  return res.body.token as string;
}

function verifyWithJwks(
  h: Harness,
  token: string,
  jwks: { keys: Array<Record<string, string>> },
): TokenClaims {
  const kid = jwt.decode(token, { complete: true })!.header.kid;
  const jwk = jwks.keys.find((k) => k.kid === kid);
  if (!jwk) throw new Error(`kid ${kid} is not published`);
  const key = createPublicKey({ key: { kty: 'RSA', n: jwk.n!, e: jwk.e! }, format: 'jwk' });
  return jwt.verify(token, key, {
    algorithms: ['RS256'],
    clockTimestamp: Math.floor(h.clock.now / 1000),
  }) as TokenClaims;
}

describe('signing key rotation (frozen clock)', () => {
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

  it('publishes the next key before it signs, keeps the old one until its tokens expired, then drops it', async () => {
    const first = h.services.keys.currentKey()!.kid;
    const next = h.services.keys.publishedKeys().find((k) => k.status === 'next')!.kid;
    expect(await publishedKids(h)).toEqual(expect.arrayContaining([first, next]));
    const before = await login(h);
    expect(jwt.decode(before, { complete: true })!.header.kid).toBe(first);

    h.clock.advance(HOUR);
    const rotated = await request(h.app).post('/admin/keys/rotate').set(admin()).expect(200);
    // The key that activates is the one published an hour ago, so every cached JWKS already has it.
    expect(rotated.body.activated).toBe(next);

    const after = await login(h);
    expect(jwt.decode(after, { complete: true })!.header.kid).toBe(next);
    const published = await publishedKids(h);
    expect(published).toEqual(expect.arrayContaining([first, next, rotated.body.next]));
    expect(published).toHaveLength(3);

    const jwks = JSON.parse((await request(h.app).get('/.well-known/jwks.json')).text);
    expect(verifyWithJwks(h, before, jwks).sub).toBe('acme');
    expect(verifyWithJwks(h, after, jwks).sub).toBe('acme');

    // The last token signed by the old key was issued at the rotation; it expires 28800 s later, and a
    // verifier may hold a JWKS for 300 s more.
    h.clock.advance(28_800_000 + 300_000 - 1000);
    expect(await publishedKids(h)).toContain(first);
    h.clock.advance(1000);
    const late = await publishedKids(h);
    expect(late).not.toContain(first);
    expect(late.sort()).toEqual([next, rotated.body.next].sort());
  });

  it('when the next key was published moments ago, then rotation waits one cache age before it signs', async () => {
    const r1 = await request(h.app).post('/admin/keys/rotate').set(admin()).expect(200);
    const r2 = await request(h.app).post('/admin/keys/rotate').set(admin()).expect(200);
    expect(r2.body.activated).toBe(r1.body.next);
    expect(new Date(r2.body.activatesAt).getTime()).toBe(h.clock.now + 300_000);
    // activatesAt is the activated key's own activation, as GET /admin/keys lists it.
    const listed = await request(h.app).get('/admin/keys').set(admin()).expect(200);
    expect(listed.body.keys).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kid: r2.body.activated, status: 'next', activatesAt: r2.body.activatesAt }),
      ]),
    );
    expect(jwt.decode(await login(h), { complete: true })!.header.kid).toBe(r1.body.activated);
    h.clock.advance(300_000);
    expect(jwt.decode(await login(h), { complete: true })!.header.kid).toBe(r2.body.activated);
  });

  it('when another replica rotated, then refresh picks the new keys up', async () => {
    const other = await startHarness();
    try {
      const before = other.services.keys.currentKey()!.kid;
      other.clock.advance(HOUR);
      await other.services.keys.rotate();
      expect(other.services.keys.currentKey()!.kid).not.toBe(before);
    } finally {
      await other.close();
    }
  });
});
