// The primary of a tenant-api cluster (node:cluster): forks the workers that serve the API (HTTP on the
// shared port, where the primary hands connections round-robin) and those that run the jobs (claims with SKIP
// LOCKED, so no job runs twice; at a lower priority, ADR 0060) — or, with no jobs processes, servers that
// run their own jobs worker each. It relays the servers' job wake-ups to the jobs processes, replaces a
// worker that dies after it was running, and on SIGTERM/SIGINT asks every worker to drain and waits for
// them. It holds no state and opens no database.
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from '@cr/service-kit';
import { WORKER_ROLE_ENV, isJobsDueMessage, isJobsReadyMessage } from './jobs-process';

/**
 * Set in each worker's environment: its slot, kept by a replacement. The servers are 0 … n−1 and slot 0
 * runs the singletons; the jobs processes follow them.
 */
export const WORKER_INDEX_ENV = 'TENANT_WORKER_INDEX';

/** The worker's slot, or undefined outside a cluster. */
export function workerIndex(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env[WORKER_INDEX_ENV];
  return cluster.isWorker && raw !== undefined ? Number(raw) : undefined;
}

export interface PrimaryOptions {
  /** Workers serving the API. */
  workers: number;
  /** Workers running the jobs only; 0: each server runs its own jobs worker. */
  jobsProcesses?: number;
  logger: Logger;
  /** Added to every worker's environment (e.g. a development SECRETS_KEY generated once, here). */
  env?: Record<string, string>;
  /** How long workers get to drain after SIGTERM before they are killed. */
  shutdownDeadlineMs?: number;
  /** Replacements allowed within `restartWindowMs` before the primary gives up (a crash loop). */
  maxRestarts?: number;
  restartWindowMs?: number;
}

export function runPrimary(options: PrimaryOptions): void {
  const { logger } = options;
  // A little more than a worker's own 25 s (main.ts), under the 30-s grace of the manifests: a worker cut
  // short by its own deadline says so in its log before the primary kills it.
  const deadlineMs = options.shutdownDeadlineMs ?? 28_000;
  const maxRestarts = options.maxRestarts ?? 5;
  const windowMs = options.restartWindowMs ?? 60_000;
  const jobsProcesses = options.jobsProcesses ?? 0;
  const total = options.workers + jobsProcesses;
  const slots = new Map<Worker, number>();
  const jobsWorkers = new Set<Worker>();
  // Started and running: a server once it listens, a jobs process once it says its worker runs.
  const serving = new Set<Worker>();
  const restarts: number[] = [];
  let stopping = false;
  let exitCode = 0;

  const running = (worker: Worker): void => {
    serving.add(worker);
    if (serving.size === total && !stopping) {
      logger.info('tenant-api cluster serving', { workers: options.workers, jobsProcesses });
    }
  };

  const fork = (slot: number): void => {
    const jobs = slot >= options.workers;
    const role = jobsProcesses === 0 ? {} : { [WORKER_ROLE_ENV]: jobs ? 'jobs' : 'web' };
    const worker = cluster.fork({ ...options.env, ...role, [WORKER_INDEX_ENV]: String(slot) });
    slots.set(worker, slot);
    if (jobs) jobsWorkers.add(worker);
    else worker.once('listening', () => running(worker));
  };

  cluster.on('message', (worker, message: unknown) => {
    if (isJobsReadyMessage(message) && jobsWorkers.has(worker)) running(worker);
    else if (isJobsDueMessage(message) && !jobsWorkers.has(worker)) {
      for (const jobs of jobsWorkers) if (jobs.isConnected()) jobs.send(message);
    }
  });

  const stop = (code: number, reason: string): void => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    logger.info('tenant-api cluster stopping', { reason, workers: slots.size });
    for (const worker of slots.keys()) worker.process.kill('SIGTERM');
    const timer = setTimeout(() => {
      logger.error('tenant-api cluster: workers did not stop in time; killing them');
      for (const worker of slots.keys()) worker.process.kill('SIGKILL');
      process.exit(1);
    }, deadlineMs);
    timer.unref();
    if (slots.size === 0) process.exit(exitCode);
  };

  cluster.on('exit', (worker, code, signal) => {
    const slot = slots.get(worker) ?? -1;
    const wasServing = serving.delete(worker);
    slots.delete(worker);
    jobsWorkers.delete(worker);
    if (stopping) {
      if (slots.size === 0) process.exit(exitCode);
      return;
    }
    // A worker that never served failed at start (settings, database, migrations): more forks would fail
    // the same way, so the whole service stops with that failure.
    if (!wasServing) {
      logger.error('tenant-api worker failed to start; stopping', { slot, code, signal });
      stop(1, 'worker failed to start');
      return;
    }
    const now = Date.now();
    while (restarts.length > 0 && (restarts[0] ?? now) < now - windowMs) restarts.shift();
    if (restarts.length >= maxRestarts) {
      logger.error('tenant-api workers keep dying; stopping', {
        slot,
        code,
        signal,
        restarts: restarts.length,
      });
      stop(1, 'crash loop');
      return;
    }
    restarts.push(now);
    logger.warn('tenant-api worker died; replacing it', { slot, code, signal });
    fork(slot);
  });

  process.on('SIGTERM', () => stop(0, 'SIGTERM'));
  process.on('SIGINT', () => stop(0, 'SIGINT'));
  for (let slot = 0; slot < total; slot += 1) fork(slot);
}
