// Client-side rate limits. Hacienda blocks or throttles callers that burst: ≤ 10 token grants and ≤ 100
// submissions per issuer per minute (issue 6), and the public API blocks an IP for 10 minutes after a burst
// (REFERENCE §10.5). A sliding window counts per key; a token bucket smooths one shared stream.

export type Clock = () => number;
export type Sleep = (ms: number) => Promise<void>;

export const realClock: Clock = () => Date.now();
export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A limit was reached and waiting was not allowed (or would take too long). Retry after `retryAfterMs`. */
export class RateLimitedError extends Error {
  readonly retryable = true;
  constructor(
    message: string,
    readonly retryAfterMs: number,
  ) {
    super(message);
    this.name = 'RateLimitedError';
  }
}

export type Acquired = { ok: true } | { ok: false; retryAfterMs: number };

export interface SlidingWindowOptions {
  limit: number;
  windowMs: number;
  clock?: Clock;
  sleep?: Sleep;
  /** Longest `acquire` waits before throwing `RateLimitedError`; default 0 (never wait). */
  maxWaitMs?: number;
  /** Names the limit in errors, e.g. "token grants". */
  name?: string;
}

/**
 * One key's events in time order: `times[head..]` are in the window, `times[..head]` have left it. Expired
 * events are dropped from the front as time passes, so a call costs no copy of the window: with the limit
 * lifted (an issuer allowed thousands a minute), filtering the whole list on every call allocated a new one
 * per submission.
 */
interface Window {
  times: number[];
  head: number;
}

/** Puts `time` into `times[from..]`, kept in ascending order, after any equal to it. */
function insertInOrder(times: number[], from: number, time: number): void {
  let lo = from;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((times[mid] as number) <= time) lo = mid + 1;
    else hi = mid;
  }
  times.splice(lo, 0, time);
}

/** At most `limit` events per key in any `windowMs`. */
export class SlidingWindowLimiter {
  private readonly events = new Map<string, Window>();
  private readonly clock: Clock;
  private readonly sleep: Sleep;

  constructor(private readonly options: SlidingWindowOptions) {
    if (options.limit < 1) throw new RangeError('limit must be ≥ 1');
    this.clock = options.clock ?? realClock;
    this.sleep = options.sleep ?? realSleep;
  }

  /** The key's window with the events at or before `now - windowMs` dropped; undefined when none is left. */
  private recent(key: string, now: number): Window | undefined {
    const window = this.events.get(key);
    if (!window) return undefined;
    const { times } = window;
    const cutoff = now - this.options.windowMs;
    while (window.head < times.length && (times[window.head] as number) <= cutoff) window.head += 1;
    if (window.head === times.length) {
      this.events.delete(key);
      return undefined;
    }
    // Compacted once the dropped part is the larger half: each event is moved at most once on average.
    if (window.head > 32 && window.head * 2 > times.length) {
      times.copyWithin(0, window.head);
      times.length -= window.head;
      window.head = 0;
    }
    return window;
  }

  /** Takes a slot now if one is free, else says how long until one frees up. */
  tryAcquire(key: string): Acquired {
    const now = this.clock();
    const window = this.recent(key, now);
    if (!window) {
      this.events.set(key, { times: [now], head: 0 });
      return { ok: true };
    }
    const { times } = window;
    if (times.length - window.head < this.options.limit) {
      if (now >= (times[times.length - 1] as number)) times.push(now);
      else insertInOrder(times, window.head, now); // the clock stepped back: rare, and the order must hold
      return { ok: true };
    }
    return {
      ok: false,
      retryAfterMs: Math.max(1, (times[window.head] as number) + this.options.windowMs - now),
    };
  }

  /** Waits for a slot up to `maxWaitMs` (option or argument), else throws `RateLimitedError`. */
  async acquire(key: string, maxWaitMs = this.options.maxWaitMs ?? 0): Promise<void> {
    const deadline = this.clock() + maxWaitMs;
    for (;;) {
      const r = this.tryAcquire(key);
      if (r.ok) return;
      if (this.clock() + r.retryAfterMs > deadline) {
        throw new RateLimitedError(
          `${this.options.name ?? 'rate'} limit of ${this.options.limit} per ${this.options.windowMs / 1000}s reached`,
          r.retryAfterMs,
        );
      }
      await this.sleep(r.retryAfterMs);
    }
  }

  /** Events counted for `key` in the current window. */
  count(key: string): number {
    const window = this.recent(key, this.clock());
    return window ? window.times.length - window.head : 0;
  }
}

/**
 * ≤ 100 submissions per issuer per minute (or `limit`); the worker calls `tryAcquire(issuerId)` and reschedules
 * on refusal.
 */
export function createSubmissionLimiter(options: Partial<SlidingWindowOptions> = {}): SlidingWindowLimiter {
  return new SlidingWindowLimiter({ limit: 100, windowMs: 60_000, name: 'submissions', ...options });
}

export interface TokenBucketOptions {
  /** Largest burst. */
  capacity: number;
  /** Tokens added per second. */
  refillPerSecond: number;
  clock?: Clock;
  sleep?: Sleep;
}

/** One shared bucket: `take()` waits until a token is available, so calls are spread out, never burst. */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private readonly clock: Clock;
  private readonly sleep: Sleep;
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly options: TokenBucketOptions) {
    if (options.capacity < 1 || options.refillPerSecond <= 0) throw new RangeError('invalid token bucket');
    this.clock = options.clock ?? realClock;
    this.sleep = options.sleep ?? realSleep;
    this.tokens = options.capacity;
    this.last = this.clock();
  }

  private refill(): void {
    const now = this.clock();
    const added = ((now - this.last) / 1000) * this.options.refillPerSecond;
    this.tokens = Math.min(this.options.capacity, this.tokens + added);
    this.last = now;
  }

  /** Milliseconds until the next token without taking it (0 when one is available). */
  waitTime(): number {
    this.refill();
    return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) / this.options.refillPerSecond) * 1000);
  }

  /** Takes one token, waiting in FIFO order behind earlier callers. */
  take(): Promise<void> {
    const next = this.queue.then(async () => {
      for (;;) {
        const wait = this.waitTime();
        if (wait === 0) {
          this.tokens -= 1;
          return;
        }
        await this.sleep(wait);
      }
    });
    this.queue = next.catch(() => undefined);
    return next;
  }
}
