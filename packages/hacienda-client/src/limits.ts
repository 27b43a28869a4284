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

export interface TakeOptions {
  /**
   * Whose call this is (a tenant). Callers waiting in different lanes take turns, one token each, so a lane
   * with many callers waiting delays another lane's caller by one token per round, not by its whole queue.
   * Default: one lane shared by every caller that names none.
   */
  lane?: string;
  /** Served ahead of ordinary callers (a submission waits for it), though never more than twice in a row. */
  urgent?: boolean;
  /** Longest wait for a token; past it `RateLimitedError`. Default: no limit. */
  maxWaitMs?: number;
}

/** Urgent grants in a row while ordinary callers wait: ahead of them, yet they keep a third of the rate. */
const URGENT_RUN = 2;

interface Waiter {
  maxWaitMs: number;
  deadline: number;
  grant: () => void;
  refuse: (err: Error) => void;
}

/**
 * Callers waiting for a token, by lane. The map's order is the order of turns: the lane whose turn it is
 * comes first and, served, goes to the back; a new lane joins at the back.
 */
class Turns {
  private readonly lanes = new Map<string, Waiter[]>();
  size = 0;

  push(lane: string, waiter: Waiter): void {
    const waiters = this.lanes.get(lane);
    if (waiters) waiters.push(waiter);
    else this.lanes.set(lane, [waiter]);
    this.size += 1;
  }

  /** The first waiter of the lane whose turn it is; its lane goes to the back. */
  next(): Waiter | undefined {
    for (const [lane, waiters] of this.lanes) {
      this.lanes.delete(lane);
      const waiter = waiters.shift();
      if (waiters.length > 0) this.lanes.set(lane, waiters);
      this.size -= 1;
      return waiter;
    }
    return undefined;
  }

  /** Takes out the waiters whose deadline has come, keeping every lane's place and order. */
  expire(now: number): Waiter[] {
    const expired: Waiter[] = [];
    for (const [lane, waiters] of this.lanes) {
      const kept: Waiter[] = [];
      for (const w of waiters) (w.deadline <= now ? expired : kept).push(w);
      // Setting an existing key keeps its place in the turns.
      if (kept.length === 0) this.lanes.delete(lane);
      else this.lanes.set(lane, kept);
    }
    this.size -= expired.length;
    return expired;
  }

  earliestDeadline(): number {
    let earliest = Number.POSITIVE_INFINITY;
    for (const waiters of this.lanes.values())
      for (const w of waiters) earliest = Math.min(earliest, w.deadline);
    return earliest;
  }
}

/**
 * One shared bucket: calls are spread out at its rate, never burst. `take()` is granted at once while a token
 * is left and no one waits; otherwise it waits its lane's turn (see `TakeOptions`) up to `maxWaitMs`. One
 * timer at a time serves the waiters: it wakes for the next token or the next deadline, whichever is first.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private readonly clock: Clock;
  private readonly sleep: Sleep;
  private readonly urgent = new Turns();
  private readonly ordinary = new Turns();
  private urgentRun = 0;
  private waking = false;

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

  private get waiting(): number {
    return this.urgent.size + this.ordinary.size;
  }

  /** Takes one token, waiting for the lane's turn; `RateLimitedError` when none comes within `maxWaitMs`. */
  take(options: TakeOptions = {}): Promise<void> {
    if (this.waiting === 0 && this.waitTime() === 0) {
      this.tokens -= 1;
      return Promise.resolve();
    }
    const maxWaitMs = options.maxWaitMs ?? Number.POSITIVE_INFINITY;
    if (maxWaitMs <= 0) return Promise.reject(this.refusal(maxWaitMs));
    return new Promise<void>((grant, refuse) => {
      const turns = options.urgent ? this.urgent : this.ordinary;
      turns.push(options.lane ?? '', { maxWaitMs, deadline: this.clock() + maxWaitMs, grant, refuse });
      this.serve();
    });
  }

  /** Refuses the waiters past their deadline, grants the tokens there are, and wakes again if any wait. */
  private serve(): void {
    const now = this.clock();
    const expired = [...this.urgent.expire(now), ...this.ordinary.expire(now)];
    for (const w of expired) w.refuse(this.refusal(w.maxWaitMs));
    while (this.waiting > 0 && this.waitTime() === 0) {
      this.tokens -= 1;
      this.nextWaiter()?.grant();
    }
    this.wakeLater();
  }

  private nextWaiter(): Waiter | undefined {
    const lookupsWait = this.ordinary.size > 0;
    if (this.urgent.size > 0 && (!lookupsWait || this.urgentRun < URGENT_RUN)) {
      // The run counts only grants made while ordinary callers wait: they are the ones kept waiting.
      this.urgentRun = lookupsWait ? this.urgentRun + 1 : 0;
      return this.urgent.next();
    }
    this.urgentRun = 0;
    return this.ordinary.next();
  }

  /**
   * One wake-up at a time, for the next token or the next deadline. A caller arriving meanwhile with a
   * deadline before that wake-up is refused at it, at most one token's interval late.
   */
  private wakeLater(): void {
    if (this.waking || this.waiting === 0) return;
    const deadline = Math.min(this.urgent.earliestDeadline(), this.ordinary.earliestDeadline());
    const wait = Math.min(this.waitTime(), deadline - this.clock());
    this.waking = true;
    void this.sleep(Math.max(0, wait)).then(() => {
      this.waking = false;
      this.serve();
    });
  }

  /** When to come back: the time the bucket needs for the callers still waiting and one more. */
  private refusal(maxWaitMs: number): RateLimitedError {
    this.refill();
    const owed = this.waiting + 1 - this.tokens;
    const retryAfterMs = Math.max(1, Math.ceil((owed / this.options.refillPerSecond) * 1000));
    return new RateLimitedError(`no token within ${Math.max(0, maxWaitMs) / 1000} s`, retryAfterMs);
  }
}
