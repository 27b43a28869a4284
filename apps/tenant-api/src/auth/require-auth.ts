// Guards every /api/* route: a Bearer token verified for the tenant of the host, or, without an
// Authorization header, the dashboard's session cookie (docs/decisions/0021), whose state-changing requests
// must also carry the session's X-CSRF-Token (403 otherwise). Else 401 `unauthorized` with
// `WWW-Authenticate: Bearer`. The verified claims are left in res.locals for the route.
import { CSRF_HEADER, type TokenClaims } from '@cr/contracts';
import { AppError, metrics } from '@cr/service-kit';
import type { Request, RequestHandler, Response } from 'express';
import { csrfMatches, readSessionToken } from '../session/session-cookie';
import { RevocationsUnknownError, TokenError, type TokenVerifier } from './token-verifier';

declare global {
  namespace Express {
    interface Locals {
      claims: TokenClaims;
      /** The token of a request authenticated by the session cookie (sign-out revokes it). */
      sessionToken?: string;
    }
  }
}

function unauthorized(reason: string, error = 'invalid_token'): AppError {
  return new AppError('unauthorized', reason, {
    headers: {
      'WWW-Authenticate':
        error === '' ? 'Bearer' : `Bearer error="${error}", error_description="${reason.replace(/"/g, "'")}"`,
    },
  });
}

/** 'token has expired' → 'expired': a small fixed label set from the verifier's reasons. */
function tokenOutcome(reason: string): string {
  for (const word of [
    'expired',
    'revoked',
    'signature',
    'tenant',
    'audience',
    'issuer',
    'algorithm',
    'unknown',
    'malformed',
  ])
    if (reason.includes(word)) return word;
  return 'invalid';
}

// The scheme is case-insensitive (RFC 7235 §2.1), as the auth-server reads it at /logout.
const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*)$/i;

// Methods that change nothing: a cross-site page that makes the browser send them learns nothing either,
// since it cannot read the answer.
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

async function verifyToken(
  verifier: Pick<TokenVerifier, 'verify'>,
  token: string,
  res: Response,
): Promise<AppError | undefined> {
  try {
    res.locals.claims = await verifier.verify(token, res.locals.tenantId);
    metrics.auth.tokenVerifications.inc({ outcome: 'valid' });
    return undefined;
  } catch (err) {
    if (err instanceof TokenError) {
      metrics.auth.tokenVerifications.inc({ outcome: tokenOutcome(err.message) });
      return unauthorized(err.message);
    }
    if (err instanceof RevocationsUnknownError) {
      metrics.auth.tokenVerifications.inc({ outcome: 'revocations_unknown' });
      return err;
    }
    throw err;
  }
}

/** The session cookie's token verified, and the CSRF header checked unless the method is safe. */
async function verifySession(
  verifier: Pick<TokenVerifier, 'verify'>,
  token: string,
  req: Request,
  res: Response,
): Promise<AppError | undefined> {
  const refused = await verifyToken(verifier, token, res);
  if (refused) return refused;
  if (!SAFE_METHODS.has(req.method) && !csrfMatches(req.get(CSRF_HEADER), token)) {
    return new AppError('forbidden', 'X-CSRF-Token: missing or not this session’s');
  }
  res.locals.sessionToken = token;
  return undefined;
}

/** The dashboard's own session routes: the cookie only (a Bearer token is not a browser session). */
export function requireSession(verifier: Pick<TokenVerifier, 'verify'>): RequestHandler {
  return async (req, res, next) => {
    const token = readSessionToken(req);
    if (!token) return next(unauthorized('no dashboard session', ''));
    try {
      next(await verifySession(verifier, token, req, res));
    } catch (err) {
      next(err);
    }
  };
}

export function requireAuth(verifier: Pick<TokenVerifier, 'verify'>): RequestHandler {
  return async (req, res, next) => {
    // Already verified for this request (the upload route authenticates before reading its large body).
    if (res.locals.claims) return next();
    const header = req.get('authorization');
    const cookieToken = header ? undefined : readSessionToken(req);
    if (cookieToken) {
      try {
        return next(await verifySession(verifier, cookieToken, req, res));
      } catch (err) {
        return next(err);
      }
    }
    if (!header) {
      metrics.auth.tokenVerifications.inc({ outcome: 'missing' });
      return next(unauthorized('missing Authorization: Bearer token', ''));
    }
    const match = BEARER.exec(header.trim());
    if (!match) {
      metrics.auth.tokenVerifications.inc({ outcome: 'malformed' });
      return next(unauthorized('Authorization header is not a Bearer token'));
    }
    try {
      next(await verifyToken(verifier, match[1]!, res));
    } catch (err) {
      next(err);
    }
  };
}
