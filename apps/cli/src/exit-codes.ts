// Exit codes that mean something to a script (listed in `cr --help` and docs/cli.md), and the mapping from
// the SDK's typed errors onto them.
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  CrEinvoiceError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitError,
  ServerError,
  TimeoutError,
  UnprocessableError,
  WaitTimeoutError,
} from '@cr-einvoice/sdk';

export const EXIT = {
  ok: 0,
  /** Anything unexpected. */
  failure: 1,
  /** Wrong command, option or argument, or an unreadable input file. */
  usage: 2,
  /** Not logged in, wrong credentials, expired or revoked session. */
  auth: 3,
  /** The service refused the request (400, 409, 413, 422): the message names the field or the limit. */
  refused: 4,
  /** No such document, issuer or taxpayer (404). */
  notFound: 5,
  /** The service or Hacienda is down, unreachable, slow or limiting (5xx, 429, network, timeout). */
  unavailable: 6,
  /** Hacienda rejected the document (`rechazado`) or could not process it (`error`). */
  rejected: 7,
  /** --esperar gave up before Hacienda's final answer. */
  waitTimeout: 8,
} as const;

export class UsageError extends Error {}

export function exitCodeOf(err: unknown): number {
  if (err instanceof UsageError) return EXIT.usage;
  if (err instanceof WaitTimeoutError) return EXIT.waitTimeout;
  if (err instanceof AuthenticationError) return EXIT.auth;
  if (
    err instanceof BadRequestError ||
    err instanceof ConflictError ||
    err instanceof PayloadTooLargeError ||
    err instanceof UnprocessableError
  )
    return EXIT.refused;
  if (err instanceof NotFoundError) return EXIT.notFound;
  if (
    err instanceof ConnectionError ||
    err instanceof TimeoutError ||
    err instanceof ServerError ||
    err instanceof RateLimitError
  )
    return EXIT.unavailable;
  if (err instanceof CrEinvoiceError && err.status === 403) return EXIT.auth;
  return EXIT.failure;
}
