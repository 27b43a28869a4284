// Two attacks on the auth-server's edges.
// 1. TRUST_PROXY=true behind one gateway: a client forging a fresh X-Forwarded-For on every attempt looked
//    like a new address each time, so the per-(base, IP) counter never grew. With "true" = one hop, the
//    address is the one the gateway saw and the counter holds.
// 2. An anonymous /health read the database's raw error; now only /health/details (HEALTH_TOKEN) has it.
import { parseTrustProxy } from '@cr/service-kit';
import request from 'supertest';
import { loadAuthConfig } from '../src/config';
import { type Harness, admin, startHarness } from './helpers';

const PASSWORD = 'correct-horse-battery-staple';
const HEALTH_TOKEN = 'health-token-0123456789abcdef';

describe('TRUST_PROXY=true is one hop', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      trustProxy: parseTrustProxy('true'),
      throttle: { perBaseIp: { freeFailures: 3, baseDelayMs: 1000, maxDelayMs: 60_000 } },
    });
    await request(h.app)
      .post('/admin/clients')
      .set(admin())
      .send({ base: 'acme', password: PASSWORD })
      .expect(201);
  });
  afterAll(() => h.close());

  it('when an attacker forges a new X-Forwarded-For on every attempt, then the per-address throttle still engages', async () => {
    const attempt = (i: number, password: string) =>
      request(h.app)
        .post('/login')
        .set('x-forwarded-for', `198.51.100.${i}, 203.0.113.7`)
        .send({ base: 'acme', password });
    for (let i = 0; i < 4; i++) expect((await attempt(i, 'wrong-password')).status).toBe(401);
    const refused = await attempt(99, 'wrong-password');
    expect(refused.status).toBe(429);
    const rows = await h.db.query<{ key: string }>(`SELECT key FROM login_failures WHERE scope = 'base_ip'`);
    expect(rows.rows.map((r) => r.key)).toEqual(['acme\n203.0.113.7']);
  });
});

describe('health details need HEALTH_TOKEN', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ healthToken: HEALTH_TOKEN });
  });
  afterAll(() => h.close());

  it('when the database is down, then /health says "failing" and only /health/details gives the reason', async () => {
    await h.db.close();
    const open = await request(h.app).get('/health').expect(503);
    expect(open.body.checks.database).toBe('failing');
    const denied = await request(h.app).get('/health/details').expect(401);
    expect(JSON.stringify(denied.body)).not.toMatch(/closed|terminat|connect/i);
    const details = await request(h.app)
      .get('/health/details')
      .set('authorization', `Bearer ${HEALTH_TOKEN}`)
      .expect(503);
    expect(details.body.checks.database).not.toBe('failing');
    expect(details.body.checks.database.length).toBeGreaterThan(0);
    expect(details.body.checks.signingKey).toBe('ok');
  });
});

describe('settings', () => {
  it('when AUTH_HOST is not set, then the server binds loopback only', () => {
    expect(loadAuthConfig({}).AUTH_HOST).toBe('127.0.0.1');
  });
});
