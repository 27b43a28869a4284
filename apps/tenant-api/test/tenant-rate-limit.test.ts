// The per-tenant rate windows on the real database (PostgreSQL under TEST_DATABASE_URL, else PGlite): exact
// sliding windows, one per tenant, shared by every limiter instance of the same name (as the processes and
// replicas of the tenant-api share them), under concurrent callers; and hidden from other tenants by RLS.
import { type TestDatabase, createTestDatabase, migrate } from '@cr/service-kit';
import { tenantApiMigrations, withTenant } from '../src/db/with-tenant';
import { createTenantLimiter, takeTenantSlot } from '../src/tenancy/tenant-rate-limit';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await migrate(db, tenantApiMigrations());
});
afterAll(() => db.close());

describe('tenant rate windows in the database', () => {
  it('when a tenant uses up its window, then it waits until its oldest call leaves it; another tenant is not affected', async () => {
    let now = 1_700_000_000_000;
    const limiter = createTenantLimiter('test lookups', { limit: 3, windowSeconds: 60, clock: () => now });
    const granted = [];
    for (const step of [0, 10_000, 10_000]) {
      now += step;
      granted.push(await limiter.tryAcquire(db, 'acme'));
    }
    expect(granted).toEqual([{ ok: true }, { ok: true }, { ok: true }]);
    now += 5_000;
    // The oldest call (25 s ago) leaves the window in 35 s.
    expect(await limiter.tryAcquire(db, 'acme')).toEqual({ ok: false, retryAfterMs: 35_000 });
    expect(await limiter.tryAcquire(db, 'globex')).toEqual({ ok: true });
    now += 35_000;
    expect(await limiter.tryAcquire(db, 'acme')).toEqual({ ok: true });
    // Refused calls do not count: the next slot frees when the second call (at +10 s) leaves.
    expect(await limiter.tryAcquire(db, 'acme')).toEqual({ ok: false, retryAfterMs: 10_000 });
    await expect(takeTenantSlot(db, limiter, 'acme', 'test lookups')).rejects.toMatchObject({
      code: 'too_many_requests',
      message: 'too many test lookups for this tenant; retry in 10 s',
      headers: { 'Retry-After': '10' },
    });
    // A whole window later, everything has left it.
    now += 120_000;
    expect(await limiter.tryAcquire(db, 'acme')).toEqual({ ok: true });
  });

  it('when many calls from several limiters of one name arrive at once, then exactly the limit passes', async () => {
    // Two instances, as two processes would create them; the database is their only shared state.
    const a = createTenantLimiter('test replays', { limit: 5, windowSeconds: 60 });
    const b = createTenantLimiter('test replays', { limit: 5, windowSeconds: 60 });
    const outcomes = await Promise.all(
      Array.from({ length: 24 }, (_, i) => (i % 2 ? a : b).tryAcquire(db, 'initech')),
    );
    expect(outcomes.filter((o) => o.ok)).toHaveLength(5);
    for (const o of outcomes.filter((o) => !o.ok)) {
      expect(o).toEqual({ ok: false, retryAfterMs: expect.any(Number) });
      if (!o.ok) expect(o.retryAfterMs).toBeGreaterThan(55_000);
    }
    // Another name is another window.
    const other = createTenantLimiter('test branding', { limit: 5, windowSeconds: 60 });
    expect(await other.tryAcquire(db, 'initech')).toEqual({ ok: true });
  });

  it('when a tenant reads the windows, then it sees only its own', async () => {
    const limiter = createTenantLimiter('test isolation', { limit: 2, windowSeconds: 60 });
    await limiter.tryAcquire(db, 'umbrella');
    await limiter.tryAcquire(db, 'hooli');
    const seen = await withTenant(db, 'hooli', (tx) =>
      tx.query<{ tenant_id: string }>('SELECT DISTINCT tenant_id FROM tenant_rate_windows'),
    );
    expect(seen.rows.map((r) => r.tenant_id)).toEqual(['hooli']);
    // Nor can it write another tenant's window.
    await expect(
      withTenant(db, 'hooli', (tx) =>
        tx.query(
          `INSERT INTO tenant_rate_windows (tenant_id, name, hits, granted) VALUES ('umbrella', 'x', '{}', true)`,
        ),
      ),
    ).rejects.toThrow(/row-level security/);
  });
});
