// Issuer registrations and updates open a .p12 each (time in a certificate thread): a tenant gets its own
// window of them (ISSUER_WRITE_RATE_LIMIT per ISSUER_WRITE_RATE_WINDOW_SECONDS), so one tenant cannot keep the
// threads busy for everyone; beyond it, 429 with Retry-After.
import { SlidingWindowLimiter } from '@cr/hacienda-client';
import { AppError } from '@cr/service-kit';
import type { IssuerDeps } from './issuer-deps';

export function createIssuerWriteLimiter(options: {
  limit: number;
  windowSeconds: number;
  clock?: () => number;
}) {
  return new SlidingWindowLimiter({
    limit: options.limit,
    windowMs: options.windowSeconds * 1000,
    name: 'issuer writes',
    ...(options.clock ? { clock: options.clock } : {}),
  });
}

/** Takes one issuer-write slot of the tenant or throws 429 `too_many_requests` with Retry-After (seconds). */
export function takeIssuerWriteSlot(deps: Pick<IssuerDeps, 'issuerWriteLimiter'>, tenantId: string): void {
  const slot = deps.issuerWriteLimiter.tryAcquire(tenantId);
  if (slot.ok) return;
  const seconds = Math.max(1, Math.ceil(slot.retryAfterMs / 1000));
  throw new AppError(
    'too_many_requests',
    `too many issuer registrations or updates for this tenant; retry in ${seconds} s`,
    { headers: { 'Retry-After': String(seconds) } },
  );
}
