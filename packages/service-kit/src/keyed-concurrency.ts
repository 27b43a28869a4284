// At most `limit` pieces of work per key (a tenant, a lane) at once; one beyond it is refused at once with
// the caller's error, nothing waits. Bounds what one caller holds of something shared however slowly it is
// served, which a rate window does not: the tenant-api's costly work (429 to the client) and the Hacienda
// client's lookup lanes (its RateLimitedError) both count this way.
export class KeyedConcurrency {
  private readonly running = new Map<string, number>();

  constructor(
    private readonly limit: number,
    /** The error a call beyond the limit rejects with. */
    private readonly refuse: () => Error,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('limit must be ≥ 1');
  }

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const now = this.running.get(key) ?? 0;
    if (now >= this.limit) throw this.refuse();
    this.running.set(key, now + 1);
    try {
      return await work();
    } finally {
      const left = (this.running.get(key) ?? 1) - 1;
      if (left > 0) this.running.set(key, left);
      else this.running.delete(key);
    }
  }
}
