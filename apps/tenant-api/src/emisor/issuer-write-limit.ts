// Issuer registrations and updates open a .p12 each (time in a certificate thread): a tenant gets its own
// window of them (ISSUER_WRITE_RATE_LIMIT per ISSUER_WRITE_RATE_WINDOW_SECONDS), so one tenant cannot keep the
// threads busy for everyone; beyond it, 429 with Retry-After.
import { type TenantLimitOptions, createTenantLimiter, takeTenantSlot } from '../tenancy/tenant-rate-limit';
import type { IssuerDeps } from './issuer-deps';

export function createIssuerWriteLimiter(options: TenantLimitOptions) {
  return createTenantLimiter('issuer writes', options);
}

export function takeIssuerWriteSlot(
  deps: Pick<IssuerDeps, 'db' | 'issuerWriteLimiter'>,
  tenantId: string,
): Promise<void> {
  return takeTenantSlot(deps.db, deps.issuerWriteLimiter, tenantId, 'issuer registrations or updates');
}
