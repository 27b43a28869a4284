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
// A password attempt is counted against its pair BEFORE the password is checked, in the statement that
// decides whether it may go on (`admit`): counted only after argon2, a burst of concurrent guesses all read
// "not blocked" and all reached argon2. An attempt that gets no verdict (the hash queue is full) is given
// back (`refund`), so a flood elsewhere cannot push a real client into the waits.
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

interface PairState {
  /** Unix ms until which the pair waits (0: it does not). */
  blockedUntil: number;
  /** Failed within the window before this attempt. */
  failedBefore: boolean;
  lastSuccessAt: number | null;
  /** The base's failures within the window, read in the pair's statement (one round trip per attempt). */
  baseFailures: number;
}

/** The failures of base `key` since `since` (0 past the window or without a row), as a scalar subquery. */
const baseFailuresSince = (key: string, since: string) =>
  `(SELECT CASE WHEN b.last_failure_at >= ${since} THEN b.failures ELSE 0 END
    FROM login_failures b WHERE b.scope = 'base' AND b.key = ${key})`;

/**
 * Counts one failure of ($1 scope, $2 key) at $3 (now), in one statement: the count restarts at 1 when the
 * last failure is older than $4 (now - window), and past $5 free failures the wait ($6 doubled per further
 * failure, capped at $7) is computed from it in SQL, so concurrent failures on several replicas cannot lose
 * an increment.
 */
const COUNT_FAILURE = `INSERT INTO login_failures AS f (scope, key, failures, last_failure_at, blocked_until)
       VALUES ($1, $2, 1, $3, CASE WHEN 1 > $5::int THEN $3 + $6::bigint ELSE 0 END)
       ON CONFLICT (scope, key) DO UPDATE SET
         failures = CASE WHEN f.last_failure_at < $4 THEN 1 ELSE f.failures + 1 END,
         last_failure_at = $3,
         blocked_until = CASE
           WHEN (CASE WHEN f.last_failure_at < $4 THEN 1 ELSE f.failures + 1 END) > $5::int
           THEN $3 + LEAST($7::bigint, $6::bigint * power(2, LEAST(30,
             (CASE WHEN f.last_failure_at < $4 THEN 1 ELSE f.failures + 1 END) - $5::int - 1))::bigint)
           ELSE f.blocked_until END`;

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
   * (base under attack, pair failing and never successful). The per-base count never blocks. With `charge`
   * (a password attempt), the attempt is counted as a failure of the pair in the same statement that admits
   * it; `recordSuccess` clears it, `refund` gives it back when no verdict came.
   */
  async admit(base: string, ip: string, { charge }: { charge: boolean }): Promise<ThrottleDecision> {
    const now = this.options.now();
    const pair = charge ? await this.chargePair(base, ip, now) : await this.readPair(base, ip, now);
    if (pair.blockedUntil > now) {
      const seconds = Math.max(1, Math.ceil((pair.blockedUntil - now) / 1000));
      throw new AppError('too_many_requests', `too many failed logins; retry in ${seconds} s`, {
        headers: { 'Retry-After': String(seconds) },
      });
    }
    const baseUnderAttack = pair.baseFailures > this.policies.base.freeFailures;
    if (!baseUnderAttack) return { delayMs: 0, baseUnderAttack };
    this.alert(base, pair.baseFailures, now);
    const recentSuccess = pair.lastSuccessAt !== null && pair.lastSuccessAt >= now - this.successMemoryMs;
    return { delayMs: pair.failedBefore && !recentSuccess ? this.attackDelayMs : 0, baseUnderAttack };
  }

  /**
   * Counts the attempt against the pair unless the pair is waiting, atomically: of N concurrent attempts,
   * only those the sequential rules would let through are counted and admitted. Refused: `blockedUntil` is
   * the wait (read in the same statement; at least 1 s is announced if a concurrent change hides it).
   */
  private async chargePair(base: string, ip: string, now: number): Promise<PairState> {
    const p = this.policies.base_ip;
    const { rows } = await this.options.db.query<{
      admitted: boolean;
      failures: number;
      blocked_until: string;
      last_success_at: string | null;
      base_failures: number | null;
    }>(
      `WITH charged AS (
         ${COUNT_FAILURE} WHERE f.blocked_until <= $3
         RETURNING failures, last_success_at
       ), pair AS (
         SELECT true AS admitted, failures, '0' AS blocked_until, last_success_at FROM charged
         UNION ALL
         SELECT false, failures, blocked_until::text, last_success_at FROM login_failures
         WHERE scope = $1 AND key = $2 AND NOT EXISTS (SELECT 1 FROM charged)
       )
       SELECT pair.*, ${baseFailuresSince('$8', '$4')} AS base_failures FROM pair`,
      [
        'base_ip',
        keyOf(base, ip),
        now,
        now - this.windowMs,
        p.freeFailures,
        p.baseDelayMs,
        p.maxDelayMs,
        base,
      ],
    );
    const row = rows.find((r) => r.admitted);
    if (!row)
      return {
        blockedUntil: Math.max(now + 1, Number(rows[0]?.blocked_until ?? 0)),
        failedBefore: true,
        lastSuccessAt: null,
        baseFailures: 0,
      };
    return {
      blockedUntil: 0,
      // This attempt is already counted: the pair had failed before it when the count is past 1.
      failedBefore: Number(row.failures) > 1,
      lastSuccessAt: row.last_success_at === null ? null : Number(row.last_success_at),
      baseFailures: Number(row.base_failures ?? 0),
    };
  }

  private async readPair(base: string, ip: string, now: number): Promise<PairState> {
    // One row whether or not the pair has one (its columns are then null).
    const { rows } = await this.options.db.query<{
      failures: number | null;
      last_failure_at: string | null;
      blocked_until: string | null;
      last_success_at: string | null;
      base_failures: number | null;
    }>(
      `SELECT p.failures, p.last_failure_at, p.blocked_until, p.last_success_at,
              ${baseFailuresSince('$3', '$2')} AS base_failures
       FROM (SELECT 1) AS one LEFT JOIN login_failures p ON p.scope = 'base_ip' AND p.key = $1`,
      [keyOf(base, ip), now - this.windowMs, base],
    );
    const r = rows[0];
    return {
      blockedUntil: Number(r?.blocked_until ?? 0),
      failedBefore:
        r?.last_failure_at != null &&
        Number(r.last_failure_at) >= now - this.windowMs &&
        Number(r.failures) > 0,
      lastSuccessAt: r?.last_success_at == null ? null : Number(r.last_success_at),
      baseFailures: Number(r?.base_failures ?? 0),
    };
  }

  /** A failure: counted against the base, and against the pair unless `admit` charged it already. */
  async recordFailure(base: string, ip: string, { charged }: { charged: boolean }): Promise<void> {
    const now = this.options.now();
    if (!charged) await this.bump('base_ip', keyOf(base, ip), now);
    await this.bump('base', base, now);
  }

  /**
   * Gives back a charged attempt that got no verdict (503: the hash queue was full or its thread died); the
   * wait it started goes too when the count is back within the free failures.
   */
  async refund(base: string, ip: string): Promise<void> {
    await this.options.db.query(
      `UPDATE login_failures SET failures = GREATEST(failures - 1, 0),
         blocked_until = CASE WHEN failures - 1 <= $2::int THEN 0 ELSE blocked_until END
       WHERE scope = 'base_ip' AND key = $1`,
      [keyOf(base, ip), this.policies.base_ip.freeFailures],
    );
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
    await this.options.db.query(COUNT_FAILURE, [
      scope,
      key,
      now,
      now - this.windowMs,
      p.freeFailures,
      p.baseDelayMs,
      p.maxDelayMs,
    ]);
  }
}

function keyOf(base: string, ip: string): string {
  return `${base}\n${ip}`;
}
