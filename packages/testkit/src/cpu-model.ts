// The processor the benches name next to their figures ("AMD EPYC 7B13"): figures from different sessions are
// only comparable on the same model. /proc/cpuinfo names it on Linux; os.cpus() elsewhere.
import { cpus } from 'node:os';
import { readProcOrEmpty } from './process-cpu';

export function cpuModel(): string {
  const cpuinfo = readProcOrEmpty('/proc/cpuinfo'); // '' off Linux: os.cpus() below
  return /model name\s*:\s*(.+)/.exec(cpuinfo)?.[1]?.trim() || cpus()[0]?.model || 'unknown CPU';
}
