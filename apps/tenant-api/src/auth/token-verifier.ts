// Verifies the Bearer token of a tenant request: RS256 only, no `crit` header, key by kid, iss, aud, exp (small
// clock tolerance), at most 8 h old by its iat and never issued in the future (so a leaked signing key cannot
// mint long-lived tokens), base = sub = the tenant of the host, neither its jti nor its subject revoked. Every
// failure is the same kind of error with a short reason that never echoes the token; a token that checks out
// while the revocations were never loaded is RevocationsUnknownError (503, not 401: the client did nothing wrong).
// A client sends the same token with every request for hours: its signature and fixed claims are checked
// once per key, then taken from a small cache while that very key still verifies its kid (see `reusable`).
import type { KeyObject } from 'node:crypto';
import {
  TOKEN_LIFETIME_SECONDS,
  type TokenClaims,
  TokenClaims as TokenClaimsSchema,
  validate,
} from '@cr/contracts';
import { AppError } from '@cr/service-kit';
import jwt from 'jsonwebtoken';
import { LRUCache } from 'lru-cache';
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
  /** Tokens whose signature check is kept (least recently used out); default 1,000, 0 keeps none. */
  verifiedTokens?: number;
}

/** A token that passed every check of its own bytes: signature, algorithm, iss, aud and its claims' shape. */
interface Verified {
  kid: string | undefined;
  /** The key that verified it: reused only while the key source still gives this very object for `kid`. */
  key: KeyObject;
  claims: TokenClaims;
}

/** Longer tokens are verified every time (ours are ~700 characters): the cache's memory stays bounded. */
const MAX_CACHED_TOKEN_LENGTH = 4096;

interface Header {
  alg?: unknown;
  kid?: unknown;
  crit?: unknown;
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
  private readonly verified: LRUCache<string, Verified> | undefined;
  private checks = 0;

  constructor(private readonly options: TokenVerifierOptions) {
    this.nowSeconds = options.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
    const max = options.verifiedTokens ?? 1000;
    this.verified = max > 0 ? new LRUCache({ max }) : undefined;
  }

  /**
   * The claims of a token verified before, when the full check would pass again now: the same bytes, so the
   * same header, payload and signature; the same key object for its kid, so the same signature outcome (a
   * JWKS refresh makes new key objects, and a withdrawn or replaced key is a miss); and still inside its exp
   * and its maximum age, the only checks of jwt.verify that depend on the time (the claims allow no nbf).
   * Anything else is a miss, and the full check gives its usual answer. The tenant, iat and revocation
   * checks that follow run on every request.
   */
  private reusable(token: string, now: number): TokenClaims | undefined {
    const hit = this.verified?.get(token);
    if (!hit || this.options.keys.cachedKey(hit.kid) !== hit.key) return undefined;
    const tolerance = this.options.clockToleranceSeconds;
    const { exp, iat } = hit.claims;
    if (now >= exp + tolerance || now >= iat + TOKEN_LIFETIME_SECONDS + tolerance) return undefined;
    return hit.claims;
  }

  /** Every check of the token's own bytes, with its signature; a token that passes is kept for reuse. */
  private async checkToken(token: string, now: number): Promise<TokenClaims> {
    const header = readHeader(token);
    // Decided before any key is looked up: `none`, HS* (a public key used as an HMAC secret) and every
    // other algorithm never reach a verification routine.
    if (header.alg !== 'RS256') throw new TokenError('token algorithm is not accepted');
    // RFC 7515 §4.1.11: a recipient must refuse a JWS whose `crit` lists an extension it does not understand,
    // and we understand none (jsonwebtoken ignores `crit`). In any form: an empty list is itself invalid.
    if (header.crit !== undefined) throw new TokenError('token header is not accepted');
    const kid = typeof header.kid === 'string' ? header.kid : undefined;
    const key: KeyObject | undefined =
      this.options.keys.cachedKey(kid) ?? (await this.options.keys.keyFor(kid));
    if (!key) throw new TokenError('token signing key is unknown');
    let payload: unknown;
    this.checks += 1;
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
    const claims = Object.freeze(checked.value);
    if (token.length <= MAX_CACHED_TOKEN_LENGTH) this.verified?.set(token, { kid, key, claims });
    return claims;
  }

  /** Signature checks made (a token reused from the cache makes none): for the tests and the bench. */
  get signaturesChecked(): number {
    return this.checks;
  }

  /** The verified claims of `token` for a request to `tenantId`'s host; throws TokenError. */
  async verify(token: string, tenantId: string): Promise<TokenClaims> {
    const now = this.nowSeconds();
    const claims = this.reusable(token, now) ?? (await this.checkToken(token, now));
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
