// A per-tenant sliding window for work that costs the whole service (Hacienda's patience, certificate
// threads): each tenant gets its own window, and beyond it a 429 with Retry-After names what was limited.
import { SlidingWindowLimiter } from '@cr/hacienda-client';
import { AppError } from '@cr/service-kit';

export interface TenantLimitOptions {
  limit: number;
  windowSeconds: number;
  clock?: () => number;
}

export function createTenantLimiter(name: string, options: TenantLimitOptions): SlidingWindowLimiter {
  return new SlidingWindowLimiter({
    limit: options.limit,
    windowMs: options.windowSeconds * 1000,
    name,
    ...(options.clock ? { clock: options.clock } : {}),
  });
}

/** Takes one slot of the tenant or throws 429 `too_many_requests` with Retry-After (seconds). */
export function takeTenantSlot(
  limiter: Pick<SlidingWindowLimiter, 'tryAcquire'>,
  tenantId: string,
  what: string,
): void {
  const slot = limiter.tryAcquire(tenantId);
  if (slot.ok) return;
  const seconds = Math.max(1, Math.ceil(slot.retryAfterMs / 1000));
  throw new AppError('too_many_requests', `too many ${what} for this tenant; retry in ${seconds} s`, {
    headers: { 'Retry-After': String(seconds) },
  });
}
