// One tenant cannot get the service's IP blocked by Hacienda (REFERENCE §10.5: 10 minutes after a burst):
// each tenant has its own window of lookups that may reach the public API; beyond it, 429 with Retry-After.
// The client's shared token bucket still spreads whatever passes. Only cache misses count (the client's
// beforeRequest hook), for the lookup routes as for a submission's exoneration checks: a cached answer costs
// Hacienda nothing, and a tenant submits many invoices under the same authorization.
import type { ExonerationLookup } from './check-exonerations';
import { type TenantLimitOptions, createTenantLimiter, takeTenantSlot } from '../tenancy/tenant-rate-limit';
import type { LookupDeps } from './lookup-deps';

export function createLookupLimiter(options: TenantLimitOptions) {
  return createTenantLimiter('Hacienda lookups', options);
}

export function takeLookupSlot(
  deps: Pick<LookupDeps, 'db' | 'lookupLimiter'>,
  tenantId: string,
): Promise<void> {
  return takeTenantSlot(deps.db, deps.lookupLimiter, tenantId, 'Hacienda lookups');
}

/** The exoneration lookup of one tenant's submission: a call that would reach Hacienda takes a slot first. */
export function tenantExonerationLookup(
  deps: Pick<LookupDeps, 'db' | 'lookupLimiter'>,
  publicApi: ExonerationLookup,
  tenantId: string,
): ExonerationLookup {
  const beforeRequest = () => takeLookupSlot(deps, tenantId);
  return { exoneration: (numero) => publicApi.exoneration(numero, { beforeRequest }) };
}
