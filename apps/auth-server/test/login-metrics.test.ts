// auth_logins_total counts each login once, by what it came to: `throttled` only for the throttle's 429, so
// an outage (every login a 500) is `error` and does not look like password guessing; a slowed login is
// counted apart, in auth_logins_slowed_total, besides its own outcome.
import { metrics } from '@cr/service-kit';
import request from 'supertest';
import { type Harness, createClient, startHarness } from './helpers';

const PASSWORD = 'acme-password-123';

/** auth_logins_total by outcome, and auth_logins_slowed_total under its own name. */
async function loginCounts(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const v of (await metrics.auth.logins.get()).values) counts[String(v.labels.outcome)] = v.value;
  counts.auth_logins_slowed_total = (await metrics.auth.loginsSlowed.get()).values[0]?.value ?? 0;
  return counts;
}

/** How each count moved while `act` ran (zeros left out). */
async function countsMovedBy(act: () => Promise<void>): Promise<Record<string, number>> {
  const before = await loginCounts();
  await act();
  const after = await loginCounts();
  const moved: Record<string, number> = {};
  for (const [k, v] of Object.entries(after)) if (v !== (before[k] ?? 0)) moved[k] = v - (before[k] ?? 0);
  return moved;
}

const attempt = (h: Harness, password: string, ip: string) =>
  request(h.app).post('/login').set('x-forwarded-for', ip).send({ base: 'acme', password });

describe('auth_logins_total', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      trustProxy: 1,
      throttle: {
        perBaseIp: { freeFailures: 3, baseDelayMs: 1000, maxDelayMs: 60_000 },
        perBase: { freeFailures: 2, baseDelayMs: 1000, maxDelayMs: 60_000 },
        attackDelayMs: 5,
      },
    });
    await createClient(h, { base: 'acme', password: PASSWORD }).expect(201);
  }, 120_000);
  afterAll(() => h.close());

  it('when a failing address is slowed because its base is under attack, then the login is counted once as invalid, and once as slowed', async () => {
    for (const ip of ['203.0.113.1', '203.0.113.2', '203.0.113.3'])
      expect((await attempt(h, 'guess', ip)).status).toBe(401);
    const logged = h.logs.text.length;

    const moved = await countsMovedBy(async () => {
      expect((await attempt(h, 'guess-again', '203.0.113.1')).status).toBe(401);
    });

    expect(h.logs.text.slice(logged)).toContain('login slowed');
    expect(moved).toEqual({ invalid: 1, auth_logins_slowed_total: 1 });
  });

  // Last: it closes the database.
  it('when the throttle refuses with 429, then the login is counted as throttled; when the database is down, then each login is counted once as error, none as throttled', async () => {
    let status = 401;
    for (let i = 0; i < 10 && status === 401; i++)
      status = (await attempt(h, `guess-${i}`, '203.0.113.9')).status;
    expect(status).toBe(429);
    const refused = await countsMovedBy(async () => {
      expect((await attempt(h, PASSWORD, '203.0.113.9')).status).toBe(429);
    });
    await h.db.close();

    const failed = await countsMovedBy(async () => {
      for (let i = 0; i < 5; i++) expect((await attempt(h, PASSWORD, '192.0.2.1')).status).toBe(500);
    });

    expect(refused).toEqual({ throttled: 1 });
    expect(failed).toEqual({ error: 5 });
  });
});
