// A database that cannot be reached or answer in time (ADR 0068). The caller's request then gets 503 with
// Retry-After when nothing it asked for can have taken effect, so that a client retries it safely; when a write
// may have been committed (its COMMIT was sent and no answer came back) it stays a 500, as any unknown outcome.

export class DatabaseUnavailableError extends Error {
  constructor(
    /** True when a write may have been committed before the connection failed: the outcome is unknown. */
    readonly mayHaveTakenEffect: boolean,
    cause: unknown,
  ) {
    super(`database unavailable: ${isErrorLike(cause) ? cause.message : String(cause)}`, { cause });
    this.name = 'DatabaseUnavailableError';
  }
}

/** Socket errors of a connection that could not be made or was lost. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** node-postgres' own errors for a connection that failed, timed out or was closed under it. */
const DRIVER_MESSAGES =
  /^(Connection terminated|Query read timeout|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable|Client was closed and is not queryable)/;

/**
 * SQLSTATEs the server gives when it cannot serve now: connection exceptions (class 08), a statement cancelled
 * by statement_timeout (57014), a server shutting down or restarting (57P01–57P03), too many connections (53300),
 * a transaction ended for idling (25P03). Each means the statement did not complete: its transaction rolled back.
 */
function serverCannotServe(code: string): boolean {
  return (
    code.startsWith('08') ||
    code === '57014' ||
    code === '57P01' ||
    code === '57P02' ||
    code === '57P03' ||
    code === '53300' ||
    code === '25P03'
  );
}

const SQLSTATE = /^[0-9A-Z]{5}$/;

/**
 * An error by its shape, not its class: socket errors are made by Node's own realm, so `instanceof Error` is
 * false for them where code runs in another (a vm context, as under jest).
 */
function isErrorLike(err: unknown): err is Error {
  return (
    typeof err === 'object' && err !== null && typeof (err as { message?: unknown }).message === 'string'
  );
}

/** Whether `err` says the database is out of reach, not that the statement or its data was wrong. */
export function isUnavailability(err: unknown): boolean {
  if (!isErrorLike(err)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && SOCKET_CODES.has(code)) return true;
  if (typeof code === 'string' && SQLSTATE.test(code)) return serverCannotServe(code);
  return DRIVER_MESSAGES.test(err.message);
}

/** Whether the connection behind `err` cannot be used again (it must be closed, not returned to the pool). */
export function brokeTheConnection(err: unknown): boolean {
  if (!isErrorLike(err)) return false;
  const code = (err as { code?: unknown }).code;
  // An error the server answered with leaves the session usable, except one that ends it (FATAL).
  if (typeof code === 'string' && SQLSTATE.test(code))
    return (err as { severity?: unknown }).severity === 'FATAL' || code.startsWith('08');
  return isUnavailability(err);
}

/** A statement that writes nothing when run on its own (autocommit): its failure leaves nothing behind. */
export function readsOnly(sql: string): boolean {
  return /^\s*(select|show|values)\b/i.test(sql) && !/\b(insert|update|delete|merge)\b/i.test(sql);
}

/** Failures that come before the statement was written: no connection, or one already known to be broken. */
function neverSent(err: Error): boolean {
  const code = (err as { code?: unknown }).code;
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') return true;
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return true;
  return /^(timeout exceeded when trying to connect|Connection terminated due to connection timeout|Client has encountered a connection error and is not queryable|Client was closed and is not queryable)/.test(
    err.message,
  );
}

/**
 * `err` as a DatabaseUnavailableError when it is one (unchanged otherwise). `committing`: a COMMIT, or an
 * autocommit write, had been sent when it failed. An error the server answered with proves the statement did
 * not complete, so nothing took effect then.
 */
export function unavailableOr(err: unknown, committing: boolean): unknown {
  if (err instanceof DatabaseUnavailableError || !isUnavailability(err)) return err;
  const code = (err as { code?: unknown }).code;
  const answered = typeof code === 'string' && SQLSTATE.test(code);
  return new DatabaseUnavailableError(committing && !answered && !neverSent(err as Error), err);
}
