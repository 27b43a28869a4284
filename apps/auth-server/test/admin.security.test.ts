import request from 'supertest';
import { ADMIN_TOKEN, type Harness, admin, startHarness } from './helpers';

describe('admin API', () => {
  let h: Harness;
  let closed: Harness;

  beforeAll(async () => {
    h = await startHarness();
    closed = await startHarness({ adminToken: undefined });
  });
  afterAll(async () => {
    await h.close();
    await closed.close();
  });

  it.each([
    ['no header', undefined],
    ['a wrong token', 'Bearer not-the-admin-token-at-all-000'],
    ['a token one character short', `Bearer ${ADMIN_TOKEN.slice(0, -1)}`],
    ['another scheme', `Basic ${ADMIN_TOKEN}`],
  ])('when the request has %s, then 401 unauthorized', async (_name, header) => {
    const req = request(h.app).post('/admin/clients').send({ base: 'acme', password: 'correct-horse-1' });
    if (header) req.set('authorization', header);
    const res = await req.expect(401);
    expect(res.body.error).toBe('unauthorized');
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(await h.services.clients.find('acme')).toBeUndefined();
  });

  it('when no admin token is configured, then the admin API answers 404 like an unknown route', async () => {
    const res = await request(closed.app).post('/admin/keys/rotate').set(admin()).expect(404);
    expect(res.body.error).toBe('not_found');
  });

  it('when a key operation gets a field it does not take, then 400 naming it and no key changed', async () => {
    const keys = () => h.services.keys.publishedKeys().map((k) => `${k.kid}:${k.status}`);
    const before = keys();
    const current = h.services.keys.currentKey()!.kid;
    const rotate = await request(h.app).post('/admin/keys/rotate').set(admin()).send({ kid: current });
    expect(rotate.status).toBe(400);
    expect(rotate.body).toMatchObject({ error: 'bad_request', message: 'kid: is not an allowed field' });
    const retire = await request(h.app)
      .post(`/admin/keys/${current}/retire`)
      .set(admin())
      .send({ reason: 'leaked' });
    expect(retire.status).toBe(400);
    expect(retire.body).toMatchObject({ error: 'bad_request', message: 'reason: is not an allowed field' });
    expect(keys()).toEqual(before);
  });

  it('when creating a client twice, then 409 conflict', async () => {
    await request(h.app)
      .post('/admin/clients')
      .set(admin())
      .send({ base: 'twice', password: 'correct-horse-1' })
      .expect(201);
    const res = await request(h.app)
      .post('/admin/clients')
      .set(admin())
      .send({ base: 'twice', password: 'other-horse-12' });
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('conflict');
  });

  it.each([
    ['upper case', 'Acme'],
    ['leading hyphen', '-acme'],
    ['trailing hyphen', 'acme-'],
    ['dot', 'ac.me'],
    ['64 characters', 'a'.repeat(64)],
    ['empty', ''],
  ])('when the base is not a DNS label (%s), then 400 naming base', async (_name, base) => {
    const res = await request(h.app)
      .post('/admin/clients')
      .set(admin())
      .send({ base, password: 'correct-horse-1' });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('base');
  });

  it('when the password is shorter than 12 characters, then 400 naming password', async () => {
    const res = await request(h.app)
      .post('/admin/clients')
      .set(admin())
      .send({ base: 'shorty', password: 'short' });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('password');
  });

  it('when a client is deleted, then it can no longer log in and deleting again is 404', async () => {
    await request(h.app)
      .post('/admin/clients')
      .set(admin())
      .send({ base: 'gone', password: 'correct-horse-1' })
      .expect(201);
    await request(h.app).post('/login').send({ base: 'gone', password: 'correct-horse-1' }).expect(200);
    await request(h.app).delete('/admin/clients/gone').set(admin()).expect(204);
    await request(h.app).post('/login').send({ base: 'gone', password: 'correct-horse-1' }).expect(401);
    await request(h.app).delete('/admin/clients/gone').set(admin()).expect(404);
  });

  it('when a client is disabled and enabled again, then it logs in again', async () => {
    await request(h.app)
      .post('/admin/clients')
      .set(admin())
      .send({ base: 'flip', password: 'correct-horse-1' })
      .expect(201);
    await request(h.app).patch('/admin/clients/flip').set(admin()).send({ disabled: true }).expect(200);
    await request(h.app).post('/login').send({ base: 'flip', password: 'correct-horse-1' }).expect(401);
    await request(h.app).patch('/admin/clients/flip').set(admin()).send({ disabled: false }).expect(200);
    await request(h.app).post('/login').send({ base: 'flip', password: 'correct-horse-1' }).expect(200);
  });

  it('stores passwords only as argon2id PHC strings and keeps private keys sealed', async () => {
    await request(h.app)
      .post('/admin/clients')
      .set(admin())
      .send({ base: 'stored', password: 'correct-horse-1' })
      .expect(201);
    const client = await h.db.query<{ password_hash: string }>(
      "SELECT password_hash FROM clients WHERE base = 'stored'",
    );
    expect(client.rows[0]!.password_hash).toMatch(/^\$argon2id\$v=19\$/);
    const keys = await h.db.query<{ private_sealed: string }>('SELECT private_sealed FROM signing_keys');
    for (const k of keys.rows) {
      expect(k.private_sealed).toMatch(/^v1\.t1\./);
      expect(k.private_sealed).not.toContain('PRIVATE KEY');
    }
  });
});
