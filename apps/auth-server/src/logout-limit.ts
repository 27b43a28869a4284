// Logouts per credential and minute. A logout revokes its token by jti, and every tenant-api replica keeps that
// jti in memory, and fetches it again when it starts, until the token would have expired (8 h). Key logins
// are not charged by the throttle (a fleet logs in with one key at once), so a client logging in and out in a
// loop from many addresses grew that list for every replica of every tenant without bound (docs/security.md,
// found 2026-12-06). A fixed window bounds it: at LOGOUTS_PER_MINUTE (60), a credential (the client's password,
// or one of the API keys the operator gave it) holds at most 28,800 live revocations. Counted per credential,
// not per client, so the holder of one key cannot spend the allowance of the dashboard's sign-outs or of
// another key; the route counts only logouts that revoke a live token (logout.ts). The counter is in the
// database, so every replica counts the same minute.
import { AppError, type Db } from '@cr/service-kit';

export const LOGOUT_WINDOW_MS = 60_000;

export interface LogoutLimitOptions {
  db: Db;
  now: () => number;
  /** Logouts per credential (a client's password, or one API key) and minute; 0 turns the limit off. */
  perMinute: number;
}

export class LogoutLimit {
  constructor(private readonly options: LogoutLimitOptions) {}

  /**
   * Counts a logout of a token of `base` issued for `apiKeyId` (undefined: its password); throws 429 with
   * Retry-After (the rest of the minute) once the credential's minute is spent.
   */
  async admit(base: string, apiKeyId: string | undefined): Promise<void> {
    if (this.options.perMinute <= 0) return;
    const now = this.options.now();
    const windowStart = now - (now % LOGOUT_WINDOW_MS);
    const { rows } = await this.options.db.query<{ logouts: number }>(
      `INSERT INTO logout_windows (base, credential, window_start, logouts) VALUES ($1, $2, $3, 1)
       ON CONFLICT (base, credential, window_start) DO UPDATE SET logouts = logout_windows.logouts + 1
       RETURNING logouts`,
      [base, apiKeyId ?? 'password', windowStart],
    );
    if (Number(rows[0]!.logouts) <= this.options.perMinute) return;
    const seconds = Math.max(1, Math.ceil((windowStart + LOGOUT_WINDOW_MS - now) / 1000));
    throw new AppError(
      'too_many_requests',
      `too many logouts with this ${apiKeyId ? 'API key' : 'password'}'s tokens (at most ${this.options.perMinute} a minute); this token is not revoked: retry in ${seconds} s`,
      { headers: { 'Retry-After': String(seconds) } },
    );
  }

  /** Forgets the minutes before the current one. */
  async prune(): Promise<number> {
    const now = this.options.now();
    const r = await this.options.db.query('DELETE FROM logout_windows WHERE window_start < $1', [
      now - (now % LOGOUT_WINDOW_MS),
    ]);
    return r.rowCount;
  }
}
