// Where token-verification keys come from: the auth-server's JWKS (through one long-lived jwks-rsa client,
// the whole set cached, an unknown kid refetching at most once per interval so random kids cannot force a
// fetch storm) or a local file of PEM public keys. Keys are kept as KeyObjects so a verification never
// re-parses a key.
// The cached set lives as long as the JWKS response's Cache-Control max-age says, then is fetched again and
// REPLACED: a key the auth-server stopped publishing (retired, or withdrawn because it leaked) stops
// verifying here within one max-age, with or without traffic.
import { type KeyObject, createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type Logger, thumbprintOfKey } from '@cr/service-kit';
import jwksRsa from 'jwks-rsa';

export interface KeySource {
  /** The key for `kid`, or undefined when the issuer publishes none. */
  keyFor(kid: string | undefined): Promise<KeyObject | undefined> | KeyObject | undefined;
  /** Whether at least one key is available now (for readiness). */
  hasKey(): boolean;
  /** Loads the keys now; resolves false when that was not possible. */
  refresh(): Promise<boolean>;
  /** The cached key of `kid`, without any I/O (the hot path). */
  cachedKey(kid: string | undefined): KeyObject | undefined;
}

/**
 * The PEM public keys of AUTH_PUBLIC_KEY_PATH (`pnpm admin keys:export-public`), one after another. Each key
 * is known by its RFC 7638 thumbprint, which is exactly the kid the auth-server gives it, so the file needs
 * nothing beyond standard SPKI PEM blocks. With several keys (the current and the next one, so a rotation
 * does not lock clients out) a token is verified by the key its kid names, and refused when no key of the
 * file has that kid. A file of one key keeps the older behaviour: that key verifies whatever the kid.
 */
export class PemKeySource implements KeySource {
  private readonly keys: Map<string, KeyObject>;
  /** Set when the file holds one key: it verifies any kid. */
  private readonly only: KeyObject | undefined;

  constructor(pem: string) {
    // Any PEM block Node reads a public key from (SPKI, PKCS#1, a certificate), as a one-key file always was.
    const blocks = pem.match(/-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g) ?? [];
    if (blocks.length === 0) throw new Error('AUTH_PUBLIC_KEY_PATH: no PEM block in the file');
    this.keys = new Map();
    blocks.forEach((block, i) => {
      const key = createPublicKey(block);
      if (key.asymmetricKeyType !== 'rsa')
        throw new Error(`AUTH_PUBLIC_KEY_PATH: key ${i + 1} of the file is not an RSA key`);
      this.keys.set(thumbprintOfKey(key), key);
    });
    this.only = blocks.length === 1 ? [...this.keys.values()][0] : undefined;
  }

  static fromFile(path: string): PemKeySource {
    return new PemKeySource(readFileSync(path, 'utf8'));
  }

  /** Kids of the file's keys, in no particular order (for tests and the log). */
  kids(): string[] {
    return [...this.keys.keys()];
  }

  keyFor(kid: string | undefined): KeyObject | undefined {
    return this.cachedKey(kid);
  }

  cachedKey(kid: string | undefined): KeyObject | undefined {
    if (this.only) return this.only;
    return kid === undefined ? undefined : this.keys.get(kid);
  }

  hasKey(): boolean {
    return true;
  }

  async refresh(): Promise<boolean> {
    return true;
  }
}

export interface JwksKeySourceOptions {
  jwksUri: string;
  logger: Logger;
  /** Least time between two fetches caused by unknown kids. */
  minRefetchIntervalMs?: number;
  /** Lifetime of the set when the response has no usable Cache-Control max-age. */
  defaultMaxAgeMs?: number;
  timeoutMs?: number;
  now?: () => number;
}

/** Bounds of the honoured max-age: not a fetch per request, not an hour-old view of a withdrawn key. */
const MIN_MAX_AGE_MS = 5_000;
const MAX_MAX_AGE_MS = 3_600_000;

/** `Cache-Control: public, max-age=300` → 300 000 ms; no-store/no-cache → the minimum; absent → undefined. */
export function maxAgeOf(cacheControl: string | null): number | undefined {
  if (!cacheControl) return undefined;
  if (/\b(no-store|no-cache)\b/i.test(cacheControl)) return MIN_MAX_AGE_MS;
  const m = /\bmax-age\s*=\s*"?(\d{1,9})"?/i.exec(cacheControl);
  if (!m) return undefined;
  return Math.min(MAX_MAX_AGE_MS, Math.max(MIN_MAX_AGE_MS, Number(m[1]) * 1000));
}

export class JwksKeySource implements KeySource {
  private readonly client: jwksRsa.JwksClient;
  private keys = new Map<string, KeyObject>();
  private lastFetchAt = Number.NEGATIVE_INFINITY;
  /** When the current set stops being fresh (this machine's clock). */
  private freshUntil = Number.NEGATIVE_INFINITY;
  /** max-age of the last response, ms. */
  private maxAgeMs: number;
  private inFlight: Promise<boolean> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly minRefetchIntervalMs: number;
  private readonly now: () => number;

  constructor(private readonly options: JwksKeySourceOptions) {
    // jwks-rsa converts the set; the fetch is ours (to read Cache-Control), and so are the caching and the
    // rate limiting of the whole set, so the client's own per-kid cache and limiter are off.
    this.maxAgeMs = options.defaultMaxAgeMs ?? 300_000;
    const timeoutMs = options.timeoutMs ?? 5000;
    this.client = jwksRsa({
      jwksUri: options.jwksUri,
      cache: false,
      rateLimit: false,
      timeout: timeoutMs,
      fetcher: async (uri) => {
        const res = await fetch(uri, {
          signal: AbortSignal.timeout(timeoutMs),
          headers: { accept: 'application/jwk-set+json, application/json' },
        });
        if (!res.ok) throw new Error(`JWKS answered ${res.status}`);
        this.maxAgeMs = maxAgeOf(res.headers.get('cache-control')) ?? options.defaultMaxAgeMs ?? 300_000;
        return (await res.json()) as { keys: unknown };
      },
    });
    this.minRefetchIntervalMs = options.minRefetchIntervalMs ?? 30_000;
    this.now = options.now ?? Date.now;
  }

  hasKey(): boolean {
    return this.keys.size > 0;
  }

  /** The cached key; past the set's max-age a refetch starts in the background (the hot path never waits). */
  cachedKey(kid: string | undefined): KeyObject | undefined {
    if (this.now() >= this.freshUntil && !this.inFlight) void this.refresh();
    return kid === undefined ? undefined : this.keys.get(kid);
  }

  /** Keeps the set fresh without traffic: refetches every max-age. */
  start(): void {
    if (this.timer) return;
    const tick = () => {
      void this.refresh().finally(() => {
        if (!this.timer) return;
        this.timer = setTimeout(tick, Math.max(MIN_MAX_AGE_MS, this.freshUntil - this.now()));
        this.timer.unref();
      });
    };
    this.timer = setTimeout(tick, Math.max(MIN_MAX_AGE_MS, this.freshUntil - this.now()));
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Kids of the cached set (for tests and the log). */
  kids(): string[] {
    return [...this.keys.keys()];
  }

  /** Fetches the whole set once at a time; concurrent callers share the fetch. */
  refresh(): Promise<boolean> {
    if (!this.inFlight) {
      this.lastFetchAt = this.now();
      this.inFlight = this.fetchAll().finally(() => {
        this.inFlight = undefined;
      });
    }
    return this.inFlight;
  }

  private async fetchAll(): Promise<boolean> {
    try {
      const signingKeys = await this.client.getSigningKeys();
      const next = new Map<string, KeyObject>();
      for (const k of signingKeys) {
        if (!k.kid) continue;
        if (k.alg && k.alg !== 'RS256') continue;
        const key = createPublicKey(k.getPublicKey());
        if (key.asymmetricKeyType === 'rsa') next.set(k.kid, key);
      }
      // Replaced, not merged: a key that is no longer published stops verifying now.
      this.keys = next;
      this.freshUntil = this.now() + this.maxAgeMs;
      return next.size > 0;
    } catch (err) {
      // The last good set stays (an auth-server restart must not lock every client out); retried after the
      // unknown-kid interval at the latest.
      this.freshUntil = this.now() + Math.min(this.maxAgeMs, this.minRefetchIntervalMs);
      this.options.logger.warn('could not fetch the JWKS', {
        jwksUri: this.options.jwksUri,
        reason: err instanceof Error ? err.message : String(err),
      });
      return false;
    }
  }

  async keyFor(kid: string | undefined): Promise<KeyObject | undefined> {
    if (kid === undefined) return undefined;
    const cached = this.keys.get(kid);
    if (cached) return cached;
    // An unknown kid may be a freshly rotated key: refetch, but not more than once per interval.
    if (this.inFlight) await this.inFlight;
    else if (this.now() - this.lastFetchAt >= this.minRefetchIntervalMs) await this.refresh();
    return this.keys.get(kid);
  }
}
