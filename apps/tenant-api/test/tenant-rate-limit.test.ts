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

  it('when a tenant reads the windows and their calls, then it sees only its own', async () => {
    const limiter = createTenantLimiter('test isolation', { limit: 2, windowSeconds: 60 });
    await limiter.tryAcquire(db, 'umbrella');
    await limiter.tryAcquire(db, 'hooli');
    for (const table of ['tenant_rate_windows', 'tenant_rate_hits']) {
      const seen = await withTenant(db, 'hooli', (tx) =>
        tx.query<{ tenant_id: string }>(`SELECT DISTINCT tenant_id FROM ${table}`),
      );
      expect(seen.rows.map((r) => r.tenant_id)).toEqual(['hooli']);
    }
    // Nor can it write another tenant's window or calls.
    for (const write of [
      `INSERT INTO tenant_rate_windows (tenant_id, name, live) VALUES ('umbrella', 'x', 0)`,
      `INSERT INTO tenant_rate_hits (tenant_id, name, at) VALUES ('umbrella', 'test isolation', 0)`,
      `SELECT * FROM tenant_rate_take('umbrella', 'test isolation', 0, 2, 60000)`,
    ]) {
      await expect(withTenant(db, 'hooli', (tx) => tx.query(write))).rejects.toThrow(/row-level security/);
    }
    // And what it could not write, it did not consume: umbrella's window still holds one call of two.
    expect(await limiter.peek(db, 'umbrella')).toEqual({ ok: true });
  });

  it('a window keeps only the calls inside it: each call that left is deleted once, whatever the limit', async () => {
    let now = 1_700_000_000_000;
    const limiter = createTenantLimiter('test mail', {
      limit: 1_000_000,
      windowSeconds: 10,
      clock: () => now,
    });
    // 50 calls a second apart: at any time only the last 10 seconds' calls are inside the window.
    for (let i = 0; i < 50; i++) {
      now += 1_000;
      expect(await limiter.tryAcquire(db, 'wonka')).toEqual({ ok: true });
    }
    const held = await withTenant(db, 'wonka', (tx) =>
      tx.query<{ calls: string; oldest: string; live: number }>(
        `SELECT count(*) AS calls, min(h.at) AS oldest, (SELECT live FROM tenant_rate_windows WHERE name = 'test mail') AS live
         FROM tenant_rate_hits h WHERE h.name = 'test mail'`,
      ),
    );
    // The calls at now - 9 s … now: the one at exactly now - 10 s has left the window.
    expect(held.rows[0]).toEqual({ calls: '10', oldest: String(now - 9_000), live: 10 });
  });

  it('when the window is full, peek and a refused call agree on the wait, and neither takes a slot', async () => {
    let now = 1_700_000_000_000;
    const limiter = createTenantLimiter('test peek', { limit: 2, windowSeconds: 60, clock: () => now });
    expect(await limiter.peek(db, 'stark')).toEqual({ ok: true });
    await limiter.tryAcquire(db, 'stark');
    now += 20_000;
    await limiter.tryAcquire(db, 'stark');
    now += 10_000;
    expect(await limiter.peek(db, 'stark')).toEqual({ ok: false, retryAfterMs: 30_000 });
    expect(await limiter.tryAcquire(db, 'stark')).toEqual({ ok: false, retryAfterMs: 30_000 });
    // The first call leaves the window: peek sees the free slot before any call trims the window.
    now += 30_000;
    expect(await limiter.peek(db, 'stark')).toEqual({ ok: true });
    expect(await limiter.tryAcquire(db, 'stark')).toEqual({ ok: true });
    // Full again: the call at +20 s is now the oldest.
    expect(await limiter.peek(db, 'stark')).toEqual({ ok: false, retryAfterMs: 20_000 });
  });

  it('a database upgraded with windows in use keeps them: their calls become rows, the count their number', async () => {
    const before = await createTestDatabase();
    try {
      // The schema as it was before migration 0098, with a window holding two calls.
      await migrate(
        before,
        tenantApiMigrations().filter((m) => m.id < '0098'),
      );
      await before.query(
        `INSERT INTO tenant_rate_windows (tenant_id, name, hits, granted)
         VALUES ('acme', 'test upgrade', '{1700000000000,1700000030000}', true)`,
      );
      await migrate(before, tenantApiMigrations());
      let now = 1_700_000_040_000;
      const limiter = createTenantLimiter('test upgrade', { limit: 2, windowSeconds: 60, clock: () => now });
      // Both calls are still inside the window: full until the first leaves it, 20 s from now.
      expect(await limiter.tryAcquire(before, 'acme')).toEqual({ ok: false, retryAfterMs: 20_000 });
      now += 20_000;
      expect(await limiter.tryAcquire(before, 'acme')).toEqual({ ok: true });
    } finally {
      await before.close();
    }
  });
});
