// Attack (issue 11, item 3): bases are public (they are the subdomains), and after 20 failures the per-base
// counter blocked EVERY address before the password was even checked, so anyone could lock any tenant out of
// /login. Refused now: the per-base count only slows failing, never-successful pairs and raises an alert; a
// pair with no failures, or with a recent success, is never held back; per-pair brute force still gets 429.
import request from 'supertest';
import { type Harness, admin, startHarness } from './helpers';

const PASSWORD = 'correct-horse-battery-staple';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    trustProxy: 1,
    throttle: {
      perBaseIp: { freeFailures: 5, baseDelayMs: 1000, maxDelayMs: 60_000 },
      perBase: { freeFailures: 20, baseDelayMs: 1000, maxDelayMs: 60_000 },
      attackDelayMs: 5,
    },
  });
  await request(h.app)
    .post('/admin/clients')
    .set(admin())
    .send({ base: 'acme', password: PASSWORD })
    .expect(201);
}, 120_000);
afterAll(() => h.close());

const attempt = (password: string, ip: string) =>
  request(h.app).post('/login').set('x-forwarded-for', ip).send({ base: 'acme', password });

describe('no lockout through the public base', () => {
  it('when 60 addresses each fail against acme, then the real client still logs in from a new and from its usual address', async () => {
    // The real client logged in yesterday from its office.
    expect((await attempt(PASSWORD, '192.0.2.10')).status).toBe(200);
    h.clock.advance(86_400_000);
    // The attack: three failures from each of 60 addresses (well past the per-base allowance of 20).
    for (let i = 0; i < 60; i++)
      for (let j = 0; j < 3; j++) expect((await attempt('guess-' + j, `203.0.113.${i}`)).status).toBe(401);

    // A fresh address (no failures) is never blocked nor slowed by the per-base signal.
    const before = h.logs.text.length;
    expect((await attempt(PASSWORD, '198.51.100.77')).status).toBe(200);
    expect(h.logs.text.slice(before)).not.toContain('login slowed');
    // The office: one typo, then the right password; its recent success keeps it trusted.
    expect((await attempt('typo', '192.0.2.10')).status).toBe(401);
    const office = h.logs.text.length;
    expect((await attempt(PASSWORD, '192.0.2.10')).status).toBe(200);
    expect(h.logs.text.slice(office)).not.toContain('login slowed');
  });

  it('when the base is under attack, then an attacking address is slowed (not refused) and an alert is logged once a minute', async () => {
    const before = h.logs.text.length;
    expect((await attempt('guess-x', '203.0.113.1')).status).toBe(401);
    const slice = h.logs.text.slice(before);
    expect(slice).toContain('login slowed: base under attack');
    expect(h.logs.text.match(/login attack on base/g)?.length).toBe(1);
    h.clock.advance(61_000);
    expect((await attempt('guess-y', '203.0.113.2')).status).toBe(401);
    expect(h.logs.text.match(/login attack on base/g)?.length).toBe(2);
  });

  it('when one address keeps guessing, then the per-pair counter still answers 429 with Retry-After', async () => {
    for (let i = 0; i < 6; i++) expect((await attempt(`pair-guess-${i}`, '203.0.113.200')).status).toBe(401);
    const refused = await attempt(PASSWORD, '203.0.113.200');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // …while the real client, elsewhere, is unaffected.
    expect((await attempt(PASSWORD, '198.51.100.78')).status).toBe(200);
  });
});
