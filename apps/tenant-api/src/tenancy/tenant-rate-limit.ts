// A per-tenant sliding window for work that costs the whole service (Hacienda's patience, certificate
// threads): each tenant gets its own window, and beyond it a 429 with Retry-After names what was limited.
// The window lives in the database (tenant_rate_windows and its calls in tenant_rate_hits, ADRs 0037, 0058):
// the tenant-api runs as several processes (WEB_CONCURRENCY) and replicas, and a window per process would give
// a tenant that many times its limit. One statement takes a slot: the row's lock orders concurrent callers,
// so at most `limit` calls pass in any `windowSeconds`, whichever process serves them.
import type { Acquired } from '@cr/hacienda-client';
import { AppError, type Db } from '@cr/service-kit';
import { ONE_STATEMENT, withTenant } from '../db/with-tenant';

export interface TenantLimitOptions {
  limit: number;
  windowSeconds: number;
  /** Milliseconds since the epoch (the windows are compared across processes: the wall clock). */
  clock?: () => number;
}

export interface TenantLimiter {
  /** Names the window in the database; one per kind of limited work. */
  readonly name: string;
  /** Takes a slot of the tenant now if one is free, else says how long until one frees up. */
  tryAcquire(db: Db, tenantId: string): Promise<Acquired>;
  /**
   * What tryAcquire would answer now, taking nothing: a caller that must do costly work before it may take
   * the slot asks first and, past the limit, skips that work. Another caller may take the slot in between.
   */
  peek(db: Db, tenantId: string): Promise<Acquired>;
}

// tenant_rate_take (migration 0098, ADR 0058) locks the window's row, so calls from every process take turns,
// deletes the calls that have left the window, and records this one when fewer than the limit remain. Its
// cost does not grow with the calls inside the window.
const TAKE_SLOT = 'SELECT granted, oldest FROM tenant_rate_take($1, $2, $3::bigint, $4::integer, $5::bigint)';

// The calls still inside the window, and the oldest of them (the next to leave it), as tenant_rate_take counts
// them: the window's count less the calls that have left it since the last slot was taken.
const PEEK_SLOT = `SELECT coalesce((SELECT w.live FROM tenant_rate_windows w WHERE w.tenant_id = $1 AND w.name = $2), 0)
         - (SELECT count(*) FROM tenant_rate_hits h
            WHERE h.tenant_id = $1 AND h.name = $2 AND h.at <= $3::bigint - $4::bigint) AS hits,
       (SELECT h.at FROM tenant_rate_hits h
        WHERE h.tenant_id = $1 AND h.name = $2 AND h.at > $3::bigint - $4::bigint ORDER BY h.at LIMIT 1) AS oldest`;

/** A refusal: the wait until the oldest call inside the window leaves it (at least 1 ms). */
function refused(oldest: string | null, windowMs: number, now: number): Acquired {
  return { ok: false, retryAfterMs: Math.max(1, Number(oldest) + windowMs - now) };
}

export function createTenantLimiter(name: string, options: TenantLimitOptions): TenantLimiter {
  if (!Number.isInteger(options.limit) || options.limit < 1) throw new RangeError('limit must be ≥ 1');
  const windowMs = options.windowSeconds * 1000;
  const clock = options.clock ?? Date.now;
  return {
    name,
    async tryAcquire(db, tenantId) {
      const now = Math.floor(clock());
      // The slot taken is the whole transaction (ADR 0047).
      const { rows } = await withTenant(
        db,
        tenantId,
        (tx) =>
          tx.query<{ granted: boolean; oldest: string | null }>(TAKE_SLOT, [
            tenantId,
            name,
            now,
            options.limit,
            windowMs,
          ]),
        ONE_STATEMENT,
      );
      const row = rows[0]!;
      return row.granted ? { ok: true } : refused(row.oldest, windowMs, now);
    },
    async peek(db, tenantId) {
      const now = Math.floor(clock());
      const { rows } = await withTenant(
        db,
        tenantId,
        (tx) =>
          tx.query<{ hits: string | number; oldest: string | null }>(PEEK_SLOT, [
            tenantId,
            name,
            now,
            windowMs,
          ]),
        ONE_STATEMENT,
      );
      const row = rows[0]!;
      return Number(row.hits) < options.limit ? { ok: true } : refused(row.oldest, windowMs, now);
    },
  };
}

/** Takes one slot of the tenant or throws 429 `too_many_requests` with Retry-After (seconds). */
export async function takeTenantSlot(
  db: Db,
  limiter: TenantLimiter,
  tenantId: string,
  what: string,
): Promise<void> {
  const slot = await limiter.tryAcquire(db, tenantId);
  if (slot.ok) return;
  const seconds = Math.max(1, Math.ceil(slot.retryAfterMs / 1000));
  throw new AppError('too_many_requests', `too many ${what} for this tenant; retry in ${seconds} s`, {
    headers: { 'Retry-After': String(seconds) },
  });
}
