// TenantConcurrency: at most `limit` pieces of one costly kind of work per tenant at once; beyond, 429 with
// Retry-After, other tenants unaffected, and a slot frees when its work ends, whether it succeeded or failed.
import { AppError } from '@cr/service-kit';
import { latch } from '@cr/testkit';
import { TenantConcurrency } from '../src/tenancy/tenant-concurrency';

const held = () => latch<string>();

describe('TenantConcurrency', () => {
  it('refuses the tenant’s work beyond its limit with 429 and Retry-After, and not another tenant’s', async () => {
    const gate = new TenantConcurrency('PDF renders', 2);
    const [a, b] = [held(), held()];
    const first = gate.run('acme', () => a.promise);
    const second = gate.run('acme', () => b.promise);
    const refused = await gate.run('acme', async () => 'ran').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({
      code: 'too_many_requests',
      message: 'too many PDF renders at once for this tenant; retry in 1 s',
      headers: { 'Retry-After': '1' },
    });
    expect(await gate.run('other', async () => 'ran')).toBe('ran');
    a.release('done');
    b.fail(new Error('render failed'));
    expect(await first).toBe('done');
    await expect(second).rejects.toThrow('render failed');
    // Both slots are free again, the failed one too.
    const [c, d] = [held(), held()];
    const again = [gate.run('acme', () => c.promise), gate.run('acme', () => d.promise)];
    c.release('done');
    d.release('done');
    expect(await Promise.all(again)).toEqual(['done', 'done']);
  });
});
