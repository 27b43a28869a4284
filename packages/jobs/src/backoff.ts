// Retry delays from a schedule: the n-th retry waits schedule[n-1] (the last entry repeats), capped, with
// symmetric jitter so many jobs failing together (Hacienda down) do not come back in one burst.

export interface BackoffOptions {
  /** Delays in milliseconds, one per retry; the last one repeats. */
  schedule: readonly number[];
  /** Upper bound after jitter. */
  capMs?: number;
  /** Fraction of the delay added or removed at random (0.2 → ±20%). */
  jitter?: number;
  /** Injected for tests; returns [0, 1). */
  random?: () => number;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Ready-made schedules for the document pipeline (REFERENCE §4.3, issue 6). */
export const backoffSchedules = {
  /** Submitting to Hacienda: a signed document must get there, so it retries without end at ≤ 5 min. */
  haciendaSubmit: [2 * SECOND, 5 * SECOND, 15 * SECOND, MINUTE, 5 * MINUTE],
  /** Following the status: 2 s, 5 s, 15 s, 1 min, 5 min, 15 min, then hourly. */
  haciendaStatus: [2 * SECOND, 5 * SECOND, 15 * SECOND, MINUTE, 5 * MINUTE, 15 * MINUTE, HOUR],
  /** Webhook deliveries (Standard Webhooks): immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
  webhook: [0, 5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR],
  /** E-mail to the receptor: an SMTP server that is down or answers 4xx usually recovers within hours. */
  mail: [MINUTE, 5 * MINUTE, 15 * MINUTE, HOUR, 2 * HOUR, 4 * HOUR, 8 * HOUR, 8 * HOUR],
} as const;

/** Delay in ms before retry number `retry` (1-based: the first retry after the first failure is 1). */
export function computeBackoff(retry: number, options: BackoffOptions): number {
  const { schedule } = options;
  if (schedule.length === 0) throw new RangeError('backoff schedule is empty');
  const index = Math.min(Math.max(1, Math.floor(retry)), schedule.length) - 1;
  const base = schedule[index] as number;
  const jitter = options.jitter ?? 0.2;
  const random = options.random ?? Math.random;
  const delay = base * (1 + jitter * (2 * random() - 1));
  const capped = options.capMs === undefined ? delay : Math.min(delay, options.capMs);
  return Math.max(0, Math.round(capped));
}
