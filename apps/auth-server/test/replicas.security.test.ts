// Attack (found 2026-12-03): retiring a leaked signing key re-read the keys only on the replica that handled
// the request; every other replica kept signing with the retired key, and publishing it in its JWKS, until
// its periodic refresh (KEY_REFRESH_SECONDS, 60 s): tokens signed by a key the operator believed withdrawn,
// and verifiers refetching the JWKS from such a replica kept trusting it for another cache age. Refused now:
// a replica re-reads the keys before signing or serving the JWKS when its view is older than a few seconds.
import type { Express } from 'express';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { SecretBox } from '@cr/service-kit';
import { createApp } from '../src/app';
import { KEY_VIEW_MAX_AGE_MS } from '../src/keys';
import { type AuthServices, createAuthServices } from '../src/services';
import { ADMIN_TOKEN, type Harness, TEST_ARGON2, admin, startHarness } from './helpers';

const PASSWORD = 'correct-horse-battery-staple';

let a: Harness;
let b: AuthServices;
let appB: Express;
beforeAll(async () => {
  a = await startHarness();
  // A second replica on the same database and clock, as main.ts builds it.
  b = await createAuthServices({
    db: a.db,
    secretBox: new SecretBox([{ id: 't1', key: Buffer.alloc(32, 7) }]),
    logger: a.services.logger,
    now: () => a.clock.now,
    adminToken: ADMIN_TOKEN,
    argon2: TEST_ARGON2,
  });
  appB = createApp(b);
  await request(a.app)
    .post('/admin/clients')
    .set(admin())
    .send({ base: 'acme', password: PASSWORD })
    .expect(201);
}, 120_000);
afterAll(async () => {
  await b.hasher.close();
  await a.close();
});

const kidsOf = (jwks: request.Response) => JSON.parse(jwks.text).keys.map((k: { kid: string }) => k.kid);
const kidOf = (token: string) => jwt.decode(token, { complete: true })?.header.kid;

describe('a key retired through one replica', () => {
  it('when the current key is retired on A, then B stops signing with it and drops it from its JWKS within the view age', async () => {
    const retired = a.services.keys.currentKey()!.kid;
    // B has served both already: its JWKS is cached and it signs with the key about to be retired.
    expect(kidsOf(await request(appB).get('/.well-known/jwks.json').expect(200))).toContain(retired);
    const before = await request(appB).post('/login').send({ base: 'acme', password: PASSWORD }).expect(200);
    expect(kidOf(before.body.token)).toBe(retired);

    const r = await request(a.app).post(`/admin/keys/${retired}/retire`).set(admin()).expect(200);
    a.clock.advance(KEY_VIEW_MAX_AGE_MS);

    const jwks = await request(appB).get('/.well-known/jwks.json').expect(200);
    expect(kidsOf(jwks)).not.toContain(retired);
    expect(kidsOf(jwks)).toEqual(expect.arrayContaining([r.body.current, r.body.next]));
    const after = await request(appB).post('/login').send({ base: 'acme', password: PASSWORD }).expect(200);
    expect(kidOf(after.body.token)).toBe(r.body.current);
  });

  it('when the next key is retired on A, then it leaves B’s JWKS too', async () => {
    const next = a.services.keys.publishedKeys().find((k) => k.status === 'next')!.kid;
    expect(kidsOf(await request(appB).get('/.well-known/jwks.json').expect(200))).toContain(next);
    await request(a.app).post(`/admin/keys/${next}/retire`).set(admin()).expect(200);
    a.clock.advance(KEY_VIEW_MAX_AGE_MS);
    expect(kidsOf(await request(appB).get('/.well-known/jwks.json').expect(200))).not.toContain(next);
  });
});
