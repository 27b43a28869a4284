// What all Hacienda calls share: an axios instance that never throws on HTTP status (every status is
// classified by the caller), and the classification of transport failures. Errors never carry the axios
// config, whose body may hold credentials.
import { SpanKind, injectTraceHeaders, metrics, withSpan } from '@cr/service-kit';
import axios, {
  type AxiosAdapter,
  type AxiosInstance,
  type AxiosResponse,
  type InternalAxiosRequestConfig,
} from 'axios';

export type TransportFailure =
  | { kind: 'timeout'; message: string }
  | { kind: 'network'; code: string; message: string };

/** Which of Hacienda's services a client talks to: the first part of the metrics' endpoint label. */
export type HaciendaService = 'idp' | 'recepcion' | 'public-api';

/**
 * 'recepcion GET /recepcion/{id}': the path without its query, long digit runs (claves, cédulas) folded,
 * so the label set stays small and never holds a taxpayer's number.
 */
export function endpointLabel(service: HaciendaService, config: InternalAxiosRequestConfig): string {
  const url = config.url ?? '';
  const path = /^https?:\/\//i.test(url) ? new URL(url).pathname : (url.split('?')[0] ?? '');
  const folded = path.replace(/[0-9]{6,}/g, '{id}');
  return `${service} ${(config.method ?? 'get').toUpperCase()} ${folded || '/'}`;
}

function outcomeOf(status: number): string {
  return `${Math.floor(status / 100)}xx`;
}

/**
 * The transport wrapped in a client span (trace context sent along) and the Hacienda metrics: latency by
 * endpoint and outcome, and errors (timeout, network, 5xx) that the alert on an unreachable Hacienda uses.
 */
function instrumentedAdapter(service: HaciendaService): AxiosAdapter {
  const transport = axios.getAdapter(axios.defaults.adapter);
  return (config) => {
    const endpoint = endpointLabel(service, config);
    return withSpan(
      `hacienda ${endpoint}`,
      { kind: SpanKind.CLIENT, attributes: { 'hacienda.endpoint': endpoint } },
      async (span) => {
        const headers: Record<string, unknown> = {};
        injectTraceHeaders(headers);
        for (const [name, value] of Object.entries(headers)) config.headers.set(name, String(value));
        const started = process.hrtime.bigint();
        const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
        try {
          const res = await transport(config);
          const outcome = outcomeOf(res.status);
          metrics.hacienda.requests.inc({ endpoint, outcome });
          metrics.hacienda.duration.observe({ endpoint, outcome }, seconds());
          if (res.status >= 500) metrics.hacienda.errors.inc({ endpoint, kind: 'server_error' });
          span.setAttribute('http.response.status_code', res.status);
          return res;
        } catch (err) {
          const kind = classifyTransportError(err).kind;
          metrics.hacienda.requests.inc({ endpoint, outcome: kind });
          metrics.hacienda.duration.observe({ endpoint, outcome: kind }, seconds());
          metrics.hacienda.errors.inc({ endpoint, kind });
          throw err;
        }
      },
    );
  };
}

export function createHttp(
  baseURL: string | undefined,
  timeoutMs: number,
  service: HaciendaService,
): AxiosInstance {
  return axios.create({
    adapter: instrumentedAdapter(service),
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
