// A request body's fingerprint for idempotency: SHA-256 of its canonical JSON (object keys sorted at every
// level), so key order and whitespace do not make two equal bodies differ.
import { createHash } from 'node:crypto';
import { AppError } from '@cr/service-kit';

// The body may be hashed before it is validated (Idempotency-Key). JSON.parse takes `[[[[…]]]]` 20,000 levels
// deep in 40 KB, and this recursive walk would overflow the stack on it (a 500); the contracts are a few
// levels deep, so anything past this bound is refused as bad input before the walk goes that far.
export const MAX_BODY_DEPTH = 64;

function canonical(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_BODY_DEPTH) {
    throw new AppError('bad_request', `body: nested deeper than ${MAX_BODY_DEPTH} levels`);
  }
  if (Array.isArray(value)) return value.map((v) => canonical(v, depth + 1));
  // No prototype: on a plain `{}`, `out['__proto__'] = …` would set the prototype instead of a key, and a
  // body's own `__proto__` (JSON.parse makes one) would drop out of the hash, so a different body under a
  // used Idempotency-Key would get the stored answer.
  const out: Record<string, unknown> = Object.create(null);
  for (const k of Object.keys(value as Record<string, unknown>).sort()) {
    out[k] = canonical((value as Record<string, unknown>)[k], depth + 1);
  }
  return out;
}

export function canonicalJson(value: unknown): string {
  return JSON.stringify(canonical(value, 0)) ?? 'null';
}

export function hashRequestBody(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}
