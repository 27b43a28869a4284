// One tenant cannot get the service's IP blocked by Hacienda (REFERENCE §10.5: 10 minutes after a burst):
// each tenant has its own window of lookups that may reach the public API; beyond it, 429 with Retry-After.
// The client's shared token bucket still spreads whatever passes. Only cache misses count (the client's
// beforeRequest hook), for the lookup routes as for a submission's exoneration and CABYS checks: a cached
// answer costs Hacienda nothing, and a tenant submits many invoices under the same authorization.
// Nor can one tenant hold up the others at that bucket (ADR 0063): each lookup names its tenant as its lane,
// so waiting tenants take turns, and a tenant has at most HACIENDA_LOOKUPS_PER_TENANT lookups at once (429
// beyond). A window bounds calls per minute, not how many wait at once: 60 at once, within the window, had
// queued every other tenant's lookups behind them for 28 s. A submission's check goes ahead of lookups.
import { type LookupOptions, RateLimitedError } from '@cr/hacienda-client';
import { AppError } from '@cr/service-kit';
import type { CabysLookup } from './check-cabys';
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

/** The client's refusal of a tenant with too many lookups at once, as the lookup routes' 429. */
function tooManyAtOnce(err: RateLimitedError): AppError {
  const seconds = Math.max(1, Math.ceil(err.retryAfterMs / 1000));
  return new AppError(
    'too_many_requests',
    `too many Hacienda lookups at once for this tenant; retry in ${seconds} s`,
    { headers: { 'Retry-After': String(seconds) } },
  );
}

/**
 * One lookup route's call for the tenant: in the tenant's lane, taking a slot of its window when it reaches
 * Hacienda; too many of the tenant's lookups at once is a 429.
 */
export async function lookUpForTenant<T>(
  deps: Pick<LookupDeps, 'db' | 'lookupLimiter'>,
  tenantId: string,
  lookup: (options: LookupOptions) => Promise<T>,
): Promise<T> {
  try {
    return await lookup({ lane: tenantId, beforeRequest: () => takeLookupSlot(deps, tenantId) });
  } catch (err) {
    if (err instanceof RateLimitedError) throw tooManyAtOnce(err);
    throw err;
  }
}

/**
 * How a submission's check calls Hacienda for its tenant: urgent in the tenant's lane, ahead of every tenant's
 * lookups, taking a slot of the tenant's window when the call reaches Hacienda, after the check's own hook
 * (`first`), which may decline to send it. Urgent calls are not counted against the tenant's lookups at once:
 * SUBMISSIONS_PER_TENANT bounds them, each checking one at a time.
 */
function submissionLookupOptions(
  deps: Pick<LookupDeps, 'db' | 'lookupLimiter'>,
  tenantId: string,
  first?: () => Promise<void>,
): LookupOptions {
  const takeSlot = () => takeLookupSlot(deps, tenantId);
  const beforeRequest = first
    ? async () => {
        await first();
        await takeSlot();
      }
    : takeSlot;
  return { lane: tenantId, urgent: true, beforeRequest };
}

/** The exoneration lookup of one tenant's submission (`submissionLookupOptions`). */
export function tenantExonerationLookup(
  deps: Pick<LookupDeps, 'db' | 'lookupLimiter'>,
  publicApi: ExonerationLookup,
  tenantId: string,
): ExonerationLookup {
  return {
    exoneration: (numero) => publicApi.exoneration(numero, submissionLookupOptions(deps, tenantId)),
  };
}

/**
 * The CABYS lookup of one tenant's submission (`submissionLookupOptions`). Past the window the slot's 429
 * reaches the check, which then leaves the code to Hacienda (ADR 0066).
 */
export function tenantCabysLookup(
  deps: Pick<LookupDeps, 'db' | 'lookupLimiter'>,
  publicApi: CabysLookup,
  tenantId: string,
): CabysLookup {
  return {
    cabysByCodigo: (codigo, options = {}) =>
      publicApi.cabysByCodigo(codigo, submissionLookupOptions(deps, tenantId, options.beforeRequest)),
  };
}
