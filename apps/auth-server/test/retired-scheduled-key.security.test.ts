// A key retired while only scheduled to sign (a rotation publishes the next key no sooner than one JWKS cache
// age before it signs) kept its scheduled activation. Read as history, it made the key that went on signing
// look replaced at that time: hours later a rotation dropped that key from the JWKS and the database while
// tokens it had signed minutes before still had up to 8 h to live (ARCHITECTURE Decision 4: keep a key
// "until the last token signed with it expires").
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { type Harness, admin, publishedKids, startHarness } from './helpers';

const PASSWORD = 'correct-horse-battery-staple';
const HOUR = 3_600_000;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await request(h.app)
    .post('/admin/clients')
    .set(admin())
    .send({ base: 'acme', password: PASSWORD })
    .expect(201);
}, 120_000);
afterAll(() => h.close());

it('when a scheduled key is retired before it signs, then the key that kept signing outlives its tokens', async () => {
  const signing = h.services.keys.currentKey()!.kid;
  h.clock.advance(10_000);
  const rotated = await request(h.app).post('/admin/keys/rotate').set(admin()).expect(200);
  const scheduled = rotated.body.activated as string;
  expect(Date.parse(rotated.body.activatesAt)).toBeGreaterThan(h.clock.now);
  h.clock.advance(10_000);
  const retired = await request(h.app).post(`/admin/keys/${scheduled}/retire`).set(admin()).expect(200);
  expect(retired.body.current).toBe(signing);

  // Past the scheduled time plus a token's life and the cache age, the same key still signs.
  h.clock.advance(9 * HOUR);
  expect(h.services.keys.currentKey()!.kid).toBe(signing);
  const login = await request(h.app).post('/login').send({ base: 'acme', password: PASSWORD }).expect(200);
  expect(jwt.decode(login.body.token, { complete: true })!.header.kid).toBe(signing);
  h.clock.advance(60_000);

  await request(h.app).post('/admin/keys/rotate').set(admin()).expect(200);
  expect(await publishedKids(h)).toContain(signing);
  await request(h.app).post('/logout').set('authorization', `Bearer ${login.body.token}`).expect(200);
});
