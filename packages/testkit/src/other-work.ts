// Whether a bench's machine was otherwise quiet. Its figures (requests a second, CPU per document) hold only
// for the CPU the bench had; the load average cannot tell, as it counts the bench's own processes too.
import { type OutsideCpu, startOutsideCpu } from './process-cpu';

/** Under a tenth of a core of other work (the kernel's threads, a shell), a run counts as quiet. */
export const QUIET_CORES = 0.1;

/**
 * Starts counting the CPU the rest of the machine uses beside this process, every process below it (the
 * services a bench starts) and the local PostgreSQL server; the returned function reads it so far.
 */
export function startOtherWork(): () => OutsideCpu {
  return startOutsideCpu(() => [process.pid], ['postgres']);
}

/**
 * "other work on the machine over the 95 s: 0.02 of a core (the CPU neither …; the hypervisor's steal 0.00):
 * the machine was otherwise quiet", or "… shared with other work, so these figures must be re-run …".
 */
export function describeOtherWork(other: OutsideCpu): string {
  const cores = (n: number) => n.toFixed(2);
  const verdict =
    other.outsideCores < QUIET_CORES
      ? 'the machine was otherwise quiet'
      : 'the machine was shared with other work, so these figures must be re-run on a quiet machine';
  // A bench of a second or two still says how long it looked.
  const seconds = other.seconds < 10 ? other.seconds.toFixed(1) : String(Math.round(other.seconds));
  return `other work on the machine over the ${seconds} s: ${cores(other.outsideCores)} of a core (the CPU neither this bench, nor the processes it started, nor the PostgreSQL server used; the hypervisor's steal ${cores(other.stealCores)}): ${verdict}`;
}
