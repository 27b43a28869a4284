import { latch } from './latch';

describe('latch', () => {
  it('when released, then its promise resolves with the value and not before', async () => {
    const gate = latch<string>();
    let settled = false;
    const seen = gate.promise.then((v) => {
      settled = true;
      return v;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    gate.release('go');
    expect(await seen).toBe('go');
  });

  it('when failed, then its promise rejects with the reason', async () => {
    const gate = latch();
    gate.fail(new Error('render failed'));
    await expect(gate.promise).rejects.toThrow('render failed');
  });
});
