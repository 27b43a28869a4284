// Pieces every tenant-api benchmark needs: a token for tenant `acme` with the verifier that accepts it,
// Hacienda settings that point where nothing listens (for benches that must never call Hacienda), and the
// writer of one section of docs/performance.md, and the choice of what a run measures by name.
import { generateKeyPairSync } from 'node:crypto';
import type { HaciendaSettings } from '@cr/hacienda-client';
import { writePerformanceSection as writeSection } from '@cr/testkit';
import jwt from 'jsonwebtoken';
import { PemKeySource } from '../src/auth/key-source';
import { noRevocations } from '../src/auth/revocation-list';
import { TokenVerifier } from '../src/auth/token-verifier';

export const BENCH_ISSUER = 'http://auth.bench';
export const BENCH_AUDIENCE = 'tenant-api';

/** A fresh RS256 key pair, a token of tenant `acme` signed with it, and the verifier of the app under test. */
export function benchAuth(): { token: string; verifier: TokenVerifier } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const iat = Math.floor(Date.now() / 1000);
  const token = jwt.sign(
    {
      iss: BENCH_ISSUER,
      aud: BENCH_AUDIENCE,
      sub: 'acme',
      base: 'acme',
      jti: 'bench-1',
      iat,
      exp: iat + 28800,
    },
    privateKey,
    { algorithm: 'RS256', keyid: 'bench' },
  );
  const verifier = new TokenVerifier({
    keys: new PemKeySource(publicKey.export({ type: 'spki', format: 'pem' }).toString()),
    revocations: noRevocations,
    issuer: BENCH_ISSUER,
    audience: BENCH_AUDIENCE,
    clockToleranceSeconds: 30,
  });
  return { token, verifier };
}

/** Hacienda settings where nothing listens (port 9, discard): a bench that reaches Hacienda fails loudly. */
export function unreachableHacienda(): HaciendaSettings {
  const nowhere = 'http://127.0.0.1:9';
  return {
    HACIENDA_IDP_URL_TEST: `${nowhere}/token`,
    HACIENDA_IDP_URL_PROD: `${nowhere}/token`,
    HACIENDA_RECEPCION_URL_TEST: `${nowhere}/recepcion/v1`,
    HACIENDA_RECEPCION_URL_PROD: `${nowhere}/recepcion/v1`,
    HACIENDA_PUBLIC_API_URL: nowhere,
  };
}

/** Replaces the section that starts with `heading` in docs/performance.md (or appends it) and prints it. */
export function writePerformanceSection(heading: string, section: string): void {
  writeSection(heading, section);
  process.stdout.write(`${section}\n`);
}

/**
 * The items a bench setting names (comma-separated keys, e.g. BENCH_PIPELINE_ENGINES=postgresql), or all of them
 * when it is unset. A name the run does not have is refused before anything is measured, saying what is there
 * and `missingHint` (what would add the rest), so an A/B never writes an empty section.
 */
export function selectByKey<T extends { key: string }>(
  all: T[],
  wanted: string | undefined,
  { setting, noun, missingHint }: { setting: string; noun: string; missingHint: string | undefined },
): T[] {
  if (!wanted) return all;
  const keys = wanted
    .toLowerCase()
    .split(',')
    .map((k) => k.trim());
  for (const key of keys) {
    if (!all.some((item) => item.key === key)) {
      throw new Error(
        `${setting}: no ${noun} "${key}" here (${all.map((item) => item.key).join(', ')}` +
          `${missingHint ? `; ${missingHint}` : ''})`,
      );
    }
  }
  return all.filter((item) => keys.includes(item.key));
}
