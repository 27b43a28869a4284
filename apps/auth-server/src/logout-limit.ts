// Logouts per client and minute. A logout revokes its token by jti, and every tenant-api replica keeps that
// jti in memory, and fetches it again when it starts, until the token would have expired (8 h). Key logins
// are not charged by the throttle (a fleet logs in with one key at once), so a client logging in and out in a
// loop from many addresses grew that list for every replica of every tenant without bound (docs/security.md,
// found 2026-12-06). A fixed window per client bounds it: at LOGOUTS_PER_MINUTE (60), a client can hold at
// most 28,800 live revocations. The counter is in the database, so every replica counts the same minute.
import { AppError, type Db } from '@cr/service-kit';

export const LOGOUT_WINDOW_MS = 60_000;

export interface LogoutLimitOptions {
  db: Db;
  now: () => number;
  /** Logouts per client (base) and minute; 0 turns the limit off. */
  perMinute: number;
}

export class LogoutLimit {
  constructor(private readonly options: LogoutLimitOptions) {}

  /** Counts a logout of `base`; throws 429 with Retry-After (the rest of the minute) once it is over. */
  async admit(base: string): Promise<void> {
    if (this.options.perMinute <= 0) return;
    const now = this.options.now();
    const windowStart = now - (now % LOGOUT_WINDOW_MS);
    const { rows } = await this.options.db.query<{ logouts: number }>(
      `INSERT INTO logout_windows (base, window_start, logouts) VALUES ($1, $2, 1)
       ON CONFLICT (base, window_start) DO UPDATE SET logouts = logout_windows.logouts + 1
       RETURNING logouts`,
      [base, windowStart],
    );
    if (Number(rows[0]!.logouts) <= this.options.perMinute) return;
    const seconds = Math.max(1, Math.ceil((windowStart + LOGOUT_WINDOW_MS - now) / 1000));
    throw new AppError(
      'too_many_requests',
      `too many logouts for this client (at most ${this.options.perMinute} a minute); this token is not revoked: retry in ${seconds} s`,
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
