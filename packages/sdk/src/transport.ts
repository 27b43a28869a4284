// One HTTP exchange with retries: builds the URL from the generated operations map, adds the token and an
// Idempotency-Key (the same on every attempt; the tenant-api honours it on submissions, so a submission
// retried after a lost answer is done once), retries 429/5xx/network failures with backoff and Retry-After
// (an operation a repeat would do twice only when the first attempt certainly did nothing), renews a
// refused token once when it can log in, and turns every failure into a typed error.
import {
  AuthenticationError,
  ConnectionError,
  CrEinvoiceError,
  ServerError,
  TimeoutError,
  errorFromResponse,
} from './errors';
import { OPERATIONS, type OperationKey } from './generated/operations-map';
import { isRepeatable, mayWorkBefore503 } from './resend-policy';
import {
  DEFAULT_RETRY,
  type RetryOptions,
  backoffMs,
  failedBeforeSending,
  isRefusedBeforeWork,
  isRetryableStatus,
  parseRetryAfter,
  sleep,
} from './retry';
import type { TokenManager } from './token';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface TransportOptions {
  authUrl?: string | undefined;
  tenantUrl?: string | undefined;
  fetch: FetchLike;
  retry: RetryOptions;
  /** Per attempt, the whole answer included, ms. */
  timeoutMs: number;
  userAgent: string;
  tokens: TokenManager;
  random?: () => number;
}

export interface CallOptions {
  body?: unknown;
  params?: Record<string, string>;
  /** Query string parameters; null and undefined values are left out (a list's last `cursor` is null). */
  query?: Record<string, string | number | null | undefined>;
  /** Default: a new random key per call (POST only). */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface CallResult<T> {
  data: T;
  status: number;
  headers: Headers;
  requestId: string | undefined;
}

/** A stable, random key for one logical POST. */
export function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

// A service older than the Retry-After on this 409 tells it from a real conflict by its message only.
const IN_FLIGHT = /^Idempotency-Key: .*still being processed/;

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function describeNetworkError(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message ?? String(err);
}

export class Transport {
  private readonly retry: Required<RetryOptions>;

  constructor(private readonly options: TransportOptions) {
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
  }

  get tokens(): TokenManager {
    return this.options.tokens;
  }

  url(key: OperationKey, params: Record<string, string> = {}): string {
    const op = OPERATIONS[key];
    const base = op.service === 'auth' ? this.options.authUrl : this.options.tenantUrl;
    if (!base)
      throw new AuthenticationError(
        'bad_configuration',
        `${op.service === 'auth' ? 'authUrl' : 'tenantUrl'} is not set; it is needed for ${op.operationId}`,
      );
    const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
      const value = params[name];
      if (value === undefined) throw new TypeError(`${op.operationId}: missing path parameter ${name}`);
      return encodeURIComponent(value);
    });
    return `${trimSlash(base)}${path}`;
  }

  async call<T>(key: OperationKey, options: CallOptions = {}): Promise<CallResult<T>> {
    const op = OPERATIONS[key];
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined && value !== null) query.set(name, String(value));
    }
    const url = `${this.url(key, options.params)}${query.size > 0 ? `?${query}` : ''}`;
    const idempotencyKey =
      op.method === 'POST' ? (options.idempotencyKey ?? newIdempotencyKey()) : options.idempotencyKey;
    const repeatable = isRepeatable(key);
    let renewedAfter401 = false;
    let inFlightSince: number | undefined;
    for (let attempt = 1; ; attempt++) {
      const headers: Record<string, string> = {
        accept: op.response === 'json' ? 'application/json' : '*/*',
        'user-agent': this.options.userAgent,
      };
      if (options.body !== undefined) headers['content-type'] = 'application/json';
      if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
      let token: string | undefined;
      if (op.auth === 'bearer') {
        token = await this.tokens.bearer();
        headers.authorization = `Bearer ${token}`;
      }
      let exchange: Exchange;
      try {
        exchange = await this.send(url, op.method, headers, options, op.response);
      } catch (err) {
        if (options.signal?.aborted) throw options.signal.reason;
        const failure =
          err instanceof CrEinvoiceError
            ? err
            : new ConnectionError(
                'connection_error',
                `cannot reach ${new URL(url).origin}: ${describeNetworkError(err)}`,
                {
                  cause: err,
                },
              );
        if (attempt >= this.retry.maxAttempts || !(repeatable || failedBeforeSending(err))) throw failure;
        await sleep(backoffMs(attempt, this.retry, this.options.random), options.signal);
        continue;
      }
      const { response, body } = exchange;
      const requestId = response.headers.get('x-request-id') ?? undefined;
      if (response.ok) {
        const data = op.response === 'json' ? parseAnswer(body, response.status, requestId) : body;
        return { data: data as T, status: response.status, headers: response.headers, requestId };
      }
      const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
      const error = errorFromResponse(response.status, parseErrorBody(body), requestId, retryAfter);
      if (response.status === 401 && token && this.tokens.canLogin && !renewedAfter401) {
        // Revoked, or signed with a key the service no longer trusts: one fresh login, then the same call.
        renewedAfter401 = true;
        this.tokens.invalidate(token);
        continue;
      }
      // A retried POST whose first attempt the service is still processing (409 with Retry-After; a real
      // conflict has none): wait for it to finish, then the same key returns its stored answer (ADR 0008).
      // It may run for a while (Hacienda's token, the signature), so these waits have a budget of their own
      // and do not spend the attempts.
      if (
        response.status === 409 &&
        idempotencyKey !== undefined &&
        (response.headers.has('retry-after') || IN_FLIGHT.test(error.message))
      ) {
        inFlightSince ??= Date.now();
        await this.waitForFirstAttempt(error, inFlightSince, retryAfter, options.signal);
        attempt -= 1; // not an attempt: the loop's increment gives it back
        continue;
      }
      const retryable = repeatable
        ? isRetryableStatus(response.status)
        : isRefusedBeforeWork(response.status) && !(response.status === 503 && mayWorkBefore503(key));
      await this.waitBeforeRetry(error, retryable, attempt, retryAfter, options.signal);
    }
  }

  /** Waits Retry-After (at least 1 s) while the in-flight budget lasts; throws `error` once it is spent. */
  private async waitForFirstAttempt(
    error: CrEinvoiceError,
    since: number,
    retryAfter: number | undefined,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const delay = Math.max(1, retryAfter ?? 1) * 1000;
    if (Date.now() - since + delay > this.retry.maxInFlightWaitSeconds * 1000) throw error;
    await sleep(delay, signal);
  }

  /** Returns when another attempt should follow; throws `error` when not. */
  private async waitBeforeRetry(
    error: CrEinvoiceError,
    retryable: boolean,
    attempt: number,
    retryAfter: number | undefined,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    if (!retryable || attempt >= this.retry.maxAttempts) throw error;
    if (retryAfter !== undefined && retryAfter > this.retry.maxRetryAfterSeconds) throw error;
    const delay =
      retryAfter !== undefined ? retryAfter * 1000 : backoffMs(attempt, this.retry, this.options.random);
    await sleep(delay, signal);
  }

  /**
   * One attempt: the request and its whole answer, both within `timeoutMs` (a service that stalls in the
   * middle of the body is a timeout, not a hang); a connection lost while the body is read is a
   * ConnectionError, raised as one of the transport's own failures (the request had been received).
   */
  private async send(
    url: string,
    method: string,
    headers: Record<string, string>,
    options: CallOptions,
    kind: ResponseKind,
  ): Promise<Exchange> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.options.timeoutMs);
    const origin = new URL(url).origin;
    let response: Response | undefined;
    try {
      response = await this.options.fetch(url, {
        method,
        headers,
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
        signal: controller.signal,
        redirect: 'error',
      });
      return { response, body: await readBody(response, kind) };
    } catch (err) {
      if (timedOut)
        throw new TimeoutError(
          'timeout',
          response
            ? `the answer from ${origin} was not complete within ${this.options.timeoutMs} ms`
            : `no answer from ${origin} within ${this.options.timeoutMs} ms`,
          { cause: err },
        );
      if (response && !options.signal?.aborted)
        throw new ConnectionError(
          'connection_error',
          `the connection to ${origin} was lost while reading the answer: ${describeNetworkError(err)}`,
          { cause: err },
        );
      throw err;
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }
}

type ResponseKind = 'json' | 'text' | 'binary' | 'none';

/** An answer and its body, read in full: text for JSON and errors (parsed after), bytes for binary. */
interface Exchange {
  response: Response;
  body: string | Uint8Array | undefined;
}

async function readBody(response: Response, kind: ResponseKind): Promise<Exchange['body']> {
  if (!response.ok) return response.text();
  if (kind === 'none' || response.status === 204) {
    await response.body?.cancel();
    return undefined;
  }
  if (kind === 'binary') return new Uint8Array(await response.arrayBuffer());
  return response.text();
}

/** A success body that should be JSON; one that is not is the service's fault, raised as a ServerError. */
function parseAnswer(body: Exchange['body'], status: number, requestId: string | undefined): unknown {
  if (body === undefined) return undefined;
  try {
    return JSON.parse(typeof body === 'string' ? body : new TextDecoder().decode(body));
  } catch (err) {
    throw new ServerError('invalid_response', `the service answered ${status} with a body that is not JSON`, {
      status,
      requestId,
      cause: err,
    });
  }
}

function parseErrorBody(body: Exchange['body']): unknown {
  try {
    return typeof body === 'string' ? JSON.parse(body) : undefined;
  } catch {
    return undefined;
  }
}
