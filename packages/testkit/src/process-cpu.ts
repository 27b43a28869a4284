// CPU time a service has used, as the operating system counts it: user + system time of the process and of
// every live process below it, plus what its exited children used (cutime/cstime: a child process run, a
// cluster worker that ended). For benches that divide a service's CPU by the documents it handled.
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const TICKS_PER_SECOND = 100; // USER_HZ, 100 on every Linux the services run on

/** The pids of `pid`'s children (all threads' children), from /proc/<pid>/task/<tid>/children. */
export function childPids(pid: number): number[] {
  const out = new Set<number>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  for (const tid of tids) {
    const children = readProcOrEmpty(`/proc/${pid}/task/${tid}/children`);
    for (const c of children.trim().split(/\s+/)) if (c) out.add(Number(c));
  }
  return [...out];
}

/** A /proc (or other system) file's text, or '' where it cannot be read (gone, not Linux). */
export function readProcOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/**
 * What `pid`'s open descriptors point at (a path, or `socket:[inode]`, …), from /proc/<pid>/fd; undefined
 * where that cannot be read (the process has gone, is not ours, or this is not Linux).
 */
export function openFiles(pid: number | string, procRoot = '/proc'): string[] | undefined {
  let fds: string[];
  try {
    fds = readdirSync(`${procRoot}/${pid}/fd`);
  } catch {
    return undefined;
  }
  return fds.flatMap((fd) => {
    try {
      return [readlinkSync(`${procRoot}/${pid}/fd/${fd}`)];
    } catch {
      return []; // closed while we looked
    }
  });
}

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

export interface MachineCpu {
  /** Seconds the machine's CPUs ran anything (user, nice and system time, summed over the CPUs). */
  busy: number;
  /** Seconds the hypervisor gave this machine's CPUs to someone else (steal). */
  steal: number;
}

/** The machine's CPU time since boot, from the first line of /proc/stat; zeros where there is none. */
export function machineCpuSeconds(statPath = '/proc/stat'): MachineCpu {
  let stat: string;
  try {
    stat = readFileSync(statPath, 'utf8');
  } catch {
    return { busy: 0, steal: 0 };
  }
  // "cpu  user nice system idle iowait irq softirq steal guest guest_nice" (guest time is inside user). Interrupt
  // time is left out: it is charged to no process, so the bench's own loopback traffic would count as another's.
  const f = (stat.split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  const at = (i: number) => (Number.isFinite(f[i]) ? (f[i] as number) : 0);
  return { busy: (at(0) + at(1) + at(2)) / TICKS_PER_SECOND, steal: at(7) / TICKS_PER_SECOND };
}

/**
 * What the rest of the machine did while a bench ran: CPU that neither `pids`' trees nor the processes named
 * in `names` (a local database server) used. On a quiet machine it is a few per cent of a core (the kernel's
 * threads, the shell); a figure measured beside other work says so by this, where the load average cannot
 * (it counts the bench's own services too).
 */
export function startOutsideCpu(pids: () => number[], names: string[] = []): () => OutsideCpu {
  const ours = () =>
    pids().reduce((sum, pid) => sum + treeCpuSeconds(pid), 0) +
    names.reduce((sum, name) => sum + namedCpuSeconds(name), 0);
  const started = performance.now();
  const machine = machineCpuSeconds();
  const own = ours();
  return () => {
    const seconds = (performance.now() - started) / 1000;
    const now = machineCpuSeconds();
    const outside = Math.max(0, now.busy - machine.busy - (ours() - own));
    return {
      seconds,
      outsideCores: seconds > 0 ? outside / seconds : 0,
      stealCores: seconds > 0 ? (now.steal - machine.steal) / seconds : 0,
    };
  };
}

export interface OutsideCpu {
  /** Wall time from start to reading. */
  seconds: number;
  /** CPU others used over that time, in cores (0.05 = 5 % of one core). */
  outsideCores: number;
  /** Time the hypervisor took from this machine's CPUs, in cores. */
  stealCores: number;
}
