// Revoked token ids. An entry lives exactly as long as the token it revokes; the list the tenant-api polls
// holds only unexpired entries revoked since the poller's last `asOf`, so a poll is one indexed range scan.
import { TOKEN_LIFETIME_SECONDS, type RevocationList } from '@cr/contracts';
import type { Db } from '@cr/service-kit';

export interface RevocationStoreOptions {
  db: Db;
  now: () => number;
}

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

  async isRevoked(jti: string): Promise<boolean> {
    const nowSec = Math.floor(this.options.now() / 1000);
    const { rows } = await this.options.db.query('SELECT 1 FROM revoked_tokens WHERE jti = $1 AND exp > $2', [
      jti,
      nowSec,
    ]);
    return rows.length > 0;
  }

  /** Unexpired revocations made at or after `sinceSec` (Unix seconds; 0 = all). */
  async list(sinceSec: number): Promise<RevocationList> {
    const now = this.options.now();
    const nowSec = Math.floor(now / 1000);
    const { rows } = await this.options.db.query<{ jti: string; exp: string }>(
      'SELECT jti, exp FROM revoked_tokens WHERE revoked_at >= $1 AND exp > $2 ORDER BY revoked_at, jti',
      [sinceSec * 1000, nowSec],
    );
    return { revoked: rows.map((r) => ({ jti: r.jti, exp: Number(r.exp) })), asOf: nowSec };
  }

  async pruneExpired(): Promise<number> {
    const nowSec = Math.floor(this.options.now() / 1000);
    const r = await this.options.db.query('DELETE FROM revoked_tokens WHERE exp <= $1', [nowSec]);
    return r.rowCount;
  }
}
