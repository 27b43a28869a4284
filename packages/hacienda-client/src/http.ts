// What all Hacienda calls share: an axios instance that never throws on HTTP status (every status is
// classified by the caller), and the classification of transport failures. Errors never carry the axios
// config, whose body may hold credentials.
import axios, { type AxiosInstance, type AxiosResponse } from 'axios';

export type TransportFailure =
  | { kind: 'timeout'; message: string }
  | { kind: 'network'; code: string; message: string };

export function createHttp(baseURL: string | undefined, timeoutMs: number): AxiosInstance {
  return axios.create({
    ...(baseURL ? { baseURL: baseURL.replace(/\/+$/, '') } : {}),
    timeout: timeoutMs,
    validateStatus: () => true,
    maxRedirects: 0,
    transitional: { clarifyTimeoutError: true },
    headers: { 'User-Agent': 'cr-einvoice/hacienda-client' },
  });
}

/** Classifies what axios throws when no HTTP response arrived. */
export function classifyTransportError(err: unknown): TransportFailure {
  const code = (err as { code?: string })?.code ?? 'UNKNOWN';
  if (code === 'ETIMEDOUT' || code === 'ECONNABORTED')
    return { kind: 'timeout', message: 'request timed out' };
  return { kind: 'network', code, message: `connection failed (${code})` };
}

export function header(res: AxiosResponse, name: string): string | undefined {
  const v = res.headers[name.toLowerCase()];
  if (v === undefined || v === null) return undefined;
  return Array.isArray(v) ? v.join(', ') : String(v);
}

/** Retry-After as seconds or an HTTP date; falls back to X-Ratelimit-Reset (UTC epoch seconds). */
export function parseRetryAfterMs(res: AxiosResponse, nowMs: number): number | undefined {
  const ra = header(res, 'retry-after');
  if (ra !== undefined) {
    if (/^\d+$/.test(ra.trim())) return Number(ra.trim()) * 1000;
    const at = Date.parse(ra);
    if (!Number.isNaN(at)) return Math.max(0, at - nowMs);
  }
  const reset = header(res, 'x-ratelimit-reset');
  if (reset !== undefined && /^\d+$/.test(reset.trim()))
    return Math.max(0, Number(reset.trim()) * 1000 - nowMs);
  return undefined;
}

export interface RateLimitInfo {
  limit?: number;
  remaining?: number;
  /** UTC epoch seconds. */
  reset?: number;
}

/** The X-Ratelimit-* headers Hacienda sends on every recepción response (REFERENCE §4.2). */
export function parseRateLimit(res: AxiosResponse): RateLimitInfo | undefined {
  const info: RateLimitInfo = {};
  for (const [name, field] of [
    ['x-ratelimit-limit', 'limit'],
    ['x-ratelimit-remaining', 'remaining'],
    ['x-ratelimit-reset', 'reset'],
  ] as const) {
    const v = header(res, name);
    if (v !== undefined && /^\d+$/.test(v.trim())) info[field] = Number(v.trim());
  }
  return Object.keys(info).length > 0 ? info : undefined;
}
