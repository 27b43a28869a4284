// A token's signature is checked once per key and then reused (TokenVerifier's cache): an attacker must not
// get through it what the full check refuses. Each case compares with a verifier that keeps nothing, and
// counts the signature checks to show the cache was really used.
import { MemoryTransport, createLogger } from '@cr/service-kit';
import jwt from 'jsonwebtoken';
import { JwksKeySource, PemKeySource } from '../src/auth/key-source';
import type { RevocableClaims, RevocationSource } from '../src/auth/revocation-list';
import { TokenVerifier } from '../src/auth/token-verifier';
import { TEST_AUDIENCE, TEST_ISSUER, TokenForge } from './support/token-forge';

const logger = createLogger({ service: 't', level: 'error', transports: [new MemoryTransport()] });
const forge = new TokenForge();
beforeAll(() => forge.start());
afterAll(() => forge.stop());

let nowSeconds = Math.floor(Date.now() / 1000);
const revokedJtis = new Set<string>();
const revocations: RevocationSource = {
  isRevoked: (claims: RevocableClaims) => revokedJtis.has(claims.jti),
  loaded: async () => true,
};

function verifierWith(keys: PemKeySource | JwksKeySource, verifiedTokens?: number): TokenVerifier {
  return new TokenVerifier({
    keys,
    revocations,
    issuer: TEST_ISSUER,
    audience: TEST_AUDIENCE,
    clockToleranceSeconds: 10,
    nowSeconds: () => nowSeconds,
    ...(verifiedTokens === undefined ? {} : { verifiedTokens }),
  });
}

/** What a verifier answers: the tenant of the claims, or the refusal's message. */
async function answer(verifier: TokenVerifier, token: string, tenant: string): Promise<string> {
  try {
    return `ok ${(await verifier.verify(token, tenant)).base}`;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

describe('verified tokens reused', () => {
  beforeEach(() => {
    nowSeconds = Math.floor(Date.now() / 1000);
    revokedJtis.clear();
  });

  it('when the same token comes again, then its signature is not checked again; another token is', async () => {
    const verifier = verifierWith(new PemKeySource(forge.publicKeyPem));
    const token = forge.token('acme');
    for (let i = 0; i < 3; i++) expect(await answer(verifier, token, 'acme')).toBe('ok acme');
    expect(verifier.signaturesChecked).toBe(1);
    expect(await answer(verifier, forge.token('acme'), 'acme')).toBe('ok acme');
    expect(verifier.signaturesChecked).toBe(2);
  });

  it('when a reused token reaches its exp or its maximum age, then it is refused as the full check refuses it', async () => {
    const cached = verifierWith(new PemKeySource(forge.publicKeyPem));
    const full = verifierWith(new PemKeySource(forge.publicKeyPem), 0);
    const start = nowSeconds;
    const shortLived = forge.token('acme', { iat: start, exp: start + 60 });
    // iat 8 h ago less a minute, exp a year ahead: the 8-hour maximum age ends it first.
    const farExp = forge.token('acme', { iat: start - 8 * 3600 + 60, exp: start + 365 * 86400 });
    const seen: string[][] = [];
    // Around each edge: exp (+ the 10 s tolerance) of the first, iat + 8 h (+ tolerance) of the second.
    for (const at of [0, 69, 70, 71, 120]) {
      nowSeconds = start + at;
      for (const token of [shortLived, farExp]) {
        seen.push([String(at), await answer(cached, token, 'acme'), await answer(full, token, 'acme')]);
      }
    }
    for (const [at, fromCache, fromFull] of seen) expect([at, fromCache]).toEqual([at, fromFull]);
    expect(seen.map(([at, fromCache]) => `${at} ${fromCache}`)).toEqual([
      '0 ok acme',
      '0 ok acme',
      '69 ok acme',
      '69 ok acme',
      '70 token has expired',
      '70 token has expired',
      '71 token has expired',
      '71 token has expired',
      '120 token has expired',
      '120 token has expired',
    ]);
    // Verified once each at 0; reused at 69; each expired answer came from the full check.
    expect(cached.signaturesChecked).toBe(2 + 6);
  });

  it('when a reused token is sent to another tenant, is revoked or was issued ahead of the clock, then it is refused every time', async () => {
    const verifier = verifierWith(new PemKeySource(forge.publicKeyPem));
    const token = forge.token('acme');
    expect(await answer(verifier, token, 'acme')).toBe('ok acme');
    expect(await answer(verifier, token, 'globex')).toBe('token was not issued for this tenant');
    expect(await answer(verifier, token, 'globex')).toBe('token was not issued for this tenant');
    revokedJtis.add((jwt.decode(token) as { jti: string }).jti);
    expect(await answer(verifier, token, 'acme')).toBe('token has been revoked');
    expect(await answer(verifier, token, 'acme')).toBe('token has been revoked');

    // Signed for a minute from now: refused until then, from the cache as from the full check.
    const ahead = forge.token('acme', { iat: nowSeconds + 60, exp: nowSeconds + 3600 });
    expect(await answer(verifier, ahead, 'acme')).toBe('token is issued in the future');
    expect(await answer(verifier, ahead, 'acme')).toBe('token is issued in the future');
    nowSeconds += 60;
    expect(await answer(verifier, ahead, 'acme')).toBe('ok acme');
    expect(verifier.signaturesChecked).toBe(2);
  });

  it('when a token differs from a reused one by one character of its signature, then it is checked in full and refused', async () => {
    const verifier = verifierWith(new PemKeySource(forge.publicKeyPem));
    const token = forge.token('acme');
    expect(await answer(verifier, token, 'acme')).toBe('ok acme');
    const last = token.at(-2) === 'A' ? 'B' : 'A';
    const tampered = `${token.slice(0, -2)}${last}${token.slice(-1)}`;
    expect(await answer(verifier, tampered, 'acme')).toBe('token signature is invalid');
    expect(await answer(verifier, tampered, 'acme')).toBe('token signature is invalid');
    expect(verifier.signaturesChecked).toBe(3);
  });

  it('when the JWKS replaces or withdraws the key of a kid, then a reused token is checked against what it publishes now', async () => {
    let clock = Date.now();
    forge.jwksKeys = undefined;
    forge.jwksCacheControl = 'max-age=60';
    const keys = new JwksKeySource({ jwksUri: forge.jwksUrl, logger, now: () => clock });
    await keys.refresh();
    const verifier = verifierWith(keys);
    const token = forge.token('acme');
    expect(await answer(verifier, token, 'acme')).toBe('ok acme');
    expect(await answer(verifier, token, 'acme')).toBe('ok acme');
    expect(verifier.signaturesChecked).toBe(1);

    // The same kid now names another key (an auth-server that lost its key and reused the kid).
    forge.jwksKeys = [{ ...forge.stranger, kid: forge.published.kid }];
    clock += 61_000;
    await keys.refresh();
    expect(await answer(verifier, token, 'acme')).toBe('token signature is invalid');

    // The kid is withdrawn: the cache does not remember the key that verified the token.
    forge.jwksKeys = [forge.stranger];
    clock += 61_000;
    await keys.refresh();
    expect(await answer(verifier, token, 'acme')).toBe('token signing key is unknown');

    // Published again (a new key object from the fetch): verified once more, then reused.
    forge.jwksKeys = undefined;
    clock += 61_000;
    await keys.refresh();
    expect(await answer(verifier, token, 'acme')).toBe('ok acme');
    expect(await answer(verifier, token, 'acme')).toBe('ok acme');
    expect(verifier.signaturesChecked).toBe(3);
    forge.jwksCacheControl = undefined;
  });

  it('when more tokens are used than the cache holds, then the least recently used is checked again', async () => {
    const verifier = verifierWith(new PemKeySource(forge.publicKeyPem), 2);
    const [a, b, c] = [forge.token('acme'), forge.token('acme'), forge.token('acme')];
    for (const token of [a, b, a, c, a, b]) expect(await answer(verifier, token, 'acme')).toBe('ok acme');
    // a, b checked; a reused; c pushes b out; a reused; b checked again.
    expect(verifier.signaturesChecked).toBe(4);
  });
});
