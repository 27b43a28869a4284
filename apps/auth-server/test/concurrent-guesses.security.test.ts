// Attack (found 2026-12-03): the (base, address) throttle read blocked_until before the password check and
// counted a failure only after argon2, so a burst of wrong passwords sent at once from one address all read
// "not blocked" and all reached argon2: 40 guesses where the rules allow 6. Refused now: a password attempt
// is counted against its pair, atomically, in the statement that admits it.
import request from 'supertest';
import type { HashThreads } from '../src/hash-threads';
import { type Harness, admin, gateAfter, startHarness, until } from './helpers';

const PASSWORD = 'correct-horse-battery-staple';
// 5 free failures: the 6th attempt is let through and its failure starts the first wait (as sequentially).
const ALLOWED = 6;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    trustProxy: 1,
    throttle: { perBaseIp: { freeFailures: 5, baseDelayMs: 1000, maxDelayMs: 60_000 } },
  });
  for (const base of ['acme', 'globex'])
    await request(h.app).post('/admin/clients').set(admin()).send({ base, password: PASSWORD }).expect(201);
}, 120_000);
afterAll(() => h.close());

const attempt = (base: string, password: string, ip: string) =>
  request(h.app)
    .post('/login')
    .set('x-forwarded-for', ip)
    .send({ base, password })
    .then((r) => r);

function statusCounts(responses: request.Response[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const r of responses) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
}

describe('concurrent guesses from one address', () => {
  it('when 20 wrong passwords arrive at once, then only the allowance reaches argon2 and the rest are 429', async () => {
    // Every guess that reaches argon2 is held there until all 20 have been answered or are held.
    const gate = gateAfter(h.services.hasher, 'verify');
    let answered = 0;
    try {
      const pending = Array.from({ length: 20 }, (_, i) =>
        attempt('acme', `guess-${i}`, '203.0.113.9').then((r) => {
          answered++;
          return r;
        }),
      );
      await until(() => gate.calls + answered === 20);
      expect(gate.calls).toBe(ALLOWED);
      gate.release();
      const responses = await Promise.all(pending);
      expect(statusCounts(responses)).toEqual({ 401: ALLOWED, 429: 20 - ALLOWED });
      const refused = responses.find((r) => r.status === 429)!;
      expect(refused.body.error).toBe('too_many_requests');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    } finally {
      gate.release();
      gate.restore();
    }
    // The pair waits as it would after six sequential failures; another address is not affected.
    expect((await attempt('acme', PASSWORD, '203.0.113.9')).status).toBe(429);
    expect((await attempt('acme', PASSWORD, '198.51.100.1')).status).toBe(200);
  });

  it('when the right password is sent at once with wrong ones, then it logs in as it would have sequentially', async () => {
    const gate = gateAfter(h.services.hasher, 'verify');
    let answered = 0;
    try {
      const right = attempt('globex', PASSWORD, '203.0.113.10');
      await gate.reached;
      const wrong = Array.from({ length: 19 }, (_, i) =>
        attempt('globex', `guess-${i}`, '203.0.113.10').then((r) => {
          answered++;
          return r;
        }),
      );
      await until(() => gate.calls + answered === 20);
      gate.release();
      expect((await right).status).toBe(200);
      // The right one was the first of the six the rules let through.
      expect(statusCounts(await Promise.all(wrong))).toEqual({ 401: ALLOWED - 1, 429: 20 - ALLOWED });
    } finally {
      gate.release();
      gate.restore();
    }
  });
});

describe('attempts that get no verdict', () => {
  it('when the hash queue is full, then the 503s are not counted against the address', async () => {
    const busy = await startHarness({
      trustProxy: 1,
      hashConcurrency: 1,
      hashQueueLimit: 0,
      throttle: { perBaseIp: { freeFailures: 2, baseDelayMs: 1000, maxDelayMs: 60_000 } },
    });
    // The argon2 thread's answer is held, so the one hashing slot stays taken.
    const threads = (busy.services.hasher as unknown as { threads: HashThreads }).threads;
    const gate = gateAfter(threads, 'verify');
    try {
      await request(busy.app).post('/admin/clients').set(admin()).send({ base: 'acme', password: PASSWORD });
      const holder = request(busy.app)
        .post('/login')
        .set('x-forwarded-for', '198.51.100.2')
        .send({ base: 'acme', password: PASSWORD })
        .then((r) => r);
      await gate.reached;
      for (let i = 0; i < 5; i++) {
        const r = await request(busy.app)
          .post('/login')
          .set('x-forwarded-for', '203.0.113.11')
          .send({ base: 'acme', password: PASSWORD });
        expect(r.status).toBe(503);
      }
      gate.release();
      expect((await holder).status).toBe(200);
      gate.restore();
      // None of the five was counted: the address still has both free failures, then the right password passes.
      const login = (password: string) =>
        request(busy.app)
          .post('/login')
          .set('x-forwarded-for', '203.0.113.11')
          .send({ base: 'acme', password });
      expect((await login('wrong-1')).status).toBe(401);
      expect((await login('wrong-2')).status).toBe(401);
      expect((await login(PASSWORD)).status).toBe(200);
    } finally {
      gate.release();
      gate.restore();
      await busy.close();
    }
  });
});
