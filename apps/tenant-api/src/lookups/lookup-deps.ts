// What the lookup routes need: Hacienda's public API (through @cr/hacienda-client, with its cache, retries,
// shared token bucket and 429 pause), the CABYS search, a per-tenant limit on calls that reach Hacienda,
// and the clock.
import type { CabysSearch } from '@cr/cabys';
import type { HaciendaPublicApi } from '@cr/hacienda-client';
import type { Db, Logger } from '@cr/service-kit';
import type { TenantLimiter } from '../tenancy/tenant-rate-limit';

export type PublicApiLookups = Pick<
  HaciendaPublicApi,
  'taxpayer' | 'exoneration' | 'cabys' | 'cabysByCodigo'
>;

export interface LookupDeps {
  /** Where the per-tenant lookup window is counted. */
  db: Db;
  logger: Logger;
  now: () => Date;
  /** `createHaciendaClients(...)` in main.ts; only its public API is used here. */
  hacienda: { publicApi: PublicApiLookups };
  cabys: CabysSearch;
  /** Calls per tenant that may reach Hacienda's public API in a window (its IP block is service-wide). */
  lookupLimiter: TenantLimiter;
}
