// The jobs in processes of their own (ADR 0060). In a cluster the workers that serve the API run no jobs and
// those that run the jobs serve nothing, at a lower priority: on a machine the documents' pipeline keeps
// busy, a POST waiting on its signed XML gets the cores first and the jobs take what is left, where a jobs
// worker on the same event loop delayed the POSTs behind each PDF and e-mail. The jobs package wakes its
// workers with an in-process event when a job is enqueued or brought forward; across processes the serving
// workers send those wake-ups to the primary, which hands them to every jobs process.
import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { jobEvents, notifyJobsDue } from '@cr/jobs';

/** Set in each cluster worker's environment: `web` serves the API only, `jobs` runs the jobs only. */
export const WORKER_ROLE_ENV = 'TENANT_WORKER_ROLE';

/** What this process runs: `all` outside a cluster, or in one that gives each server its own jobs worker. */
export type WorkerRole = 'all' | 'web' | 'jobs';

export function workerRole(env: NodeJS.ProcessEnv = process.env): WorkerRole {
  const role = env[WORKER_ROLE_ENV];
  return role === 'web' || role === 'jobs' ? role : 'all';
}

/** A serving worker's wake-up for the jobs processes: the queues made due, and whether to wake them all. */
export interface JobsDueMessage {
  type: 'tenant-api:jobs-due';
  queues: string[];
  all: boolean;
}

/** A jobs process's word to the primary that its worker runs (it listens on no port to say so). */
export interface JobsReadyMessage {
  type: 'tenant-api:jobs-ready';
}

export function isJobsDueMessage(message: unknown): message is JobsDueMessage {
  const m = message as Partial<JobsDueMessage> | null;
  return (
    typeof m === 'object' &&
    m !== null &&
    m.type === 'tenant-api:jobs-due' &&
    Array.isArray(m.queues) &&
    m.queues.every((q) => typeof q === 'string') &&
    typeof m.all === 'boolean'
  );
}

export function isJobsReadyMessage(message: unknown): message is JobsReadyMessage {
  return (message as Partial<JobsReadyMessage> | null)?.type === 'tenant-api:jobs-ready';
}

/**
 * A message to the primary, unless the channel has closed (the primary gone, this worker about to exit):
 * `process.send` would then raise an 'error' event that nothing handles.
 */
export function sendToPrimary(message: JobsDueMessage | JobsReadyMessage): void {
  if (process.connected) process.send?.(message);
}

/**
 * In a serving worker: sends the jobs package's wake-ups to the primary, those of one turn of the event loop
 * in one message (a burst of POSTs is one message per turn, not one per document). `wake()` asks for every
 * queue (what `worker.wake()` does in a process that runs its jobs). Returns it and the unsubscribe.
 */
export function forwardJobWakeups(send: (message: JobsDueMessage) => void = sendToPrimary): {
  wake(): void;
  stop(): void;
} {
  const due = new Set<string>();
  let all = false;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const message: JobsDueMessage = { type: 'tenant-api:jobs-due', queues: [...due], all };
    all = false;
    due.clear();
    send(message);
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  };
  const onDue = (queue: string) => {
    due.add(queue);
    schedule();
  };
  jobEvents.on('due', onDue);
  return {
    wake: () => {
      all = true;
      schedule();
    },
    stop: () => jobEvents.off('due', onDue),
  };
}

/**
 * In a jobs process: the serving workers' wake-ups, relayed by the primary, wake this process's workers as
 * an enqueue in this process would (a queue's "due" event looks again shortly after, for a commit still in
 * flight). Returns the unsubscribe.
 */
export function receiveJobWakeups(wakeAll: () => void): () => void {
  const onMessage = (message: unknown) => {
    if (!isJobsDueMessage(message)) return;
    for (const queue of message.queues) notifyJobsDue(queue);
    if (message.all) wakeAll();
  };
  process.on('message', onMessage);
  return () => process.off('message', onMessage);
}

/**
 * Lowers every thread of this process to `nice` (Linux keeps a nice value per thread, and a thread starts
 * with its creator's: the libuv pool and worker threads started later follow the main thread). A thread
 * already lower (the whole service started under `nice`) stays where it is: this never raises a priority.
 * Returns how many threads were looked at; 0 where /proc is missing (the process runs as before).
 */
export function niceEveryThread(nice: number): number {
  let threads: string[];
  try {
    threads = readdirSync('/proc/self/task');
  } catch {
    return 0;
  }
  let seen = 0;
  for (const tid of threads) {
    try {
      const id = Number(tid);
      // getPriority answers the nice value, -20 (highest) … 19 (lowest).
      if (getPriority(id) < nice) setPriority(id, nice);
      seen += 1;
    } catch {
      // A thread that ended meanwhile.
    }
  }
  return seen;
}
