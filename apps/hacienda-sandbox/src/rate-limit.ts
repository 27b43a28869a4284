// Fixed-window rate limits with Hacienda's headers (X-Ratelimit-Limit/-Remaining/-Reset in UTC epoch
// seconds, REFERENCE §4.2) and 429 when exceeded: per taxpayer on recepción, per client address on the
// public API (REFERENCE §10.5). Hacienda's numbers are unconfirmed, so both are settings.
import type { Response } from 'express';

export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowS: number,
    private readonly now: () => Date,
  ) {}

  /** Counts one call for `key`, sets the headers on `res`; false when the call is over the limit. */
  hit(key: string, res: Response): boolean {
    const nowMs = this.now().getTime();
    const windowMs = this.windowS * 1000;
    let w = this.windows.get(key);
    if (!w || nowMs - w.start >= windowMs) {
      w = { start: nowMs - (nowMs % windowMs), count: 0 };
      this.windows.set(key, w);
    }
    w.count += 1;
    const reset = Math.ceil((w.start + windowMs) / 1000);
    res.setHeader('X-Ratelimit-Limit', String(this.limit));
    res.setHeader('X-Ratelimit-Remaining', String(Math.max(0, this.limit - w.count)));
    res.setHeader('X-Ratelimit-Reset', String(reset));
    if (w.count > this.limit) {
      res.setHeader('Retry-After', String(Math.max(1, reset - Math.floor(nowMs / 1000))));
      return false;
    }
    return true;
  }
}
