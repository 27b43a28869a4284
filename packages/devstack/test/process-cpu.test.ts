// CPU time of a process tree from /proc: a live child's time and a finished grandchild's (reaped by the
// child) both count for the child's tree; a process that is gone counts nothing.
import { spawn } from 'node:child_process';
import { mainThreadCpuSeconds, namedCpuSeconds, treeCpuSeconds } from '../src';

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
