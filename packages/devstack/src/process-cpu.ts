// CPU time a service has used, as the operating system counts it: user + system time of the process and of
// every live process below it, plus what its exited children used (cutime/cstime: a child process run, a
// cluster worker that ended). For benches that divide a service's CPU by the documents it handled.
import { readFileSync, readdirSync } from 'node:fs';
import { childPids } from './process-memory';

const TICKS_PER_SECOND = 100; // USER_HZ, 100 on every Linux the services run on

interface ProcTimes {
  own: number;
  reaped: number;
  comm: string;
}

function procTimes(pid: number, statPath = `/proc/${pid}/stat`): ProcTimes | undefined {
  let stat: string;
  try {
    stat = readFileSync(statPath, 'utf8');
  } catch {
    return undefined;
  }
  // The command name is in parentheses and may hold spaces: the fields start after the last ')'.
  const close = stat.lastIndexOf(')');
  const comm = stat.slice(stat.indexOf('(') + 1, close);
  const f = stat.slice(close + 2).split(' ');
  // Fields 14-17 of proc(5) (utime, stime, cutime, cstime) are 11-14 counted from the state field.
  const [utime, stime, cutime, cstime] = [f[11], f[12], f[13], f[14]].map(Number) as [
    number,
    number,
    number,
    number,
  ];
  return { own: (utime + stime) / TICKS_PER_SECOND, reaped: (cutime + cstime) / TICKS_PER_SECOND, comm };
}

/** Seconds of CPU used by `pid`, its live descendants and the children they have reaped. */
export function treeCpuSeconds(pid: number): number {
  const times = procTimes(pid);
  if (!times) return 0;
  return childPids(pid).reduce((sum, child) => sum + treeCpuSeconds(child), times.own + times.reaped);
}

/**
 * Seconds of CPU used by `pid`'s main thread alone: the event loop, where a Node service's requests and jobs
 * run. The process's other threads (V8's compiler and concurrent GC, the libuv pool, worker threads such as
 * an embedded PGlite's) are the rest of `treeCpuSeconds`; their share moves with when V8 optimises and
 * collects, so the main thread's is the steadier figure to compare changes of the request path by.
 */
export function mainThreadCpuSeconds(pid: number): number {
  return procTimes(pid, `/proc/${pid}/task/${pid}/stat`)?.own ?? 0;
}

/**
 * Seconds of CPU used by every process named `name` on the machine (e.g. `postgres`: the server and its
 * backends) plus what they reaped: a local database server's share of a bench.
 */
export function namedCpuSeconds(name: string): number {
  let sum = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const times = procTimes(Number(entry));
    if (times?.comm === name) sum += times.own + times.reaped;
  }
  return sum;
}
