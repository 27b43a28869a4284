// The receiver's side of Standard Webhooks (https://www.standardwebhooks.com): recompute
// base64(HMAC-SHA256(key, `${webhook-id}.${webhook-timestamp}.${body}`)) with each secret the receiver
// holds and accept if any `v1,` signature matches; refuse a timestamp outside the tolerance, so a captured
// delivery cannot be replayed later. Web Crypto only, so it runs in Node, Deno, Bun and edge runtimes.
import { WebhookVerificationError } from './errors';
import type { WebhookEvent } from './types';

export type WebhookHeaders =
  | Headers
  | Record<string, string | string[] | undefined>
  | { get(name: string): string | null };

export interface VerifyWebhookOptions {
  /** Largest difference between the delivery's timestamp and now, seconds. Default 300. */
  toleranceSeconds?: number;
  /** Now, Unix seconds (tests). */
  now?: number;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(' ') : value;
}

function base64ToBytes(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** The key of a `whsec_…` secret; undefined when it is not base64 or is empty (no HMAC key can be made). */
function secretBytes(secret: string): Uint8Array | undefined {
  const raw = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  try {
    const bytes = base64ToBytes(raw);
    return bytes.length > 0 ? bytes : undefined;
  } catch {
    return undefined;
  }
}

function fail(message: string): never {
  throw new WebhookVerificationError('invalid_webhook', message);
}

/**
 * Checks a delivery and returns its event: a document's final state, or a received document's
 * `recepcion.deadline` (the one with a `type`). `payload` is the raw body exactly as received (not re-serialized
 * JSON); `secret` is one `whsec_…` secret, or several while you rotate yours.
 */
export async function verifyWebhook(
  payload: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signature = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signature)
    fail('missing webhook-id, webhook-timestamp or webhook-signature header');
  if (!/^\d+$/.test(timestamp)) fail('webhook-timestamp is not Unix seconds');
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(now - Number(timestamp)) > tolerance)
    fail(`webhook-timestamp is more than ${tolerance} s away from now (replayed or clock skew)`);
  const body = typeof payload === 'string' ? payload : new TextDecoder().decode(payload);
  const signed = new TextEncoder().encode(`${id}.${timestamp}.${body}`);
  const candidates = signature
    .split(' ')
    .map((s) => s.split(',', 2))
    .filter(([version, value]) => version === 'v1' && value)
    .map(([, value]) => {
      try {
        return base64ToBytes(value!);
      } catch {
        return undefined;
      }
    })
    .filter((v): v is Uint8Array => v !== undefined);
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (secrets.length === 0) throw new WebhookVerificationError('invalid_secret', 'no webhook secret given');
  // An unusable secret among several (a stray comma, a typo) is skipped, as any of the others may match.
  const usable = secrets.map(secretBytes).filter((b): b is Uint8Array => b !== undefined);
  if (usable.length === 0)
    throw new WebhookVerificationError(
      'invalid_secret',
      secrets.length === 1
        ? 'the webhook secret is not whsec_ followed by base64'
        : 'none of the webhook secrets is whsec_ followed by base64',
    );
  const subtle = globalThis.crypto.subtle;
  for (const bytes of usable) {
    const key = await subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
    for (const candidate of candidates) {
      // subtle.verify compares in constant time.
      if (await subtle.verify('HMAC', key, candidate, signed)) {
        try {
          return JSON.parse(body) as WebhookEvent;
        } catch {
          fail('the signed body is not JSON');
        }
      }
    }
  }
  fail('no webhook-signature matches the secret');
}
