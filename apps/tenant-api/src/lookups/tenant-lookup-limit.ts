// One tenant cannot get the service's IP blocked by Hacienda (REFERENCE §10.5: 10 minutes after a burst):
// each tenant has its own window of lookups that may reach the public API; beyond it, 429 with Retry-After.
// The client's shared token bucket still spreads whatever passes.
import { SlidingWindowLimiter } from '@cr/hacienda-client';
import { AppError } from '@cr/service-kit';
import type { LookupDeps } from './lookup-deps';

export function createLookupLimiter(options: { limit: number; windowSeconds: number; clock?: () => number }) {
  return new SlidingWindowLimiter({
    limit: options.limit,
    windowMs: options.windowSeconds * 1000,
    name: 'Hacienda lookups',
    ...(options.clock ? { clock: options.clock } : {}),
  });
}

/** Takes one lookup slot of the tenant or throws 429 `too_many_requests` with Retry-After (seconds). */
export function takeLookupSlot(deps: Pick<LookupDeps, 'lookupLimiter'>, tenantId: string): void {
  const slot = deps.lookupLimiter.tryAcquire(tenantId);
  if (slot.ok) return;
  const seconds = Math.max(1, Math.ceil(slot.retryAfterMs / 1000));
  throw new AppError(
    'too_many_requests',
    `too many Hacienda lookups for this tenant; retry in ${seconds} s`,
    { headers: { 'Retry-After': String(seconds) } },
  );
}
