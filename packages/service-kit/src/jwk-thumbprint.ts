// The kid of an RS256 signing key: its RFC 7638 JWK thumbprint. The auth-server names its keys with it, and a
// verifier holding only PEM public keys (no JWKS, so no kid beside them) computes the same name from each key.
import { createHash, type KeyObject } from 'node:crypto';

/** RFC 7638 JWK thumbprint of an RSA public key: SHA-256 over the required members in lexical order. */
export function thumbprintOf(jwk: { e: string; n: string }): string {
  const canonical = JSON.stringify({ e: jwk.e, kty: 'RSA', n: jwk.n });
  return createHash('sha256').update(canonical).digest('base64url');
}

/** The thumbprint of an RSA public KeyObject (e.g. one read from a PEM file). */
export function thumbprintOfKey(key: KeyObject): string {
  return thumbprintOf(key.export({ format: 'jwk' }) as { e: string; n: string });
}
