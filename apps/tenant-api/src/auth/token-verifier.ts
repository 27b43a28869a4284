// Verifies the Bearer token of a tenant request: RS256 only, key by kid, iss, aud, exp (small clock
// tolerance), at most 8 h old by its iat and never issued in the future (so a leaked signing key cannot mint
// long-lived tokens), base = sub = the tenant of the host, neither its jti nor its subject revoked. Every
// failure is the same kind of error with a short reason that never echoes the token; a token that checks out
// while the revocations were never loaded is RevocationsUnknownError (503, not 401: the client did nothing wrong).
import type { KeyObject } from 'node:crypto';
import {
  TOKEN_LIFETIME_SECONDS,
  type TokenClaims,
  TokenClaims as TokenClaimsSchema,
  validate,
} from '@cr/contracts';
import { AppError } from '@cr/service-kit';
import jwt from 'jsonwebtoken';
import type { KeySource } from './key-source';
import type { RevocationSource } from './revocation-list';

export class TokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenError';
  }
}

/** The token checked out, but the revocations were never loaded: whether it was revoked is unknown. */
export class RevocationsUnknownError extends AppError {
  constructor() {
    super('service_unavailable', 'token revocations are not loaded from the auth-server yet; retry shortly', {
      headers: { 'Retry-After': '1' },
    });
    this.name = 'RevocationsUnknownError';
  }
}

export interface TokenVerifierOptions {
  keys: KeySource;
  revocations: RevocationSource;
  issuer: string;
  audience: string;
  clockToleranceSeconds: number;
  /** Seconds since the epoch; tests freeze it. */
  nowSeconds?: () => number;
}

interface Header {
  alg?: unknown;
  kid?: unknown;
}

function readHeader(token: string): Header {
  const dot = token.indexOf('.');
  if (dot <= 0 || token.split('.').length !== 3) throw new TokenError('token is malformed');
  try {
    const header: unknown = JSON.parse(Buffer.from(token.slice(0, dot), 'base64url').toString('utf8'));
    if (!header || typeof header !== 'object') throw new Error('not an object');
    return header as Header;
  } catch {
    throw new TokenError('token is malformed');
  }
}

function describeJwtError(err: unknown): string {
  if (err instanceof jwt.TokenExpiredError) return 'token has expired';
  if (err instanceof jwt.JsonWebTokenError && /iat required/.test(err.message))
    return 'token claims are incomplete';
  if (err instanceof jwt.NotBeforeError) return 'token is not valid yet';
  if (err instanceof jwt.JsonWebTokenError) {
    if (/audience/.test(err.message)) return 'token audience is not accepted';
    if (/issuer/.test(err.message)) return 'token issuer is not accepted';
    if (/signature/.test(err.message)) return 'token signature is invalid';
    if (/malformed|invalid token|Unexpected token/.test(err.message)) return 'token is malformed';
    return 'token is invalid';
  }
  return 'token is invalid';
}

export class TokenVerifier {
  private readonly nowSeconds: () => number;

  constructor(private readonly options: TokenVerifierOptions) {
    this.nowSeconds = options.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
  }

  /** The verified claims of `token` for a request to `tenantId`'s host; throws TokenError. */
  async verify(token: string, tenantId: string): Promise<TokenClaims> {
    const header = readHeader(token);
    // Decided before any key is looked up: `none`, HS* (a public key used as an HMAC secret) and every
    // other algorithm never reach a verification routine.
    if (header.alg !== 'RS256') throw new TokenError('token algorithm is not accepted');
    const kid = typeof header.kid === 'string' ? header.kid : undefined;
    const key: KeyObject | undefined =
      this.options.keys.cachedKey(kid) ?? (await this.options.keys.keyFor(kid));
    if (!key) throw new TokenError('token signing key is unknown');
    let payload: unknown;
    const now = this.nowSeconds();
    try {
      payload = jwt.verify(token, key, {
        algorithms: ['RS256'],
        issuer: this.options.issuer,
        audience: this.options.audience,
        clockTolerance: this.options.clockToleranceSeconds,
        clockTimestamp: now,
        maxAge: TOKEN_LIFETIME_SECONDS,
      });
    } catch (err) {
      throw new TokenError(describeJwtError(err));
    }
    const checked = validate(TokenClaimsSchema, payload);
    if (!checked.ok) throw new TokenError('token claims are incomplete');
    const claims = checked.value;
    if (claims.iat > now + this.options.clockToleranceSeconds)
      throw new TokenError('token is issued in the future');
    if (claims.sub !== claims.base || claims.base !== tenantId) {
      throw new TokenError('token was not issued for this tenant');
    }
    // Asked last: a forged or expired token is refused without a call to the auth-server.
    if (!(await this.options.revocations.loaded())) throw new RevocationsUnknownError();
    if (this.options.revocations.isRevoked(claims)) throw new TokenError('token has been revoked');
    return claims;
  }
}
