// Issues and checks the access tokens: RS256 (signed with node:crypto, verified with jsonwebtoken), header kid = the signing key's thumbprint,
// claims exactly as the spec lists them.
import { type KeyObject, randomUUID, sign } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { TOKEN_LIFETIME_SECONDS, type TokenClaims } from '@cr/contracts';
import { AppError } from '@cr/service-kit';
import type { KeyStore } from './keys';

export interface TokenServiceOptions {
  keys: KeyStore;
  issuer: string;
  audience: string;
  now: () => number;
}

export interface IssuedToken {
  token: string;
  claims: TokenClaims;
  kid: string;
}

const headers = new Map<string, string>();

function headerOf(kid: string): string {
  let h = headers.get(kid);
  if (!h) {
    h = Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid })).toString('base64url');
    headers.set(kid, h);
  }
  return h;
}

/**
 * RFC 7515 compact serialization, RS256, with node:crypto directly: the header is encoded once per key, so
 * issuing a token costs little more than the RSA signature itself (jsonwebtoken re-validates the key and
 * options on every call, which halves the rate). Verification (here and in the tenant-api) uses
 * jsonwebtoken/jwks-rsa, and the tests check the two agree.
 */
function signCompact(encodedHeader: string, claims: TokenClaims, key: KeyObject): string {
  const input = `${encodedHeader}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`;
}

export class TokenService {
  constructor(private readonly options: TokenServiceOptions) {}

  /**
   * `notBefore`: the subject's revocation time (Unix seconds), when it has one. A login in the same second
   * as a revocation gets iat = notBefore (less than a second ahead, within every verifier's tolerance),
   * so the fresh token is not caught by the revocation of the ones before it. `nowMs`: the issue time when
   * the caller took it before reading the subject's state (so a revocation after that read catches it).
   */
  issue(
    base: string,
    notBefore?: number,
    apiKey?: { id: string; scopes: readonly string[] },
    nowMs = this.options.now(),
  ): IssuedToken {
    const key = this.options.keys.currentKey(nowMs);
    if (!key) throw new AppError('service_unavailable', 'no signing key is loaded');
    const iat = Math.max(Math.floor(nowMs / 1000), notBefore ?? 0);
    const claims: TokenClaims = {
      iss: this.options.issuer,
      aud: this.options.audience,
      iat,
      exp: iat + TOKEN_LIFETIME_SECONDS,
      jti: randomUUID(),
      sub: base,
      base,
      // A password login carries no scope (every scope, as before API keys existed); a key's token its own.
      ...(apiKey ? { scope: apiKey.scopes.join(' '), akid: apiKey.id } : {}),
    };
    const token = signCompact(headerOf(key.kid), claims, key.privateKey());
    return { token, claims, kid: key.kid };
  }

  /** Verifies one of our own tokens (for /logout); any failure is a 401 `unauthorized`. */
  verify(token: string): TokenClaims {
    const nowMs = this.options.now();
    const decoded = jwt.decode(token, { complete: true });
    const header = decoded && typeof decoded === 'object' ? decoded.header : undefined;
    // RFC 7515 §4.1.11: a JWS whose `crit` lists an extension the recipient does not understand is refused,
    // and we understand none (jsonwebtoken ignores `crit`); the tenant-api refuses it too.
    const kid = header && header.crit === undefined ? header.kid : undefined;
    const key = kid ? this.options.keys.publicKey(kid, nowMs) : undefined;
    if (!key) throw new AppError('unauthorized', 'token is invalid or expired');
    try {
      const claims = jwt.verify(token, key, {
        algorithms: ['RS256'],
        issuer: this.options.issuer,
        audience: this.options.audience,
        clockTimestamp: Math.floor(nowMs / 1000),
        maxAge: TOKEN_LIFETIME_SECONDS,
      });
      if (typeof claims !== 'object' || typeof claims.jti !== 'string' || typeof claims.exp !== 'number')
        throw new Error('claims');
      return claims as TokenClaims;
    } catch {
      throw new AppError('unauthorized', 'token is invalid or expired');
    }
  }
}
