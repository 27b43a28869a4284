// The yardstick every bench prints its ratio to: raw RSA-2048 PKCS#1 v1.5 SHA-256 signatures per second on this
// thread (node:crypto), measured in the same run so that a slow or shared machine moves both sides.
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';

export function rawSigningRate(durationMs = 2_000): number {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const data = randomBytes(512);
  for (let i = 0; i < 50; i++) sign('sha256', data, privateKey);
  const t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < durationMs) {
    sign('sha256', data, privateKey);
    n++;
  }
  return (n * 1000) / (performance.now() - t0);
}
