// CPU time of a process tree from /proc: a live child's time and a finished grandchild's (reaped by the
// child) both count for the child's tree; a process that is gone counts nothing.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  machineCpuSeconds,
  mainThreadCpuSeconds,
  namedCpuSeconds,
  startOutsideCpu,
  treeCpuSeconds,
} from './process-cpu';

// Burns 0.4 s of its own CPU time, not of the clock: on a loaded machine (CI runs suites side by side) a
// clock-timed loop got less CPU than that and the sum fell under the bound below.
const BURN =
  'const t = process.cpuUsage(); while (((u) => u.user + u.system)(process.cpuUsage(t)) < 400000) {}';

describe('treeCpuSeconds', () => {
  it('counts a child that burns CPU, the grandchild it waited for, and nothing once it is gone', async () => {
    // The child starts a grandchild that burns 0.4 s and exits (reaped: cutime), then burns 0.4 s itself and
    // stays alive until killed.
    const script = `
      const { spawnSync } = require('node:child_process');
      spawnSync(process.execPath, ['-e', ${JSON.stringify(BURN)}]);
      ${BURN}
      process.stdout.write('burnt');
      setTimeout(() => {}, 30000);`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    try {
      const seconds = treeCpuSeconds(child.pid as number);
      // Two 0.4 s burns plus two Node start-ups; well below what a third burn would add.
      expect(seconds).toBeGreaterThanOrEqual(0.7);
      expect(seconds).toBeLessThan(5);
      expect(treeCpuSeconds(process.pid)).toBeGreaterThanOrEqual(seconds);
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
    expect(treeCpuSeconds(child.pid as number)).toBe(0);
  });

  it('sums the processes with a given name (this test runner is a node process)', () => {
    expect(namedCpuSeconds('node')).toBeGreaterThan(0);
    expect(namedCpuSeconds('no-such-process-name')).toBe(0);
  });
});

describe('mainThreadCpuSeconds', () => {
  it("counts the main thread's CPU and not a worker thread's, which the process's total includes", async () => {
    // A worker thread burns 0.4 s while the main thread waits for it.
    const script = `
      const { Worker } = require('node:worker_threads');
      new Worker(${JSON.stringify(BURN)}, { eval: true }).on('exit', () => {
        process.stdout.write('burnt');
        setTimeout(() => {}, 30000);
      });`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    try {
      const pid = child.pid as number;
      const main = mainThreadCpuSeconds(pid);
      expect(main).toBeGreaterThan(0);
      expect(treeCpuSeconds(pid) - main).toBeGreaterThanOrEqual(0.35);
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
    expect(mainThreadCpuSeconds(child.pid as number)).toBe(0);
  });
});

describe('machineCpuSeconds', () => {
  it("reads user, nice and system time and the hypervisor's steal from /proc/stat's first line", () => {
    const dir = mkdtempSync(join(tmpdir(), 'stat-'));
    try {
      const path = join(dir, 'stat');
      // user nice system idle iowait irq softirq steal guest guest_nice
      writeFileSync(path, 'cpu  1000 50 250 9000 30 7 40 120 0 0\ncpu0 500 25 125 4500 15 3 20 60 0 0\n');
      expect(machineCpuSeconds(path)).toEqual({ busy: 13, steal: 1.2 });
      expect(machineCpuSeconds(join(dir, 'missing'))).toEqual({ busy: 0, steal: 0 });
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it("grows with this machine's work", () => {
    const before = machineCpuSeconds();
    const t = process.cpuUsage();
    while (((u) => u.user + u.system)(process.cpuUsage(t)) < 200_000) {
      // burn 0.2 s of CPU
    }
    expect(machineCpuSeconds().busy - before.busy).toBeGreaterThanOrEqual(0.15);
  });
});

describe('startOutsideCpu', () => {
  it("counts a process outside the given trees as the rest of the machine's work, and not once it is in them", async () => {
    // Both meters see the same interval, so whatever else the machine does counts alike in both; only the
    // child's 0.4 s differ: foreign to the first meter, ours for the second.
    const foreign = startOutsideCpu(() => []);
    const ours = startOutsideCpu(() => [process.pid], ['no-such-process-name']);
    const child = spawn(process.execPath, ['-e', BURN], { stdio: 'ignore' });
    await new Promise((resolve) => child.once('exit', resolve));
    const a = foreign();
    const b = ours();
    expect(a.seconds).toBeGreaterThan(0);
    expect(a.outsideCores * a.seconds - b.outsideCores * b.seconds).toBeGreaterThanOrEqual(0.3);
    expect(b.outsideCores).toBeGreaterThanOrEqual(0);
    expect(a.stealCores).toBeGreaterThanOrEqual(0);
  });
});
