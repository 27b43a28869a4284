// Where token-verification keys come from: the auth-server's JWKS (through one long-lived jwks-rsa client,
// the whole set cached, an unknown kid refetching at most once per interval so random kids cannot force a
// fetch storm) or a local PEM file. Keys are kept as KeyObjects so a verification never re-parses a key.
import { type KeyObject, createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Logger } from '@cr/service-kit';
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

/** A single PEM public key from AUTH_PUBLIC_KEY_PATH; tokens are accepted whatever their kid. */
export class PemKeySource implements KeySource {
  private readonly key: KeyObject;

  constructor(pem: string) {
    const key = createPublicKey(pem);
    if (key.asymmetricKeyType !== 'rsa') throw new Error('AUTH_PUBLIC_KEY_PATH: the key is not an RSA key');
    this.key = key;
  }

  static fromFile(path: string): PemKeySource {
    return new PemKeySource(readFileSync(path, 'utf8'));
  }

  keyFor(): KeyObject {
    return this.key;
  }

  cachedKey(): KeyObject {
    return this.key;
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
  timeoutMs?: number;
  now?: () => number;
}

export class JwksKeySource implements KeySource {
  private readonly client: jwksRsa.JwksClient;
  private keys = new Map<string, KeyObject>();
  private lastFetchAt = Number.NEGATIVE_INFINITY;
  private inFlight: Promise<boolean> | undefined;
  private readonly minRefetchIntervalMs: number;
  private readonly now: () => number;

  constructor(private readonly options: JwksKeySourceOptions) {
    // jwks-rsa fetches and converts the set; the caching and rate limiting of the whole set is ours, so
    // the client's own per-kid cache and limiter are off.
    this.client = jwksRsa({
      jwksUri: options.jwksUri,
      cache: false,
      rateLimit: false,
      timeout: options.timeoutMs ?? 5000,
    });
    this.minRefetchIntervalMs = options.minRefetchIntervalMs ?? 30_000;
    this.now = options.now ?? Date.now;
  }

  hasKey(): boolean {
    return this.keys.size > 0;
  }

  cachedKey(kid: string | undefined): KeyObject | undefined {
    return kid === undefined ? undefined : this.keys.get(kid);
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
      this.keys = next;
      return next.size > 0;
    } catch (err) {
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
