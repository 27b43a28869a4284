// Revocations the tenant-api polls. Two kinds:
//  - a token id (logout, admin), kept exactly as long as the token it revokes;
//  - a subject with a `notBefore` (client disabled, deleted or its password changed): every token of that
//    client with iat < notBefore is revoked; kept until the last such token has expired.
// The list pages by the server's own cursor (`asOf`), taken a few seconds back so a revocation whose
// transaction is still committing while a poll runs is returned by the next poll instead of being skipped.
import { TOKEN_LIFETIME_SECONDS, type RevocationList } from '@cr/contracts';
import type { Db, Queryable } from '@cr/service-kit';

export interface RevocationStoreOptions {
  db: Db;
  now: () => number;
}

/** How far back of the server's clock `asOf` is: longer than any revocation's transaction. */
export const REVOCATION_CURSOR_MARGIN_SECONDS = 5;

export class RevocationStore {
  constructor(private readonly options: RevocationStoreOptions) {}

  /** Revokes a jti until `exp` (Unix seconds); unknown exp → the longest a token can live from now. */
  async revoke(jti: string, exp?: number): Promise<{ jti: string; exp: number }> {
    const now = this.options.now();
    const until = exp ?? Math.floor(now / 1000) + TOKEN_LIFETIME_SECONDS;
    await this.options.db.query(
      `INSERT INTO revoked_tokens (jti, exp, revoked_at) VALUES ($1, $2, $3)
       ON CONFLICT (jti) DO UPDATE SET exp = GREATEST(revoked_tokens.exp, EXCLUDED.exp)`,
      [jti, until, now],
    );
    return { jti, exp: until };
  }

  /**
   * Revokes every token of `subject` issued up to now: notBefore is the next second, so a token issued in
   * this very second (iat has second precision) is revoked too; the login path issues later tokens with
   * iat ≥ notBefore (`notBeforeOf`), so a new login right after a password change is not caught by it.
   */
  async revokeSubject(
    subject: string,
    tx: Queryable = this.options.db,
  ): Promise<{ sub: string; notBefore: number }> {
    const now = this.options.now();
    const notBefore = Math.floor(now / 1000) + 1;
    await tx.query(
      `INSERT INTO revoked_subjects (subject, not_before, revoked_at) VALUES ($1, $2, $3)
       ON CONFLICT (subject) DO UPDATE SET not_before = GREATEST(revoked_subjects.not_before, EXCLUDED.not_before),
         revoked_at = EXCLUDED.revoked_at`,
      [subject, notBefore, now],
    );
    return { sub: subject, notBefore };
  }

  /** The subject's notBefore (Unix seconds) while it matters, else undefined. */
  async notBeforeOf(subject: string): Promise<number | undefined> {
    const { rows } = await this.options.db.query<{ not_before: string }>(
      'SELECT not_before FROM revoked_subjects WHERE subject = $1',
      [subject],
    );
    return rows[0] ? Number(rows[0].not_before) : undefined;
  }

  /**
   * Whether a token is revoked already: by its jti, or with every token of its client or of its API key
   * (`apikey:<id>`) issued before a notBefore, as the tenant-api reads the list.
   */
  async covers(claims: {
    jti: string;
    sub: string;
    iat: number;
    akid?: string | undefined;
  }): Promise<boolean> {
    const subjects = claims.akid ? [claims.sub, `apikey:${claims.akid}`] : [claims.sub];
    // One statement: a logout asks this before it is counted.
    const { rows } = await this.options.db.query<{ covered: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM revoked_tokens WHERE jti = $1 AND exp > $2)
           OR EXISTS (SELECT 1 FROM revoked_subjects WHERE subject = ANY($3::text[]) AND not_before > $4) AS covered`,
      [claims.jti, Math.floor(this.options.now() / 1000), subjects, claims.iat],
    );
    return rows[0]!.covered === true;
  }

  async isRevoked(jti: string): Promise<boolean> {
    const nowSec = Math.floor(this.options.now() / 1000);
    const { rows } = await this.options.db.query('SELECT 1 FROM revoked_tokens WHERE jti = $1 AND exp > $2', [
      jti,
      nowSec,
    ]);
    return rows.length > 0;
  }

  /** Unexpired revocations made at or after `sinceSec` (Unix seconds; 0 = all), and the next cursor. */
  async list(sinceSec: number): Promise<RevocationList> {
    const now = this.options.now();
    const nowSec = Math.floor(now / 1000);
    const asOf = Math.max(0, nowSec - REVOCATION_CURSOR_MARGIN_SECONDS);
    const tokens = await this.options.db.query<{ jti: string; exp: string }>(
      'SELECT jti, exp FROM revoked_tokens WHERE revoked_at >= $1 AND exp > $2 ORDER BY revoked_at, jti',
      [sinceSec * 1000, nowSec],
    );
    const subjects = await this.options.db.query<{ subject: string; not_before: string }>(
      `SELECT subject, not_before FROM revoked_subjects WHERE revoked_at >= $1 AND not_before + $2 > $3
       ORDER BY revoked_at, subject`,
      [sinceSec * 1000, TOKEN_LIFETIME_SECONDS, nowSec],
    );
    return {
      revoked: tokens.rows.map((r) => ({ jti: r.jti, exp: Number(r.exp) })),
      revokedSubjects: subjects.rows.map((r) => ({ sub: r.subject, notBefore: Number(r.not_before) })),
      asOf,
    };
  }

  /** Forgets revocations no live token can match any more. */
  async pruneExpired(): Promise<number> {
    const nowSec = Math.floor(this.options.now() / 1000);
    const a = await this.options.db.query('DELETE FROM revoked_tokens WHERE exp <= $1', [nowSec]);
    const b = await this.options.db.query('DELETE FROM revoked_subjects WHERE not_before + $1 <= $2', [
      TOKEN_LIFETIME_SECONDS,
      nowSec,
    ]);
    return a.rowCount + b.rowCount;
  }
}
