// The model the benches print is the machine's: the first "model name" of /proc/cpuinfo where there is one.
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { cpuModel } from './cpu-model';

describe('cpuModel', () => {
  it('names the first processor of /proc/cpuinfo, or the one os.cpus() reports elsewhere', () => {
    const model = cpuModel();
    const line = existsSync('/proc/cpuinfo')
      ? readFileSync('/proc/cpuinfo', 'utf8')
          .split('\n')
          .find((l) => l.startsWith('model name'))
      : undefined;
    const expected = line ? line.slice(line.indexOf(':') + 1).trim() : cpus()[0]?.model;
    expect(model).toBe(expected || 'unknown CPU');
    expect(model).not.toMatch(/^\s|\s$|model name/);
  });
});
