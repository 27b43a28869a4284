// When to try a request again and how long to wait: 429, 5xx and network failures, exponential backoff
// with full jitter, and the service's Retry-After when it gives one (unless it asks for longer than the
// caller is willing to wait, in which case the error is raised at once with `retryAfterSeconds`). An
// operation a repeat would do twice (resend-policy.ts) is tried again only after a failure that proves the
// service did nothing: no connection was made, or it refused before starting.

export interface RetryOptions {
  /** Attempts in all, the first included. Default 4. */
  maxAttempts?: number;
  /** First backoff, ms. Default 300. */
  baseDelayMs?: number;
  /** Largest backoff, ms. Default 8000. */
  maxDelayMs?: number;
  /** Largest Retry-After honoured, seconds; a longer one ends the retries. Default 60. */
  maxRetryAfterSeconds?: number;
  /**
   * How long a retried submission waits for its first attempt, still running at the service (409 with
   * Retry-After), seconds; these waits are not counted in maxAttempts. Default 60 (the service's claim on
   * a key).
   */
  maxInFlightWaitSeconds?: number;
}

export const DEFAULT_RETRY: Required<RetryOptions> = {
  maxAttempts: 4,
  baseDelayMs: 300,
  maxDelayMs: 8_000,
  maxRetryAfterSeconds: 60,
  maxInFlightWaitSeconds: 60,
};

export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 408 || (status >= 500 && status !== 501);
}

/**
 * The service refused the request before doing any of its work: the tenant-api answers 429 from its rate
 * and concurrency gates, which come first in every route. A 503 usually comes before the work too (the
 * token check before revocations are loaded, a proxy with no service behind it), but not always: a route
 * that calls Hacienda may answer 503 after it began (resend-policy.ts: mayWorkBefore503), so the caller
 * checks that too. A 500, 502 or 504 may come after the work was done, as may a 408 from a proxy.
 */
export function isRefusedBeforeWork(status: number): boolean {
  return status === 429 || status === 503;
}

// The connection was never made, so the request cannot have been sent: refused, name not resolved, no
// route to the host, or no connection within undici's connect timeout. A reset, a hang-up or the SDK's own
// timeout may come after the service received the request.
const NOT_CONNECTED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Whether a fetch failure happened before any byte of the request could reach the service. */
export function failedBeforeSending(err: unknown): boolean {
  const code = (err as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return typeof code === 'string' && NOT_CONNECTED.has(code);
}

/** Retry-After as seconds (delta-seconds or an HTTP date); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/** Backoff before attempt `attempt + 1` (attempt counts from 1). */
export function backoffMs(attempt: number, options: Required<RetryOptions>, random = Math.random): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
