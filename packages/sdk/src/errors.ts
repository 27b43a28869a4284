// Typed errors. Every failure the SDK raises is a CrEinvoiceError carrying the service's stable `error`
// code, its `message`, the field `details` of a 400 and the `requestId` to quote to support; the subclass
// says what kind of failure it is, so callers can `instanceof` or switch on `error`.

export interface ErrorDetail {
  path: string;
  reason: string;
  expected?: string;
}

export interface CrEinvoiceErrorOptions {
  status?: number | undefined;
  details?: ErrorDetail[] | undefined;
  requestId?: string | undefined;
  /** Seconds the service asked to wait (Retry-After), when it did. */
  retryAfterSeconds?: number | undefined;
  cause?: unknown;
}

export class CrEinvoiceError extends Error {
  /** Stable lower-snake code: the service's (`bad_request`, `not_found`…) or the SDK's (`connection_error`…). */
  readonly error: string;
  /** HTTP status; undefined when no answer was received. */
  readonly status: number | undefined;
  readonly details: ErrorDetail[] | undefined;
  readonly requestId: string | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(error: string, message: string, options: CrEinvoiceErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.error = error;
    this.status = options.status;
    this.details = options.details;
    this.requestId = options.requestId;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  toJSON(): Record<string, unknown> {
    return {
      error: this.error,
      message: this.message,
      ...(this.status === undefined ? {} : { status: this.status }),
      ...(this.details ? { details: this.details } : {}),
      ...(this.requestId ? { requestId: this.requestId } : {}),
      ...(this.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: this.retryAfterSeconds }),
    };
  }
}

/** 400: the request was refused; `details` names each field. */
export class BadRequestError extends CrEinvoiceError {}
/** 401: missing, wrong, expired or revoked credentials or token. */
export class AuthenticationError extends CrEinvoiceError {}
/** The stored token expired and the client has no credentials to log in again. */
export class TokenExpiredError extends AuthenticationError {}
/** 403 */
export class PermissionDeniedError extends CrEinvoiceError {}
/** 404: no such document, issuer or route for this tenant. */
export class NotFoundError extends CrEinvoiceError {}
/** 409: e.g. the same numeroReferencia with a different body, or an Idempotency-Key whose request is still running. */
export class ConflictError extends CrEinvoiceError {}
/** 413: the body is larger than the service (or the gateway in front of it) reads. */
export class PayloadTooLargeError extends CrEinvoiceError {}
/** 422: e.g. an Idempotency-Key reused with a different body. */
export class UnprocessableError extends CrEinvoiceError {}
/** 429 after the retries; `retryAfterSeconds` says when to come back. */
export class RateLimitError extends CrEinvoiceError {}
/**
 * 5xx after the retries (502 is Hacienda failing behind the service); at once for an operation in
 * NOT_REPEATABLE, which may have been done (only a 503 is tried again there, and not for a synchronization,
 * whose 503 may come after it spent a slot of its window).
 */
export class ServerError extends CrEinvoiceError {}
/**
 * No answer: refused connection, DNS failure, reset. The service is down or unreachable. For an operation in
 * NOT_REPEATABLE after a reset, it may have received the request.
 */
export class ConnectionError extends CrEinvoiceError {}
/** No answer within the timeout, or a 408 after the retries (a proxy gave up waiting for the request). */
export class TimeoutError extends CrEinvoiceError {}
/** waitForVerdict gave up before Hacienda's final answer. */
export class WaitTimeoutError extends CrEinvoiceError {}
/** A webhook's signature or timestamp did not verify. */
export class WebhookVerificationError extends CrEinvoiceError {}

const BY_STATUS: Record<number, new (e: string, m: string, o?: CrEinvoiceErrorOptions) => CrEinvoiceError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  408: TimeoutError,
  409: ConflictError,
  413: PayloadTooLargeError,
  422: UnprocessableError,
  429: RateLimitError,
};

const DEFAULT_CODE: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  408: 'request_timeout',
  409: 'conflict',
  413: 'payload_too_large',
  422: 'unprocessable',
  429: 'too_many_requests',
  502: 'upstream_error',
  503: 'service_unavailable',
};

/** The error for an HTTP answer of status ≥ 400, from its `{error, message}` body when it has one. */
export function errorFromResponse(
  status: number,
  body: unknown,
  requestId: string | undefined,
  retryAfterSeconds: number | undefined,
): CrEinvoiceError {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const code =
    typeof b.error === 'string'
      ? b.error
      : (DEFAULT_CODE[status] ?? (status >= 500 ? 'internal_error' : 'http_error'));
  const message =
    typeof b.message === 'string' ? b.message : `the service answered ${status} without an error body`;
  const Kind = BY_STATUS[status] ?? (status >= 500 ? ServerError : CrEinvoiceError);
  return new Kind(code, message, {
    status,
    details: Array.isArray(b.details) ? (b.details as ErrorDetail[]) : undefined,
    requestId: typeof b.requestId === 'string' ? b.requestId : requestId,
    retryAfterSeconds,
  });
}
