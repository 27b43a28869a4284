import request from 'supertest';
import { ADMIN_TOKEN, type Harness, admin, startHarness } from './helpers';

const PASSWORD = 'correct-horse-battery-staple';

describe('brute-force throttling (frozen clock)', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({
      trustProxy: 1,
      throttle: {
        perBaseIp: { freeFailures: 3, baseDelayMs: 1000, maxDelayMs: 60_000 },
        perBase: { freeFailures: 8, baseDelayMs: 1000, maxDelayMs: 60_000 },
        attackDelayMs: 5,
      },
    });
    await request(h.app)
      .post('/admin/clients')
      .set(admin())
      .send({ base: 'acme', password: PASSWORD })
      .expect(201);
  });
  afterAll(() => h.close());

  const attempt = (base: string, password: string, ip = '10.0.0.1') =>
    request(h.app).post('/login').set('x-forwarded-for', ip).send({ base, password });

  it('when failures pass the allowance, then 429 with Retry-After growing, identical for unknown clients, and it recovers', async () => {
    for (const base of ['acme', 'nobody']) {
      for (let i = 0; i < 3; i++) expect((await attempt(base, 'wrong-password')).status).toBe(401);
      // The 4th failure starts a 1 s wait.
      expect((await attempt(base, 'wrong-password')).status).toBe(401);
    }
    const known = await attempt('acme', PASSWORD);
    const unknown = await attempt('nobody', PASSWORD);
    expect(known.status).toBe(429);
    expect(unknown.status).toBe(429);
    expect(known.headers['retry-after']).toBe('1');
    expect(unknown.headers['retry-after']).toBe('1');
    expect({ ...known.body, requestId: undefined }).toEqual({ ...unknown.body, requestId: undefined });
    expect(known.body.error).toBe('too_many_requests');

    // Waiting it out lets the next attempt through; another failure doubles the wait.
    h.clock.advance(1000);
    expect((await attempt('acme', 'wrong-password')).status).toBe(401);
    const doubled = await attempt('acme', PASSWORD);
    expect(doubled.status).toBe(429);
    expect(doubled.headers['retry-after']).toBe('2');

    h.clock.advance(2000);
    expect((await attempt('acme', PASSWORD)).status).toBe(200);
    // The success cleared this address's counter.
    expect((await attempt('acme', 'wrong-password')).status).toBe(401);
    expect((await attempt('acme', PASSWORD)).status).toBe(200);
  });

  it('when many addresses fail against one base, then nobody is locked out: a fresh address logs in at once', async () => {
    await request(h.app)
      .post('/admin/clients')
      .set(admin())
      .send({ base: 'target', password: PASSWORD })
      .expect(201);
    // The lockout attack: bases are public, so anyone could drive the per-base counter past its allowance.
    for (let i = 0; i < 9; i++)
      expect((await attempt('target', 'wrong-password', `10.1.0.${i}`)).status).toBe(401);
    const fresh = await attempt('target', PASSWORD, '10.9.9.9');
    expect(fresh.status).toBe(200);
  });

  it('when an IPv6 client takes a new address of its /64 for every attempt, then its failures still add up', async () => {
    await request(h.app)
      .post('/admin/clients')
      .set(admin())
      .send({ base: 'sixer', password: PASSWORD })
      .expect(201);
    // Counted per /128, each attempt would be a fresh pair with its own free failures.
    for (let i = 1; i <= 4; i++)
      expect((await attempt('sixer', 'wrong-password', `2001:db8:6:6::${i}`)).status).toBe(401);
    const sameNetwork = await attempt('sixer', PASSWORD, '2001:db8:6:6:ffff:ffff:ffff:fffe');
    expect(sameNetwork.status).toBe(429);
    expect(sameNetwork.headers['retry-after']).toBe('1');
    // Another /64 is another client.
    expect((await attempt('sixer', PASSWORD, '2001:db8:6:7::1')).status).toBe(200);
  });

  it('when stale counters are pruned, then only old, non-blocking rows go', async () => {
    h.clock.advance(2 * 3600_000);
    expect(await h.services.throttle.prune()).toBeGreaterThan(0);
    // Only the remembered successful pairs stay (30 days), with no failure counted.
    const left = await h.db.query<{ scope: string; failures: number }>(
      'SELECT scope, failures FROM login_failures',
    );
    expect(left.rows.every((r) => r.scope === 'base_ip' && Number(r.failures) === 0)).toBe(true);
    expect(left.rows.length).toBeGreaterThan(0);
  });
});

describe('secrets never reach the logs', () => {
  it('when clients log in, fail, log out and admins work, then no password, token, private key or admin token is logged', async () => {
    const h = await startHarness({ trustProxy: 1 });
    try {
      await request(h.app)
        .post('/admin/clients')
        .set(admin())
        .send({ base: 'acme', password: PASSWORD })
        .expect(201);
      const ok = await request(h.app).post('/login').send({ base: 'acme', password: PASSWORD }).expect(200);
      await request(h.app).post('/login').send({ base: 'acme', password: 'wrong-Pa55word' }).expect(401);
      await request(h.app).post('/login').send({ base: 'acme', password: 12345 }).expect(400);
      await request(h.app).post('/logout').set('authorization', `Bearer ${ok.body.token}`).expect(200);
      await request(h.app)
        .post('/admin/keys/rotate')
        .set('authorization', 'Bearer wrong-admin-token-attempt-xyz')
        .expect(401);
      await request(h.app).post('/admin/keys/rotate').set(admin()).expect(200);
      await request(h.app).get('/admin/keys').set(admin()).expect(200);

      const text = h.logs.text;
      expect(text).toContain('"message":"login"');
      expect(text).toContain('login refused');
      for (const secret of [
        PASSWORD,
        'wrong-Pa55word',
        ok.body.token,
        ADMIN_TOKEN,
        'wrong-admin-token-attempt-xyz',
      ]) {
        expect(text).not.toContain(secret);
      }
      expect(text).not.toContain(ok.body.token.split('.')[2]);
      expect(text).not.toMatch(/PRIVATE KEY|\$argon2id/);
      const sealed = await h.db.query<{ private_sealed: string }>('SELECT private_sealed FROM signing_keys');
      for (const r of sealed.rows) expect(text).not.toContain(r.private_sealed.split('.')[4]!.slice(0, 40));
    } finally {
      await h.close();
    }
  });
});
