// Guards every /api/* route: a Bearer token verified for the tenant of the host, or 401 `unauthorized`
// with `WWW-Authenticate: Bearer`. The verified claims are left in res.locals for the route.
import type { TokenClaims } from '@cr/contracts';
import { AppError, metrics } from '@cr/service-kit';
import type { RequestHandler } from 'express';
import { TokenError, type TokenVerifier } from './token-verifier';

declare global {
  namespace Express {
    interface Locals {
      claims: TokenClaims;
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

const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*)$/;

export function requireAuth(verifier: Pick<TokenVerifier, 'verify'>): RequestHandler {
  return async (req, res, next) => {
    const header = req.get('authorization');
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
      res.locals.claims = await verifier.verify(match[1]!, res.locals.tenantId);
      metrics.auth.tokenVerifications.inc({ outcome: 'valid' });
      next();
    } catch (err) {
      if (err instanceof TokenError) {
        metrics.auth.tokenVerifications.inc({ outcome: tokenOutcome(err.message) });
        return next(unauthorized(err.message));
      }
      next(err);
    }
  };
}
