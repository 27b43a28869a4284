// What all Hacienda calls share: an axios instance that never throws on HTTP status (every status is
// classified by the caller), holds every request to an overall deadline and a size bound, and the
// classification of transport failures. Errors never carry the axios config, whose body may hold credentials.
import { SpanKind, injectTraceHeaders, metrics, withSpan } from '@cr/service-kit';
import axios, {
  AxiosError,
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
function instrumentedAdapter(service: HaciendaService, deadlineMs: number): AxiosAdapter {
  const transport = withDeadline(axios.getAdapter(axios.defaults.adapter), deadlineMs);
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

/**
 * The largest answer and request body each service may exchange. axios buffers an answer whole before the
 * caller sees it, so without a bound one answer could take the process's memory.
 * - idp: a Keycloak token answer is two JWTs and a few fields, about 4 KB; 256 KiB leaves room for a
 *   verbose error page. Requests are small forms.
 * - recepcion: the largest legitimate answers are a status carrying the Base64 MensajeHacienda (a few KB;
 *   signed "XAdES-XL", so it may carry certificate and revocation values: hundreds of KB at worst) and
 *   GET /comprobantes/{clave}, which from the sandbox carries the signed comprobante (up to the 2 MiB
 *   RECEPCION_MAX_XML_BYTES, 2.7 MiB as Base64); a /comprobantes page holds ≤ 50 summaries (tens of KB).
 *   8 MiB is three times the largest of these. Requests carry our signed XML as Base64 (a 1,000-line
 *   comprobante, Hacienda's maximum, is about 1-2 MB): the same 8 MiB.
 * - public-api: taxpayer and exoneration answers are a few KB (an exoneration's CABYS list tens of KB) and
 *   a CABYS search a few hundred at most; 4 MiB. Requests are GETs.
 */
export const HTTP_SIZE_LIMITS: Record<HaciendaService, { responseBytes: number; requestBytes: number }> = {
  idp: { responseBytes: 256 * 1024, requestBytes: 64 * 1024 },
  recepcion: { responseBytes: 8 * 1024 * 1024, requestBytes: 8 * 1024 * 1024 },
  'public-api': { responseBytes: 4 * 1024 * 1024, requestBytes: 64 * 1024 },
};

/** What axios throws when an answer is over `maxContentLength`. */
const TOO_LARGE = /maxContentLength size of \d+ exceeded/;

/**
 * The whole request, from connecting to the last byte of the answer, within `deadlineMs`. axios's own
 * `timeout` is the socket's inactivity timer: an answer that drips a byte every half second never trips
 * it. The deadline's abort is merged with any signal the caller passed, and surfaces as ETIMEDOUT so that
 * callers classify (and retry) it as they do the socket timeout; a caller's own abort stays a cancel.
 */
function withDeadline(transport: AxiosAdapter, deadlineMs: number): AxiosAdapter {
  return async (config) => {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), deadlineMs);
    const callerSignal = config.signal as AbortSignal | undefined;
    const signal = callerSignal ? AbortSignal.any([callerSignal, deadline.signal]) : deadline.signal;
    try {
      // A copy: axios checks the config's own signal after a failure, and would call ours a cancel.
      return await transport({ ...config, signal });
    } catch (err) {
      if (deadline.signal.aborted && !callerSignal?.aborted) {
        throw new AxiosError(`no complete answer within ${deadlineMs} ms`, AxiosError.ETIMEDOUT);
      }
      throw err;
    } finally {
      clearTimeout(timer);
    }
  };
}

/**
 * `timeoutMs` bounds the whole request (connection, upload, the answer's last byte), not only silences;
 * answers over the service's `HTTP_SIZE_LIMITS` are cut off and fail like a dropped connection.
 */
export function createHttp(
  baseURL: string | undefined,
  timeoutMs: number,
  service: HaciendaService,
): AxiosInstance {
  const limits = HTTP_SIZE_LIMITS[service];
  return axios.create({
    adapter: instrumentedAdapter(service, timeoutMs),
    ...(baseURL ? { baseURL: baseURL.replace(/\/+$/, '') } : {}),
    timeout: timeoutMs,
    maxContentLength: limits.responseBytes,
    maxBodyLength: limits.requestBytes,
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
  if (code === 'ERR_BAD_RESPONSE' && TOO_LARGE.test(String((err as Error)?.message))) {
    return { kind: 'network', code: 'ERR_RESPONSE_TOO_LARGE', message: 'answer over the size limit' };
  }
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
