import { spawn } from 'node:child_process';
import { describeOtherWork, startOtherWork } from './other-work';
import { startOutsideCpu } from './process-cpu';

const BURN =
  'const t = process.cpuUsage(); while (((u) => u.user + u.system)(process.cpuUsage(t)) < 400000) {}';

describe('describeOtherWork', () => {
  it('calls a run quiet under a tenth of a core of other work, and shared from there', () => {
    const quiet = describeOtherWork({ seconds: 95.4, outsideCores: 0.099, stealCores: 0.004 });
    expect(quiet).toMatch(/^other work on the machine over the 95 s: 0\.10 of a core/);
    expect(quiet).toContain("the hypervisor's steal 0.00");
    expect(quiet).toMatch(/otherwise quiet$/);
    const shared = describeOtherWork({ seconds: 95, outsideCores: 0.1, stealCores: 0 });
    expect(shared).toContain('0.10 of a core');
    expect(shared).toMatch(/shared with other work, so these figures must be re-run on a quiet machine$/);
    expect(describeOtherWork({ seconds: 0.46, outsideCores: 0, stealCores: 0 })).toMatch(
      /over the 0\.5 s: 0\.00/,
    );
  });
});

describe('startOtherWork', () => {
  it("counts a child of this process as the bench's own work, not as other work", async () => {
    const all = startOutsideCpu(() => []);
    const other = startOtherWork();
    const child = spawn(process.execPath, ['-e', BURN], { stdio: 'ignore' });
    await new Promise((resolve) => child.once('exit', resolve));
    const a = all();
    const b = other();
    expect(a.outsideCores * a.seconds - b.outsideCores * b.seconds).toBeGreaterThanOrEqual(0.3);
  });
});
