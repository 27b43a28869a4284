// Brute-force protection without a lockout, with counters in the database so every replica sees the same.
// Two scopes:
//  - (base, IP): one attacker hammering one client. Each failure past a free allowance doubles the wait
//    (capped), and the pair gets 429 with Retry-After while it waits.
//  - base alone: many addresses against one client. Bases are public (they are the subdomains), so a
//    per-base BLOCK would let anyone lock any tenant out of /login. The per-base count is only a signal: past
//    its allowance, pairs that have failed and have no recent success are slowed by a short delay, and the
//    attack is logged (warn, at most once a minute per base) for alerting. A pair with no failures, or with
//    a recent success, is never held back by it.
// Counters do not depend on whether the client exists, so a 429 reveals nothing about it. A success resets
// the pair's counter and remembers the pair; it never resets the per-base counter an attacker is driving.
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
  /** Only `freeFailures` matters for the base: past it the base counts as under attack. */
  perBase?: ThrottlePolicy;
  /** Failures older than this are forgotten; longer than the longest wait, so waits keep growing. */
  windowMs?: number;
  /** Delay of a failing, never-successful pair while its base is under attack. Default 1 s. */
  attackDelayMs?: number;
  /** How long a successful login keeps its (base, IP) pair trusted. Default 30 days. */
  successMemoryMs?: number;
  /** Warned once a minute per base while it is under attack. */
  onAttack?: (event: { base: string; failures: number }) => void;
}

/** What an attempt may do: go ahead, after `delayMs` when its base is under attack and it is not trusted. */
export interface ThrottleDecision {
  delayMs: number;
  baseUnderAttack: boolean;
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
  private readonly attackDelayMs: number;
  private readonly successMemoryMs: number;
  private readonly alerted = new Map<string, number>();

  constructor(private readonly options: ThrottleOptions) {
    this.policies = {
      base_ip: options.perBaseIp ?? DEFAULT_PER_BASE_IP,
      base: options.perBase ?? DEFAULT_PER_BASE,
    };
    this.windowMs = options.windowMs ?? 60 * 60_000;
    this.attackDelayMs = options.attackDelayMs ?? 1000;
    this.successMemoryMs = options.successMemoryMs ?? 30 * 24 * 3600_000;
  }

  /**
   * Throws 429 with Retry-After while the (base, IP) pair waits; otherwise says whether to slow the attempt
   * (base under attack, pair failing and never successful). The per-base count never blocks.
   */
  async check(base: string, ip: string): Promise<ThrottleDecision> {
    const now = this.options.now();
    const { rows } = await this.options.db.query<{
      scope: Scope;
      failures: number;
      last_failure_at: string;
      blocked_until: string;
      last_success_at: string | null;
    }>(
      `SELECT scope, failures, last_failure_at, blocked_until, last_success_at FROM login_failures
       WHERE (scope = 'base_ip' AND key = $1) OR (scope = 'base' AND key = $2)`,
      [keyOf(base, ip), base],
    );
    const pair = rows.find((r) => r.scope === 'base_ip');
    const baseRow = rows.find((r) => r.scope === 'base');
    const until = Number(pair?.blocked_until ?? 0);
    if (until > now) {
      const seconds = Math.max(1, Math.ceil((until - now) / 1000));
      throw new AppError('too_many_requests', `too many failed logins; retry in ${seconds} s`, {
        headers: { 'Retry-After': String(seconds) },
      });
    }
    const inWindow = (r: typeof baseRow) => !!r && Number(r.last_failure_at) >= now - this.windowMs;
    const baseFailures = inWindow(baseRow) ? Number(baseRow!.failures) : 0;
    const baseUnderAttack = baseFailures > this.policies.base.freeFailures;
    if (!baseUnderAttack) return { delayMs: 0, baseUnderAttack };
    this.alert(base, baseFailures, now);
    const pairFailed = inWindow(pair) && Number(pair!.failures) > 0;
    const recentSuccess =
      pair?.last_success_at != null && Number(pair.last_success_at) >= now - this.successMemoryMs;
    return { delayMs: pairFailed && !recentSuccess ? this.attackDelayMs : 0, baseUnderAttack };
  }

  async recordFailure(base: string, ip: string): Promise<void> {
    const now = this.options.now();
    await this.bump('base_ip', keyOf(base, ip), now);
    await this.bump('base', base, now);
  }

  /** Clears the pair's failures and remembers the pair as trusted; the per-base count is left alone. */
  async recordSuccess(base: string, ip: string): Promise<void> {
    await this.options.db.query(
      `INSERT INTO login_failures (scope, key, failures, last_failure_at, blocked_until, last_success_at)
       VALUES ('base_ip', $1, 0, 0, 0, $2)
       ON CONFLICT (scope, key) DO UPDATE SET failures = 0, blocked_until = 0, last_success_at = $2`,
      [keyOf(base, ip), this.options.now()],
    );
  }

  private alert(base: string, failures: number, now: number): void {
    const last = this.alerted.get(base) ?? Number.NEGATIVE_INFINITY;
    if (now - last < 60_000) return;
    this.alerted.set(base, now);
    if (this.alerted.size > 10_000) this.alerted.clear();
    this.options.onAttack?.({ base, failures });
  }

  /** Forgets counters that are neither blocking nor within the window. */
  async prune(): Promise<number> {
    const now = this.options.now();
    const r = await this.options.db.query(
      `DELETE FROM login_failures WHERE last_failure_at < $1 AND blocked_until <= $2
       AND (last_success_at IS NULL OR last_success_at < $3)`,
      [now - this.windowMs, now, now - this.successMemoryMs],
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
