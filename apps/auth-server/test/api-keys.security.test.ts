// API keys (issue 11, item 3): per-client machine credentials, stored as digests only, scoped, revocable,
// shown once, exchanged at POST /login for the same RS256 token with the key's scopes.
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { CreatedApiKey, RevocationList, type TokenClaims, validate } from '@cr/contracts';
import { INVALID_CREDENTIALS_BODY } from '../src/routes/login';
import { type Harness, admin, startHarness } from './helpers';

const PASSWORD = 'correct-horse-battery-staple';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  for (const base of ['acme', 'globex'])
    await request(h.app).post('/admin/clients').set(admin()).send({ base, password: PASSWORD }).expect(201);
}, 120_000);
afterAll(() => h.close());

async function createKey(
  base: string,
  scopes = ['documents:write', 'documents:read'],
): Promise<CreatedApiKey> {
  const res = await request(h.app)
    .post(`/admin/clients/${base}/api-keys`)
    .set(admin())
    .send({ name: 'ERP', scopes })
    .expect(201);
  expect(validate(CreatedApiKey, res.body).ok).toBe(true);
  expect(res.headers['cache-control']).toBe('no-store');
  return res.body;
}

function claimsOf(token: string): TokenClaims {
  return jwt.decode(token) as TokenClaims;
}

describe('API keys', () => {
  it('when a key is created, then it is shown once: the list and the database hold only its digest', async () => {
    const created = await createKey('acme');
    expect(created.key).toMatch(/^crk_[A-Za-z0-9_-]{16}_[A-Za-z0-9_-]{43}$/);
    expect(created.key).toContain(created.id);
    const secret = created.key.slice(`crk_${created.id}_`.length);
    const list = await request(h.app).get('/admin/clients/acme/api-keys').set(admin()).expect(200);
    expect(JSON.stringify(list.body)).not.toContain(secret);
    expect(list.body.keys).toContainEqual(expect.objectContaining({ id: created.id, revokedAt: null }));
    const rows = await h.db.query('SELECT * FROM api_keys WHERE id = $1', [created.id]);
    expect(JSON.stringify(rows.rows)).not.toContain(secret);
    expect(h.logs.text).not.toContain(secret);
  });

  it('when a client logs in with its key, then the token carries the key’s scopes and id; a password login none', async () => {
    const created = await createKey('acme', ['lookups:read', 'documents:read']);
    const res = await request(h.app).post('/login').send({ base: 'acme', apiKey: created.key }).expect(200);
    expect(claimsOf(res.body.token)).toMatchObject({
      sub: 'acme',
      base: 'acme',
      scope: 'documents:read lookups:read',
      akid: created.id,
    });
    const byPassword = await request(h.app)
      .post('/login')
      .send({ base: 'acme', password: PASSWORD })
      .expect(200);
    const claims = claimsOf(byPassword.body.token);
    expect(claims.scope).toBeUndefined();
    expect(claims.akid).toBeUndefined();
    const listed = await request(h.app).get('/admin/clients/acme/api-keys').set(admin()).expect(200);
    const used = listed.body.keys.find((k: { id: string }) => k.id === created.id);
    expect(used.lastUsedAt).toEqual(expect.any(String));
  });

  it.each([
    ['a wrong secret', (key: string) => `${key.slice(0, -3)}AAA`, 'acme'],
    ['another client’s base', (key: string) => key, 'globex'],
    ['a malformed key', () => 'crk_nope', 'acme'],
    ['a password sent as a key', () => PASSWORD, 'acme'],
  ])('when the key is %s, then the same 401 as a wrong password', async (_what, mutate, base) => {
    const created = await createKey('acme');
    const res = await request(h.app)
      .post('/login')
      .send({ base, apiKey: mutate(created.key) })
      .expect(401);
    expect(res.text).toBe(INVALID_CREDENTIALS_BODY);
  });

  it('when a key is revoked, then it no longer logs in and its tokens are published as revoked', async () => {
    const created = await createKey('acme');
    await request(h.app).post('/login').send({ base: 'acme', apiKey: created.key }).expect(200);
    h.clock.advance(2_000);
    const revoked = await request(h.app)
      .delete(`/admin/clients/acme/api-keys/${created.id}`)
      .set(admin())
      .expect(200);
    expect(revoked.body.revokedAt).toEqual(expect.any(String));
    const res = await request(h.app).post('/login').send({ base: 'acme', apiKey: created.key }).expect(401);
    expect(res.text).toBe(INVALID_CREDENTIALS_BODY);
    const list = await request(h.app).get('/revocations?since=0').expect(200);
    expect(validate(RevocationList, list.body).ok).toBe(true);
    expect(list.body.revokedSubjects).toContainEqual({
      sub: `apikey:${created.id}`,
      notBefore: expect.any(Number),
    });
    // Other keys and the password still work.
    const other = await createKey('acme');
    await request(h.app).post('/login').send({ base: 'acme', apiKey: other.key }).expect(200);
  });

  it('when the client is disabled, then its keys stop logging in too', async () => {
    await request(h.app).post('/admin/clients').set(admin()).send({ base: 'sleepy', password: PASSWORD });
    const created = await createKey('sleepy');
    await request(h.app).patch('/admin/clients/sleepy').set(admin()).send({ disabled: true }).expect(200);
    const res = await request(h.app).post('/login').send({ base: 'sleepy', apiKey: created.key }).expect(401);
    expect(res.text).toBe(INVALID_CREDENTIALS_BODY);
  });

  it('when password and apiKey are both sent, or neither, then 400 naming the field', async () => {
    const both = await request(h.app)
      .post('/login')
      .send({ base: 'acme', password: PASSWORD, apiKey: 'crk_x' })
      .expect(400);
    expect(both.body.message).toContain('apiKey:');
    const neither = await request(h.app).post('/login').send({ base: 'acme' }).expect(400);
    expect(neither.body.message).toContain('password: is required');
  });

  it('when keys are managed without the admin token, with an unknown scope or for an unknown client, then refused', async () => {
    await request(h.app)
      .post('/admin/clients/acme/api-keys')
      .send({ name: 'x', scopes: ['documents:read'] })
      .expect(401);
    await request(h.app).get('/admin/clients/acme/api-keys').expect(401);
    const badScope = await request(h.app)
      .post('/admin/clients/acme/api-keys')
      .set(admin())
      .send({ name: 'x', scopes: ['admin:everything'] })
      .expect(400);
    expect(badScope.body.message).toContain('scopes');
    // A name is shown in lists and logs: one line, and never reversed by a bidirectional override.
    for (const name of ['ERP\nadmin key', 'ERP\u202Eyek nimda']) {
      const badName = await request(h.app)
        .post('/admin/clients/acme/api-keys')
        .set(admin())
        .send({ name, scopes: ['documents:read'] })
        .expect(400);
      expect(badName.body.message).toMatch(/^name: must be one line of text/);
    }
    await request(h.app)
      .post('/admin/clients/nobody/api-keys')
      .set(admin())
      .send({ name: 'x', scopes: ['documents:read'] })
      .expect(404);
    await request(h.app).delete('/admin/clients/globex/api-keys/AAAAAAAAAAAAAAAA').set(admin()).expect(404);
  });
});
