// TenantConcurrency: at most `limit` pieces of one costly kind of work per tenant at once; beyond, 429 with
// Retry-After, other tenants unaffected, and a slot frees when its work ends, whether it succeeded or failed.
import { AppError } from '@cr/service-kit';
import { TenantConcurrency } from '../src/tenancy/tenant-concurrency';

function held(): { promise: Promise<string>; release(): void; fail(): void } {
  let release!: () => void;
  let fail!: () => void;
  const promise = new Promise<string>((resolve, reject) => {
    release = () => resolve('done');
    fail = () => reject(new Error('render failed'));
  });
  return { promise, release, fail };
}

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
    a.release();
    b.fail();
    expect(await first).toBe('done');
    await expect(second).rejects.toThrow('render failed');
    // Both slots are free again, the failed one too.
    const [c, d] = [held(), held()];
    const again = [gate.run('acme', () => c.promise), gate.run('acme', () => d.promise)];
    c.release();
    d.release();
    expect(await Promise.all(again)).toEqual(['done', 'done']);
  });
});
