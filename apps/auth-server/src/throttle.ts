// Brute-force throttling with failure counters in the database, so every replica sees the same counts.
// Two scopes: (base, IP) catches one attacker hammering one client; base alone catches many addresses
// against one client. Each failure past a free allowance doubles the wait (capped). Counters do not depend
// on whether the client exists, so a 429 reveals nothing about it. A success clears the (base, IP) counter
// only: a legitimate login from one address must not reset the per-base counter an attacker is driving.
import { AppError, type Db } from '@cr/service-kit';

export interface ThrottlePolicy {
  /** Failures allowed before waits start. */
  freeFailures: number;
  /** First wait, doubled on each further failure. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export interface ThrottleOptions {
  db: Db;
  now: () => number;
  perBaseIp?: ThrottlePolicy;
  perBase?: ThrottlePolicy;
  /** Failures older than this are forgotten; longer than the longest wait, so waits keep growing. */
  windowMs?: number;
}

export const DEFAULT_PER_BASE_IP: ThrottlePolicy = {
  freeFailures: 5,
  baseDelayMs: 1000,
  maxDelayMs: 15 * 60_000,
};
export const DEFAULT_PER_BASE: ThrottlePolicy = {
  freeFailures: 20,
  baseDelayMs: 1000,
  maxDelayMs: 5 * 60_000,
};

type Scope = 'base_ip' | 'base';

export class LoginThrottle {
  private readonly policies: Record<Scope, ThrottlePolicy>;
  private readonly windowMs: number;

  constructor(private readonly options: ThrottleOptions) {
    this.policies = {
      base_ip: options.perBaseIp ?? DEFAULT_PER_BASE_IP,
      base: options.perBase ?? DEFAULT_PER_BASE,
    };
    this.windowMs = options.windowMs ?? 60 * 60_000;
  }

  /** Throws 429 with Retry-After when either counter is still waiting. */
  async assertAllowed(base: string, ip: string): Promise<void> {
    const now = this.options.now();
    const { rows } = await this.options.db.query<{ blocked_until: string }>(
      `SELECT max(blocked_until)::text AS blocked_until FROM login_failures
       WHERE (scope = 'base_ip' AND key = $1) OR (scope = 'base' AND key = $2)`,
      [keyOf(base, ip), base],
    );
    const until = Number(rows[0]?.blocked_until ?? 0);
    if (until > now) {
      const seconds = Math.max(1, Math.ceil((until - now) / 1000));
      throw new AppError('too_many_requests', `too many failed logins; retry in ${seconds} s`, {
        headers: { 'Retry-After': String(seconds) },
      });
    }
  }

  async recordFailure(base: string, ip: string): Promise<void> {
    const now = this.options.now();
    await this.bump('base_ip', keyOf(base, ip), now);
    await this.bump('base', base, now);
  }

  async recordSuccess(base: string, ip: string): Promise<void> {
    await this.options.db.query(`DELETE FROM login_failures WHERE scope = 'base_ip' AND key = $1`, [
      keyOf(base, ip),
    ]);
  }

  /** Forgets counters that are neither blocking nor within the window. */
  async prune(): Promise<number> {
    const now = this.options.now();
    const r = await this.options.db.query(
      'DELETE FROM login_failures WHERE last_failure_at < $1 AND blocked_until <= $2',
      [now - this.windowMs, now],
    );
    return r.rowCount;
  }

  private async bump(scope: Scope, key: string, now: number): Promise<void> {
    const p = this.policies[scope];
    // One statement: the new count restarts at 1 when the last failure is outside the window, and the wait
    // is computed from it in SQL so concurrent failures on several replicas cannot lose an increment.
    await this.options.db.query(
      `INSERT INTO login_failures AS f (scope, key, failures, last_failure_at, blocked_until)
       VALUES ($1, $2, 1, $3, CASE WHEN 1 > $5::int THEN $3 + $6::bigint ELSE 0 END)
       ON CONFLICT (scope, key) DO UPDATE SET
         failures = CASE WHEN f.last_failure_at < $4 THEN 1 ELSE f.failures + 1 END,
         last_failure_at = $3,
         blocked_until = CASE
           WHEN (CASE WHEN f.last_failure_at < $4 THEN 1 ELSE f.failures + 1 END) > $5::int
           THEN $3 + LEAST($7::bigint, $6::bigint * power(2, LEAST(30,
             (CASE WHEN f.last_failure_at < $4 THEN 1 ELSE f.failures + 1 END) - $5::int - 1))::bigint)
           ELSE f.blocked_until END`,
      [scope, key, now, now - this.windowMs, p.freeFailures, p.baseDelayMs, p.maxDelayMs],
    );
  }
}

function keyOf(base: string, ip: string): string {
  return `${base}\n${ip}`;
}
