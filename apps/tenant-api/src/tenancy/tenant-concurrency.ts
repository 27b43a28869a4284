// At most a few pieces of one costly kind of work per tenant at once (PDF_RENDERS_PER_TENANT for the PDF
// download): the work shares one event loop with every tenant, so a tenant asking for many at once would take
// most of its turns. Beyond the limit, 429 with Retry-After (the SDK and the CLI wait and retry); a rate window
// (tenant-rate-limit.ts) would not bound work that is slow rather than frequent.
import { AppError } from '@cr/service-kit';

export class TenantConcurrency {
  private readonly running = new Map<string, number>();

  constructor(
    private readonly what: string,
    private readonly limit: number,
  ) {}

  async run<T>(tenantId: string, work: () => Promise<T>): Promise<T> {
    const now = this.running.get(tenantId) ?? 0;
    if (now >= this.limit) {
      throw new AppError('too_many_requests', `too many ${this.what} at once for this tenant; retry in 1 s`, {
        headers: { 'Retry-After': '1' },
      });
    }
    this.running.set(tenantId, now + 1);
    try {
      return await work();
    } finally {
      const left = (this.running.get(tenantId) ?? 1) - 1;
      if (left > 0) this.running.set(tenantId, left);
      else this.running.delete(tenantId);
    }
  }
}
