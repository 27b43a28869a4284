// The public API's shared token bucket among many callers (ADR 0063): waiting callers take turns by lane (a
// tenant), a submission's check goes ahead of ordinary lookups, a lane has a few lookups at once at most, and
// no one waits for a token past a bound. Against the local fake of Hacienda's HTTP endpoints.
import type { Response } from 'express';
import {
  createHaciendaClients,
  HACIENDA_DEFAULTS,
  HaciendaPublicApi,
  HaciendaUpstreamError,
  RateLimitedError,
  TokenBucket,
} from '../src';
import { createFakeTime, FakeHacienda } from './fake-hacienda';

const fake = new FakeHacienda();

beforeAll(() => fake.start());
afterAll(() => fake.stop());
beforeEach(() => {
  fake.publicScript = [];
  fake.publicRequests = [];
});

/**
 * A clock moved by each sleep when it ends, on the event loop's next turn, as real time passes: callers who
 * ask at once all wait together (`createFakeTime` moves the clock as a sleep starts).
 */
function laterTime() {
  const time = createFakeTime();
  const sleep = (ms: number) => {
    time.sleeps.push(ms);
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        time.advance(ms);
        resolve();
      }),
    );
  };
  return { clock: time.clock, sleep, sleeps: time.sleeps };
}

/** A clock moved only by the sleeps, which wait until the test lets them end. */
function heldTime() {
  const time = createFakeTime();
  const held: Array<() => void> = [];
  return {
    clock: time.clock,
    sleep: (ms: number) =>
      new Promise<void>((resolve) =>
        held.push(() => {
          time.advance(ms);
          resolve();
        }),
      ),
    /** Ends the oldest sleep. */
    release() {
      held.shift()?.();
    },
  };
}

/** Answers held by Hacienda until `open()`: lookups stay in flight meanwhile. */
function holdAnswers(count: number) {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  for (let i = 0; i < count; i++) {
    fake.publicScript.push((_req, res: Response) => void opened.then(() => res.status(404).end()));
  }
  return { open };
}

/** Resolves once `done()` holds (checked every few milliseconds). */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('TokenBucket turns', () => {
  it('when one lane has many callers waiting, then a caller of another lane is served on the next turn, not after them', async () => {
    const time = laterTime();
    const bucket = new TokenBucket({ capacity: 1, refillPerSecond: 1, clock: time.clock, sleep: time.sleep });
    const order: string[] = [];
    const takes = ['a0', 'a1', 'a2', 'a3', 'a4', 'a5'].map((name) =>
      bucket.take({ lane: 'tenant-a' }).then(() => order.push(name)),
    );
    takes.push(bucket.take({ lane: 'tenant-b' }).then(() => order.push('b0')));
    await Promise.all(takes);
    // a0 had the token; a1's lane was first in the rotation, then b's turn came.
    expect(order).toEqual(['a0', 'a1', 'b0', 'a2', 'a3', 'a4', 'a5']);
    // The rate is the bucket's: one token a second after the first.
    expect(time.sleeps).toEqual([1_000, 1_000, 1_000, 1_000, 1_000, 1_000]);
  });

  it('when urgent callers (submission checks) wait, then they go first, yet ordinary lookups keep one turn in three', async () => {
    const time = laterTime();
    const bucket = new TokenBucket({ capacity: 1, refillPerSecond: 1, clock: time.clock, sleep: time.sleep });
    const order: string[] = [];
    const take = (name: string, options: Parameters<TokenBucket['take']>[0]) =>
      bucket.take(options).then(() => order.push(name));
    const takes = [
      take('a0', { lane: 'tenant-a' }),
      take('a1', { lane: 'tenant-a' }),
      take('a2', { lane: 'tenant-a' }),
      take('c0', { lane: 'tenant-c', urgent: true }),
      take('c1', { lane: 'tenant-c', urgent: true }),
      take('d0', { lane: 'tenant-d', urgent: true }),
      take('c2', { lane: 'tenant-c', urgent: true }),
    ];
    await Promise.all(takes);
    expect(order).toEqual(['a0', 'c0', 'd0', 'a1', 'c1', 'c2', 'a2']);
  });

  it('when no token comes within maxWaitMs, then RateLimitedError at the deadline with when to come back', async () => {
    const time = laterTime();
    const bucket = new TokenBucket({ capacity: 1, refillPerSecond: 1, clock: time.clock, sleep: time.sleep });
    const outcomes = await Promise.allSettled(
      [0, 1, 2, 3, 4].map((i) => bucket.take({ lane: `tenant-${i}`, maxWaitMs: 2_500 })),
    );
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'rejected',
    ]);
    const refused = (outcomes[3] as PromiseRejectedResult).reason;
    expect(refused).toBeInstanceOf(RateLimitedError);
    expect(refused.message).toMatch(/no token within 2\.5 s/);
    // Refused at 2,500 ms (not at 3,000 when a token would have come); the next token is 500 ms away.
    expect(time.sleeps).toEqual([1_000, 1_000, 500]);
    expect(refused.retryAfterMs).toBe(500);
  });

  it('when the bucket is drained and the caller may not wait, then it is refused at once', async () => {
    const time = laterTime();
    const bucket = new TokenBucket({ capacity: 1, refillPerSecond: 1, clock: time.clock, sleep: time.sleep });
    await bucket.take();
    await expect(bucket.take({ maxWaitMs: 0 })).rejects.toMatchObject({ retryAfterMs: 1_000 });
    expect(time.sleeps).toEqual([]);
  });
});

describe('HaciendaPublicApi lanes', () => {
  it('when a lane has its lookups in flight, then its next is refused at once without reaching Hacienda or its hook; other lanes and its submission checks pass', async () => {
    const client = new HaciendaPublicApi({ baseUrl: fake.url, timeoutMs: 5_000, lookupsPerLane: 2 });
    const held = holdAnswers(2);
    const inFlight = [
      client.taxpayer('100000001', { lane: 'acme' }),
      client.taxpayer('100000002', { lane: 'acme' }),
    ];
    await until(() => fake.publicRequests.length === 2);
    let hooked = 0;
    const beforeRequest = async () => {
      hooked += 1;
    };
    const third = await client.taxpayer('100000003', { lane: 'acme', beforeRequest }).catch((e) => e);
    expect(third).toBeInstanceOf(RateLimitedError);
    expect(third.message).toMatch(/2 at once/);
    expect(third.retryAfterMs).toBeGreaterThan(0);
    expect(hooked).toBe(0);
    expect(await client.taxpayer('2100042005', { lane: 'beta' })).toMatchObject({ kind: 'found' });
    // A submission's check is bounded by the submissions in progress, not by the lane's lookups.
    expect(await client.exoneration('AL-00460853-20', { lane: 'acme', urgent: true })).toMatchObject({
      kind: 'found',
    });
    expect(fake.publicRequests.filter((r) => r.includes('100000003'))).toEqual([]);
    held.open();
    await Promise.all(inFlight);
    // The lane's slots are free again once its lookups are answered.
    expect(await client.taxpayer('100000003', { lane: 'acme', beforeRequest })).toEqual({ kind: 'notFound' });
    expect(hooked).toBe(1);
  });

  it('when a lookup gets no token within maxWaitMs, then a 502 upstream error with Retry-After, and nothing is sent', async () => {
    const time = createFakeTime();
    const client = new HaciendaPublicApi({
      baseUrl: fake.url,
      timeoutMs: 5_000,
      clock: time.clock,
      sleep: time.sleep,
      maxWaitMs: 3_000,
      bucket: new TokenBucket({ capacity: 1, refillPerSecond: 0.1, clock: time.clock, sleep: time.sleep }),
    });
    expect((await client.taxpayer('2100042005', { lane: 'acme' })).kind).toBe('found');
    const err = await client.taxpayer('100000001', { lane: 'beta' }).catch((e) => e);
    expect(err).toBeInstanceOf(HaciendaUpstreamError);
    expect(err).toMatchObject({ code: 'upstream_error', status: 502 });
    expect(err.message).toMatch(/no turn within 3 s/);
    expect(err.retryAfterMs).toBeGreaterThan(0);
    expect(err.headers?.['Retry-After']).toMatch(/^\d+$/);
    expect(fake.publicRequests).toHaveLength(1);
    expect(time.sleeps).toEqual([3_000]);
  });

  it('when Hacienda answers 429 while others wait for a token, then they do not call it when their turn comes', async () => {
    const time = heldTime();
    const client = new HaciendaPublicApi({
      baseUrl: fake.url,
      timeoutMs: 5_000,
      clock: time.clock,
      sleep: time.sleep,
      bucket: new TokenBucket({ capacity: 1, refillPerSecond: 1, clock: time.clock, sleep: time.sleep }),
    });
    fake.publicScript.push((_req, res) => res.status(429).set('Retry-After', '120').end());
    const first = client.taxpayer('2100042005', { lane: 'acme' }).catch((e) => e);
    const waiting = client.taxpayer('100000001', { lane: 'beta' }).catch((e) => e);
    expect(await first).toMatchObject({ retryAfterMs: 120_000 });
    time.release(); // beta's token comes during the pause
    const err = await waiting;
    expect(err).toBeInstanceOf(HaciendaUpstreamError);
    expect(err.message).toMatch(/pausing after a 429/);
    expect(fake.publicRequests).toHaveLength(1);
  });

  it('when the settings name the lookups per tenant and the longest wait, then the clients hold to them', async () => {
    const clients = createHaciendaClients({
      ...HACIENDA_DEFAULTS,
      HACIENDA_PUBLIC_API_URL: fake.url,
      HACIENDA_LOOKUPS_PER_TENANT: 1,
      HACIENDA_LOOKUP_MAX_WAIT_MS: 1_000,
    });
    const held = holdAnswers(1);
    const first = clients.publicApi.taxpayer('100000001', { lane: 'acme' });
    await until(() => fake.publicRequests.length === 1);
    await expect(clients.publicApi.taxpayer('100000002', { lane: 'acme' })).rejects.toThrow(/1 at once/);
    held.open();
    await first;
  });
});
