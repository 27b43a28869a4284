// The retry after recepción's 429. Its Retry-After (or X-Ratelimit-Reset) is a floor under the backoff, never
// a replacement for it: `Retry-After: 0`, or a reset already past, retried at once, run after run (50 scripted
// answers took 39 requests in under a second). And it is clamped: a year parked the document for a year, and a
// wait past any writable date made the retry unrecordable, so the job churned on its lease.
import { type JobResult, computeBackoff, jobResult } from '@cr/jobs';

export function retryAfterRateLimit(
  now: Date,
  attempt: number,
  schedule: readonly number[],
  retryAfterMs: number | undefined,
  capMs: number,
  reason: string,
): JobResult {
  const backoff = computeBackoff(attempt, { schedule, capMs });
  // NaN would survive Math.max; Infinity (a header of hundreds of digits) is clamped like any long wait.
  const asked = retryAfterMs === undefined || Number.isNaN(retryAfterMs) ? 0 : retryAfterMs;
  const delay = Math.min(Math.max(asked, backoff), capMs);
  return jobResult.retryAt(new Date(now.getTime() + delay), reason);
}
