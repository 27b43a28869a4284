// The one error type of the services and its single mapping to HTTP. Below 500 the message is shown to
// the client; at 500 and above the body says only `internal_error` and the details stay in the log.
import type { ErrorBody, ErrorDetail } from '@cr/contracts';
import { DatabaseUnavailableError } from './db/unavailable';

export type AppErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'invalid_credentials'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'unprocessable'
  | 'too_many_requests'
  | 'upstream_error'
  | 'service_unavailable'
  | 'internal_error';

export const STATUS_BY_CODE: Readonly<Record<AppErrorCode, number>> = {
  bad_request: 400,
  unauthorized: 401,
  invalid_credentials: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unprocessable: 422,
  too_many_requests: 429,
  upstream_error: 502,
  service_unavailable: 503,
  internal_error: 500,
};

export interface AppErrorOptions {
  status?: number;
  cause?: unknown;
  details?: ErrorDetail[];
  /** Extra response headers, e.g. `Retry-After` or `WWW-Authenticate`. */
  headers?: Record<string, string>;
}

export class AppError extends Error {
  readonly code: AppErrorCode;
  readonly status: number;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(code: AppErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = options.status ?? STATUS_BY_CODE[code];
    this.details = options.details;
    this.headers = options.headers;
  }

  /** Whether the message may be shown to the client. */
  get expose(): boolean {
    return this.status < 500;
  }
}

export interface HttpErrorResponse {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
}

/** Body-parser and similar middleware errors carry `status`/`type`; they are client errors. */
interface ParserError {
  message?: string;
  status?: number;
  statusCode?: number;
  type?: string;
  limit?: number;
  /** body-parser's: the text it could not parse. */
  body?: unknown;
}

function fromParserError(err: ParserError): AppError | undefined {
  const status = err.status ?? err.statusCode;
  if (typeof status !== 'number' || status >= 500) return undefined;
  // 413, as the gateway answers a body over its own limit (infra/gateway/json-errors.conf.template).
  if (err.type === 'entity.too.large') {
    return new AppError(
      'payload_too_large',
      `request body exceeds the limit of ${err.limit ?? 'the configured'} bytes`,
    );
  }
  if (err.type === 'entity.parse.failed') {
    // The strict parser refuses JSON that is valid but neither an object nor an array ("x", 42) the same way.
    if (typeof err.body === 'string' && /^\s*[^\s{[]/.test(err.body))
      return new AppError('bad_request', 'request body must be a JSON object');
    return new AppError('bad_request', 'request body is not valid JSON');
  }
  // The router's decoding of a path parameter (its message echoes the raw value, which is not repeated).
  if (err instanceof URIError)
    return new AppError('bad_request', 'path: a parameter is not valid percent-encoding');
  if (err.type === 'encoding.unsupported') {
    // Compressed bodies are refused unread (json-body.ts); the header's value is not echoed.
    return new AppError(
      'bad_request',
      'Content-Encoding is not accepted: send the request body uncompressed',
    );
  }
  if (err.type === 'charset.unsupported')
    return new AppError('bad_request', 'request body encoding is not supported');
  // json-body.ts's count of a body's objects and arrays, made before it is parsed: its message names the rule.
  if (err.type === 'entity.containers' && err.message) return new AppError('bad_request', err.message);
  return new AppError('bad_request', 'request body could not be read');
}

/** Seconds a client is asked to wait before it sends again a request the database could not serve. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * The database out of reach (ADR 0068): 503 with Retry-After when nothing the request asked for can have taken
 * effect, so a client may send it again; a write whose outcome is unknown stays a 500.
 */
function fromDatabaseUnavailable(err: DatabaseUnavailableError): AppError | undefined {
  if (err.mayHaveTakenEffect) return undefined;
  return new AppError('service_unavailable', 'the database is unavailable; retry later', {
    cause: err,
    headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
  });
}

/** Pure mapping of any thrown value onto the HTTP response; unknown errors hide their details. */
export function toHttpResponse(err: unknown, requestId?: string): HttpErrorResponse {
  const appError =
    err instanceof AppError
      ? err
      : err instanceof DatabaseUnavailableError
        ? fromDatabaseUnavailable(err)
        : typeof err === 'object' && err
          ? fromParserError(err as ParserError)
          : undefined;
  if (!appError?.expose) {
    return {
      status: appError?.status ?? 500,
      body: {
        error: appError?.code ?? 'internal_error',
        message: appError?.code && appError.code !== 'internal_error' ? appError.message : 'internal error',
        ...(requestId ? { requestId } : {}),
      },
      headers: appError?.headers ?? {},
    };
  }
  return {
    status: appError.status,
    body: {
      error: appError.code,
      message: appError.message,
      ...(requestId ? { requestId } : {}),
      ...(appError.details?.length ? { details: appError.details } : {}),
    },
    headers: appError.headers ?? {},
  };
}
