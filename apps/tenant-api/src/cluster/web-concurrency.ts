// How many processes serve the tenant-api (WEB_CONCURRENCY). Signing is CPU work, so one process per core
// is what lets the service use the machine; the database is the only state they share. The embedded
// PGlite belongs to one process, so several workers need DATABASE_URL.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/**
 * Cores this process may use: the CPUs it may run on, lowered by a cgroup v2 CPU quota (`cpu.max`, what a
 * container's CPU limit becomes), rounded up. `availableParallelism()` alone sees the host's CPUs.
 */
export function usableCores(cpuMax: string | undefined = readCpuMax()): number {
  const cpus = Math.max(1, availableParallelism());
  const [quota, period] = (cpuMax ?? '').trim().split(/\s+/);
  const q = Number(quota);
  const p = Number(period);
  if (quota === 'max' || !Number.isFinite(q) || !Number.isFinite(p) || q <= 0 || p <= 0) return cpus;
  return Math.max(1, Math.min(cpus, Math.ceil(q / p)));
}

function readCpuMax(): string | undefined {
  try {
    return readFileSync('/sys/fs/cgroup/cpu.max', 'utf8');
  } catch {
    return undefined;
  }
}

export interface ConcurrencySettings {
  WEB_CONCURRENCY?: number | undefined;
  JOBS_PROCESSES?: number | undefined;
  DATABASE_URL?: string | undefined;
  NODE_ENV?: string | undefined;
}

/**
 * The number of worker processes: WEB_CONCURRENCY when set; otherwise one per usable core in production on
 * PostgreSQL, and one elsewhere (development, the embedded engine). Throws when more than one is asked for
 * on the embedded engine.
 */
export function webConcurrency(settings: ConcurrencySettings, cores: () => number = usableCores): number {
  const asked = settings.WEB_CONCURRENCY;
  if (asked !== undefined) {
    if (asked > 1 && !settings.DATABASE_URL) {
      throw new Error(
        `WEB_CONCURRENCY: ${asked} processes need DATABASE_URL (the embedded database belongs to one process); unset it or set 1`,
      );
    }
    return asked;
  }
  return settings.NODE_ENV === 'production' && settings.DATABASE_URL ? cores() : 1;
}

/**
 * The processes that run only the jobs, beside `web` serving the API: JOBS_PROCESSES when set; otherwise one
 * when several serve (a cluster), none when one does (it runs the jobs too). Throws when some are asked for on
 * the embedded engine.
 */
export function jobsProcesses(settings: ConcurrencySettings, web: number): number {
  const asked = settings.JOBS_PROCESSES;
  if (asked !== undefined) {
    if (asked > 0 && !settings.DATABASE_URL) {
      throw new Error(
        `JOBS_PROCESSES: ${asked} processes of their own need DATABASE_URL (the embedded database belongs to one process); unset it or set 0`,
      );
    }
    return asked;
  }
  return web > 1 ? 1 : 0;
}
