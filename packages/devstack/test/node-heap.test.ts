import { spawnSync } from 'node:child_process';
import { SERVICE_HEAP_MB, serviceNodeOptions } from '../src';

/** The old-generation limit and the young generation's size a Node started with these NODE_OPTIONS gets. */
function heapOf(nodeOptions: string): { limitMb: number; semiSpaceMb: number } {
  const script = `
    const v8 = require('node:v8');
    // Fill the young generation so it grows to its maximum (it starts smaller).
    let keep = [];
    for (let i = 0; i < 2e6; i++) { keep.push({ i }); if (keep.length > 100000) keep = []; }
    const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    process.stdout.write(JSON.stringify({ limit: v8.getHeapStatistics().heap_size_limit, young }));`;
  const r = spawnSync(process.execPath, ['-e', script], {
    env: { ...process.env, NODE_OPTIONS: nodeOptions },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(r.stderr);
  const { limit, young } = JSON.parse(r.stdout) as { limit: number; young: number };
  const MB = 1024 * 1024;
  return { limitMb: limit / MB, semiSpaceMb: young / MB / 2 };
}

describe('serviceNodeOptions', () => {
  it("gives a service the heap its default manifest's memory limit would", () => {
    const { limitMb, semiSpaceMb } = heapOf(serviceNodeOptions('auth-server'));
    // heap_size_limit is the old generation plus the young generation's reserve.
    expect(limitMb).toBeGreaterThanOrEqual(SERVICE_HEAP_MB['auth-server']);
    expect(limitMb).toBeLessThan(SERVICE_HEAP_MB['auth-server'] + 16);
    expect(semiSpaceMb).toBeLessThanOrEqual(4);
    expect(semiSpaceMb).toBeGreaterThan(1);
  });

  it("lets the caller's own NODE_OPTIONS win", () => {
    const options = serviceNodeOptions('tenant-api', ' --max-old-space-size=600 ');
    expect(options.endsWith('--max-old-space-size=600')).toBe(true);
    expect(heapOf(options).limitMb).toBeGreaterThanOrEqual(600);
    expect(serviceNodeOptions('tenant-api', '')).toBe('--max-semi-space-size=4 --max-old-space-size=256');
  });
});
