// A request body's fingerprint for idempotency: SHA-256 of its canonical JSON (object keys sorted at every
// level), so key order and whitespace do not make two equal bodies differ.
import { createHash } from 'node:crypto';

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value as Record<string, unknown>).sort()) {
      out[k] = canonical((value as Record<string, unknown>)[k]);
    }
    return out;
  }
  return value;
}

export function canonicalJson(value: unknown): string {
  return JSON.stringify(canonical(value)) ?? 'null';
}

export function hashRequestBody(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}
