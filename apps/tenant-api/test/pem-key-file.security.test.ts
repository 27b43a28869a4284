// AUTH_PUBLIC_KEY_PATH with several PEM public keys (`pnpm admin keys:export-public --all`: the current and
// the next key), so a verifier without the JWKS survives a rotation: each key is known by its RFC 7638
// thumbprint, the auth-server's kid, and a token is verified by the key its kid names. A file of one key
// verifies any kid, as it always did.
import { createHash, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PemKeySource } from '../src/auth/key-source';
import type { RevocationSource } from '../src/auth/revocation-list';
import { TokenVerifier } from '../src/auth/token-verifier';
import { TEST_AUDIENCE, TEST_ISSUER, TokenForge } from './support/token-forge';

const forge = new TokenForge();
const noRevocations: RevocationSource = { isRevoked: () => false, loaded: async () => true };

// Computed here from the JWK members, as the auth-server names its keys, not through the code under test.
function kidOf(publicKey: KeyObject): string {
  const jwk = publicKey.export({ format: 'jwk' });
  return createHash('sha256')
    .update(JSON.stringify({ e: jwk.e, kty: 'RSA', n: jwk.n }))
    .digest('base64url');
}

const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
/** The auth-server's published next key: it signs once a rotation activates it. */
const next = { ...pair, kid: kidOf(pair.publicKey) };
const current = forge.published;
const pemOf = (k: { publicKey: KeyObject }) => k.publicKey.export({ type: 'spki', format: 'pem' }).toString();

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pem-keys-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function verifierFor(pem: string): TokenVerifier {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.pem`);
  writeFileSync(file, pem);
  return new TokenVerifier({
    keys: PemKeySource.fromFile(file),
    revocations: noRevocations,
    issuer: TEST_ISSUER,
    audience: TEST_AUDIENCE,
    clockToleranceSeconds: 10,
    nowSeconds: () => Math.floor(Date.now() / 1000),
  });
}

async function answer(verifier: TokenVerifier, token: string): Promise<string> {
  try {
    return `ok ${(await verifier.verify(token, 'acme')).base}`;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

describe('AUTH_PUBLIC_KEY_PATH with the current and the next key', () => {
  const twoKeys = () => verifierFor(pemOf(current) + pemOf(next));

  it('when a token is signed by the current key, then it verifies', async () => {
    expect(await answer(twoKeys(), forge.token('acme', {}, current))).toBe('ok acme');
  });

  it('when the rotation has made the next key current, then its tokens verify too (and the older ones still do)', async () => {
    const verifier = twoKeys();
    expect(await answer(verifier, forge.token('acme', {}, next))).toBe('ok acme');
    expect(await answer(verifier, forge.token('acme', {}, current))).toBe('ok acme');
  });

  it('when the kid names no key of the file, then the token is refused', async () => {
    expect(await answer(twoKeys(), forge.withUnknownKid('acme'))).toBe('token signing key is unknown');
  });

  it("when a token signed by one key carries the other key's kid, then the key its kid names refuses it", async () => {
    const verifier = twoKeys();
    const lying = forge.token('acme', {}, { ...next, kid: current.kid });
    expect(await answer(verifier, lying)).not.toBe('ok acme');
    const stranger = forge.token('acme', {}, { ...forge.stranger, kid: next.kid });
    expect(await answer(verifier, stranger)).not.toBe('ok acme');
  });

  it('when the keys are read, then each is known by the kid the auth-server gives it', () => {
    const file = join(dir, 'kids.pem');
    writeFileSync(file, `${pemOf(current)}\n${pemOf(next)}`);
    expect(PemKeySource.fromFile(file).kids().sort()).toEqual([current.kid, next.kid].sort());
  });
});

describe('AUTH_PUBLIC_KEY_PATH with one key', () => {
  it('when the token has any kid, then that key verifies it as before', async () => {
    const verifier = verifierFor(pemOf(current));
    expect(await answer(verifier, forge.token('acme', {}, { ...current, kid: 'whatever-kid' }))).toBe(
      'ok acme',
    );
    expect(await answer(verifier, forge.withUnknownKid('acme'))).not.toBe('ok acme');
  });
});
