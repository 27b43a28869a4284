// At most a few pieces of one costly kind of work per tenant at once (PDF_RENDERS_PER_TENANT for the PDF
// download): the work shares one event loop with every tenant, so a tenant asking for many at once would take
// most of its turns. Beyond the limit, 429 with Retry-After (the SDK and the CLI wait and retry); a rate window
// (tenant-rate-limit.ts) would not bound work that is slow rather than frequent.
import { AppError, KeyedConcurrency } from '@cr/service-kit';

export class TenantConcurrency extends KeyedConcurrency {
  constructor(what: string, limit: number) {
    super(
      limit,
      () =>
        new AppError('too_many_requests', `too many ${what} at once for this tenant; retry in 1 s`, {
          headers: { 'Retry-After': '1' },
        }),
    );
  }
}
