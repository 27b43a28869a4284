import { spawnSync } from 'node:child_process';
import { SERVICE_HEAP_MB, serviceMemoryEnv, serviceNodeOptions } from '../src';

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

describe('serviceMemoryEnv', () => {
  // Frees 64 blocks of 1 MB (each mapped by glibc on its own), then takes 64 of 900 KB and reports how much
  // malloc's main heap grew for them. glibc's default raises its mmap threshold to 1 MB on the first free, so
  // the 900 KB blocks come from the heap; held at 128 KB, they are mapped on their own and the heap stays.
  const heapGrowthKb = (env: NodeJS.ProcessEnv): number => {
    const script = `
      const { readFileSync } = require('node:fs');
      const heapKb = () => {
        const m = /^([0-9a-f]+)-([0-9a-f]+) .*\\[heap\\]$/m.exec(readFileSync('/proc/self/maps', 'utf8'));
        return m ? (parseInt(m[2], 16) - parseInt(m[1], 16)) / 1024 : 0;
      };
      let blocks = [];
      for (let i = 0; i < 64; i++) blocks.push(Buffer.alloc(1 << 20));
      blocks = null;
      global.gc();
      setTimeout(() => {
        const before = heapKb();
        const kept = [];
        for (let i = 0; i < 64; i++) kept.push(Buffer.alloc(900 * 1024));
        process.stdout.write(String(heapKb() - before));
      }, 50);`;
    const r = spawnSync(process.execPath, ['--expose-gc', '-e', script], { env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
    return Number(r.stdout);
  };
  const onLinux = process.platform === 'linux' ? it : it.skip;

  onLinux("holds glibc's mmap threshold, so large blocks freed leave the process", () => {
    const { MALLOC_MMAP_THRESHOLD_: _, ...withoutSetting } = process.env;
    const settings = serviceMemoryEnv('tenant-api');
    expect(heapGrowthKb(withoutSetting)).toBeGreaterThan(32 * 1024);
    expect(
      heapGrowthKb({ ...withoutSetting, MALLOC_MMAP_THRESHOLD_: settings.MALLOC_MMAP_THRESHOLD_ }),
    ).toBeLessThan(4 * 1024);
  });

  it("lets the caller's own values win", () => {
    const env = serviceMemoryEnv('auth-server', {
      NODE_OPTIONS: '--max-old-space-size=300',
      MALLOC_MMAP_THRESHOLD_: '65536',
    });
    expect(env.NODE_OPTIONS.endsWith('--max-old-space-size=300')).toBe(true);
    expect(env.MALLOC_MMAP_THRESHOLD_).toBe('65536');
    expect(serviceMemoryEnv('auth-server').MALLOC_MMAP_THRESHOLD_).toBe('131072');
  });
});
