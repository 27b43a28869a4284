// RS256 signing keys: generated here, stored in the database with the private half sealed by the secret
// box, and published as a JWKS. Rotation follows "publish before use, keep until the last token expired":
//  - there is always one published `next` key (activates_at NULL) that does not sign yet;
//  - rotating activates it (no earlier than one JWKS cache age after it was published, so every verifier
//    has had the chance to fetch it) and creates a new `next` key;
//  - a key stops signing when its successor activates, and stays published until that moment plus the
//    token lifetime plus the JWKS cache age, after which no token it signed can still be valid anywhere;
//  - a leaked key is retired at once (`retire`): out of the JWKS, never signs or verifies again, its private
//    half destroyed; verifiers drop it on their next JWKS refresh (its Cache-Control max-age).
import { createPublicKey, generateKeyPair, type KeyObject, createPrivateKey } from 'node:crypto';
import { promisify } from 'node:util';
import { TOKEN_LIFETIME_SECONDS, type JwkSet, type PublicJwk, type SigningKeyView } from '@cr/contracts';
import { AppError, type Db, type Queryable, type SecretBox, thumbprintOf } from '@cr/service-kit';

const generateKeyPairAsync = promisify(generateKeyPair);

export interface KeyStoreOptions {
  db: Db;
  secretBox: SecretBox;
  now: () => number;
  /** JWKS Cache-Control max-age, seconds. */
  jwksMaxAgeSeconds: number;
}

interface KeyRow {
  kid: string;
  n: string;
  e: string;
  private_sealed: string;
  created_at: string;
  activates_at: string | null;
  retired_at: string | null;
}

export interface SigningKey {
  kid: string;
  n: string;
  e: string;
  createdAt: number;
  /** null for the published `next` key. */
  activatesAt: number | null;
  /** Set when an admin retired the key at once: it is gone from every list but the activation history. */
  retiredAt: number | null;
  publicKey: KeyObject;
  /** Opened lazily: only the keys that sign (current and next) are decrypted. */
  privateKey(): KeyObject;
}

// The kid is the key's RFC 7638 thumbprint (service-kit, shared with the tenant-api's PEM key file).
export { thumbprintOf };

function sealContext(kid: string): string {
  return `auth-signing-key:${kid}`;
}

/**
 * How old a replica's view of the keys may be when it signs a token or serves the JWKS. A key retired through
 * another replica stops signing here, and leaves this replica's JWKS, within this (instead of the periodic
 * KEY_REFRESH_SECONDS), at the cost of re-reading a few rows at most this often while requests come.
 */
export const KEY_VIEW_MAX_AGE_MS = 2000;

export class KeyStore {
  private keys: SigningKey[] = [];
  private jwksCache: { body: Buffer; validUntil: number } | undefined;
  private readonly privateCache = new Map<string, KeyObject>();
  private loadedAt = Number.NEGATIVE_INFINITY;
  private reloading: Promise<void> | undefined;

  constructor(private readonly options: KeyStoreOptions) {}

  /** Milliseconds a key stays published after it stopped signing. */
  get retentionMs(): number {
    return (TOKEN_LIFETIME_SECONDS + this.options.jwksMaxAgeSeconds) * 1000;
  }

  /** Loads keys from the database; on a fresh database creates the first signing key and its successor. */
  async init(): Promise<void> {
    await this.options.db.transaction(async (tx) => {
      // One replica creates the first keys; the others wait on the lock and then see them.
      await tx.query('SELECT pg_advisory_xact_lock($1)', [7_310_507]);
      const { rows } = await tx.query<{ count: number }>('SELECT count(*)::int AS count FROM signing_keys');
      if ((rows[0]?.count ?? 0) === 0) {
        const now = this.options.now();
        await this.insertKey(tx, now, now);
        await this.insertKey(tx, now, null);
      }
    });
    await this.refresh();
  }

  /** Re-reads the keys (another replica may have rotated) and drops the cached JWKS. */
  async refresh(): Promise<void> {
    const startedAt = this.options.now();
    const { rows } = await this.options.db.query<KeyRow>(
      'SELECT kid, n, e, private_sealed, created_at, activates_at, retired_at FROM signing_keys ORDER BY created_at, kid',
    );
    this.keys = rows.map((r) => this.toKey(r));
    this.jwksCache = undefined;
    this.loadedAt = startedAt;
  }

  /**
   * Re-reads the keys when this view is older than KEY_VIEW_MAX_AGE_MS; concurrent callers share one read.
   * Called before signing and before serving the JWKS.
   */
  async ensureFresh(): Promise<void> {
    if (this.options.now() - this.loadedAt < KEY_VIEW_MAX_AGE_MS) return;
    this.reloading ??= this.refresh().finally(() => {
      this.reloading = undefined;
    });
    await this.reloading;
  }

  /**
   * Activates the `next` key and creates a new `next`. The activation is no earlier than one JWKS cache
   * age after the key was published. Returns the kids involved and when `activated` signs (the new `next`
   * key has no activation time until a later rotation).
   */
  async rotate(): Promise<{ activated: string; activatesAt: number; next: string }> {
    const result = await this.options.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [7_310_507]);
      const now = this.options.now();
      const { rows } = await tx.query<{ kid: string; created_at: string }>(
        'SELECT kid, created_at FROM signing_keys WHERE activates_at IS NULL AND retired_at IS NULL ORDER BY created_at LIMIT 1',
      );
      const latest = await tx.query<{ max: string | null }>(
        'SELECT max(activates_at)::text AS max FROM signing_keys WHERE activates_at IS NOT NULL',
      );
      const pending = rows[0];
      let activated: string;
      let activatesAt: number;
      const floor = Math.max(now, Number(latest.rows[0]?.max ?? 0) + 1);
      if (pending) {
        activatesAt = Math.max(floor, Number(pending.created_at) + this.options.jwksMaxAgeSeconds * 1000);
        await tx.query('UPDATE signing_keys SET activates_at = $2 WHERE kid = $1', [
          pending.kid,
          activatesAt,
        ]);
        activated = pending.kid;
      } else {
        // No published successor (e.g. removed by hand): publish one and let it sign after a cache age.
        activatesAt = Math.max(floor, now + this.options.jwksMaxAgeSeconds * 1000);
        activated = await this.insertKey(tx, now, activatesAt);
      }
      const next = await this.insertKey(tx, now, null);
      await this.pruneRetired(tx, now);
      return { activated, activatesAt, next };
    });
    await this.refresh();
    return result;
  }

  /**
   * Withdraws `kid` now (a leaked key). When it is the current key, the published next key signs from now on
   * (verifiers have had it since it was published) and a new next key is published; when it is the next
   * key, a new next key replaces it. 404 for an unknown or already retired key.
   */
  async retire(kid: string): Promise<{ retired: string; current: string; next: string }> {
    const result = await this.options.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [7_310_507]);
      const now = this.options.now();
      const found = await tx.query<{ activates_at: string | null }>(
        'SELECT activates_at FROM signing_keys WHERE kid = $1 AND retired_at IS NULL',
        [kid],
      );
      const row = found.rows[0];
      if (!row) throw new AppError('not_found', `kid: no published signing key "${kid}"`);
      const latestActive = async () =>
        (
          await tx.query<{ kid: string }>(
            `SELECT kid FROM signing_keys WHERE retired_at IS NULL AND activates_at IS NOT NULL
             AND activates_at <= $1 ORDER BY activates_at DESC LIMIT 1`,
            [now],
          )
        ).rows[0]?.kid;
      const wasCurrent = (await latestActive()) === kid;
      // A key retired before its scheduled activation never signed: its activates_at is no history, and left
      // in place it would read as the time the key actually signing stopped (retiredAt, pruneRetired), which
      // would then leave the JWKS while its tokens live.
      await tx.query(
        `UPDATE signing_keys SET retired_at = $2, private_sealed = '',
           activates_at = CASE WHEN activates_at > $2 THEN NULL ELSE activates_at END
         WHERE kid = $1`,
        [kid, now],
      );
      const live = await tx.query<{ kid: string; activates_at: string | null }>(
        'SELECT kid, activates_at FROM signing_keys WHERE retired_at IS NULL ORDER BY created_at, kid',
      );
      let current = wasCurrent ? undefined : await latestActive();
      // Keys not signing yet: one scheduled by a rotation first, then the published next key.
      const waiting = live.rows
        .filter((r) => r.activates_at === null || Number(r.activates_at) > now)
        .sort(
          (a, b) =>
            Number(a.activates_at ?? Number.MAX_SAFE_INTEGER) -
            Number(b.activates_at ?? Number.MAX_SAFE_INTEGER),
        );
      if (current === undefined) {
        // The retired key was signing: the first waiting key takes over now (verifiers hold it already),
        // or a fresh key when none waits.
        const successor = waiting.shift();
        if (successor) {
          await tx.query('UPDATE signing_keys SET activates_at = $2 WHERE kid = $1', [successor.kid, now]);
          current = successor.kid;
        } else current = await this.insertKey(tx, now, now);
      }
      let next = waiting.find((r) => r.activates_at === null)?.kid;
      next ??= await this.insertKey(tx, now, null);
      return { retired: kid, current: current as string, next };
    });
    this.privateCache.delete(kid);
    await this.refresh();
    return result;
  }

  /** The key that signs at `at`: the latest activated one that was not retired. */
  currentKey(at = this.options.now()): SigningKey | undefined {
    let best: SigningKey | undefined;
    for (const k of this.keys) {
      if (k.retiredAt !== null) continue;
      if (k.activatesAt !== null && k.activatesAt <= at && (!best || k.activatesAt > best.activatesAt!))
        best = k;
    }
    return best;
  }

  /** Public key by kid, among the published keys (a retired key past its retention does not verify). */
  publicKey(kid: string, at = this.options.now()): KeyObject | undefined {
    return this.publishedKeys(at).find((k) => k.kid === kid)?.publicKey;
  }

  /** Keys in the JWKS at `at`, with their status. */
  publishedKeys(at = this.options.now()): Array<SigningKey & { status: SigningKeyView['status'] }> {
    const current = this.currentKey(at);
    const out: Array<SigningKey & { status: SigningKeyView['status'] }> = [];
    for (const k of this.keys) {
      if (k.retiredAt !== null) continue;
      if (k.activatesAt === null || k.activatesAt > at) out.push({ ...k, status: 'next' });
      else if (k === current) out.push({ ...k, status: 'current' });
      else {
        const retiredAt = this.retiredAt(k);
        if (retiredAt !== undefined && at < retiredAt + this.retentionMs)
          out.push({ ...k, status: 'previous' });
      }
    }
    return out;
  }

  /** The JWKS body, cached until the next moment the published set changes by the clock. */
  jwksBody(at = this.options.now()): Buffer {
    const cached = this.jwksCache;
    if (cached && at < cached.validUntil) return cached.body;
    const jwks: JwkSet = {
      keys: this.publishedKeys(at).map(
        (k): PublicJwk => ({ kty: 'RSA', n: k.n, e: k.e, kid: k.kid, alg: 'RS256', use: 'sig' }),
      ),
    };
    const body = Buffer.from(JSON.stringify(jwks));
    this.jwksCache = { body, validUntil: this.nextChangeAfter(at) };
    return body;
  }

  private nextChangeAfter(at: number): number {
    let next = Number.POSITIVE_INFINITY;
    for (const k of this.keys) {
      if (k.activatesAt !== null && k.activatesAt > at) next = Math.min(next, k.activatesAt);
      const retiredAt = this.retiredAt(k);
      if (retiredAt !== undefined) {
        if (retiredAt > at) next = Math.min(next, retiredAt);
        const gone = retiredAt + this.retentionMs;
        if (gone > at) next = Math.min(next, gone);
      }
    }
    return next;
  }

  /** When a key stopped signing: when the first key activated after it did. */
  private retiredAt(key: SigningKey): number | undefined {
    if (key.activatesAt === null) return undefined;
    let successor: number | undefined;
    for (const k of this.keys) {
      if (k.activatesAt !== null && k.activatesAt > key.activatesAt) {
        if (successor === undefined || k.activatesAt < successor) successor = k.activatesAt;
      }
    }
    return successor;
  }

  private async pruneRetired(tx: Queryable, now: number): Promise<void> {
    // A key whose successor activated longer ago than the retention can never verify a live token again.
    await tx.query(
      `DELETE FROM signing_keys k WHERE k.activates_at IS NOT NULL AND EXISTS (
         SELECT 1 FROM signing_keys s WHERE s.activates_at > k.activates_at AND s.activates_at + $2 <= $1)`,
      [now, this.retentionMs],
    );
  }

  private async insertKey(tx: Queryable, now: number, activatesAt: number | null): Promise<string> {
    const { publicKey, privateKey } = await generateKeyPairAsync('rsa', { modulusLength: 2048 });
    const jwk = publicKey.export({ format: 'jwk' }) as { n: string; e: string };
    const kid = thumbprintOf(jwk);
    const pkcs8 = privateKey.export({ format: 'der', type: 'pkcs8' });
    const sealed = this.options.secretBox.seal(pkcs8, sealContext(kid));
    await tx.query(
      'INSERT INTO signing_keys (kid, n, e, private_sealed, created_at, activates_at) VALUES ($1, $2, $3, $4, $5, $6)',
      [kid, jwk.n, jwk.e, sealed, now, activatesAt],
    );
    return kid;
  }

  private toKey(row: KeyRow): SigningKey {
    const publicKey = createPublicKey({ key: { kty: 'RSA', n: row.n, e: row.e }, format: 'jwk' });
    return {
      kid: row.kid,
      n: row.n,
      e: row.e,
      createdAt: Number(row.created_at),
      activatesAt: row.activates_at === null ? null : Number(row.activates_at),
      retiredAt: row.retired_at === null ? null : Number(row.retired_at),
      publicKey,
      privateKey: () => {
        let key = this.privateCache.get(row.kid);
        if (!key) {
          const der = this.options.secretBox.open(row.private_sealed, sealContext(row.kid));
          key = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
          this.privateCache.set(row.kid, key);
        }
        return key;
      },
    };
  }
}

/** SPKI PEM of a public key, for verifiers that keep a local copy. */
export function toPem(key: KeyObject): string {
  return key.export({ format: 'pem', type: 'spki' }).toString();
}
