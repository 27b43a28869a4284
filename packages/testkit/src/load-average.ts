// The machine's 1/5/15-minute load averages as the benches print them next to their figures ("1.17 0.78 0.42"):
// on a shared machine they say how much the numbers can be trusted.
import { loadavg } from 'node:os';

export function loadAverages(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}
