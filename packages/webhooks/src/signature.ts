// Standard Webhooks signatures (https://www.standardwebhooks.com): the receiver recomputes
// base64(HMAC-SHA256(secret, `${id}.${timestamp}.${body}`)) and compares it with one of the `v1,` values.
// During a secret rotation both the new and the previous secret sign, space-separated.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const PREFIX = 'whsec_';

export function generateWebhookSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

function secretKey(secret: string): Buffer {
  if (!secret.startsWith(PREFIX)) throw new Error('webhook secret must start with whsec_');
  return Buffer.from(secret.slice(PREFIX.length), 'base64');
}

export function signPayload(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The `webhook-signature` header value for every active secret. */
export function signatureHeader(secrets: string[], id: string, timestamp: number, body: string): string {
  return secrets.map((s) => signPayload(s, id, timestamp, body)).join(' ');
}

export interface VerifyOptions {
  /** Largest accepted clock difference, seconds (replay protection). */
  toleranceSeconds?: number;
  now?: number;
}

/** What a receiver does; used by our tests and documented for clients. */
export function verifySignature(
  secret: string,
  headers: { id: string; timestamp: string; signature: string },
  body: string,
  options: VerifyOptions = {},
): boolean {
  const ts = Number(headers.timestamp);
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (!Number.isInteger(ts) || Math.abs(now - ts) > (options.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(signPayload(secret, headers.id, ts, body).slice(3), 'base64');
  return headers.signature.split(' ').some((candidate) => {
    const [version, value] = candidate.split(',', 2);
    if (version !== 'v1' || !value) return false;
    const got = Buffer.from(value, 'base64');
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
}
