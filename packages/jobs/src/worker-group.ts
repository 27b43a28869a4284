// Several workers, each with its own queues and concurrency, driven as one: a queue whose handlers may wait
// on someone else (webhook receivers answering in 15 s) gets its own pool, so it cannot hold the slots of
// the queues that must keep moving (Hacienda submissions). Each worker claims only its own queues.
import type { Worker } from './worker';

export class WorkerGroup {
  constructor(readonly workers: readonly Worker[]) {
    if (workers.length === 0) throw new TypeError('WorkerGroup: at least one worker is required');
  }

  start(): void {
    for (const worker of this.workers) worker.start();
  }

  wake(): void {
    for (const worker of this.workers) worker.wake();
  }

  /** Each worker claims and runs what is due once; returns how many jobs ran in all. */
  async runOnce(): Promise<number> {
    const counts = await Promise.all(this.workers.map((worker) => worker.runOnce()));
    return counts.reduce((sum, n) => sum + n, 0);
  }

  async stop(timeoutMs?: number): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.stop(timeoutMs)));
  }

  get busy(): number {
    return this.workers.reduce((sum, worker) => sum + worker.busy, 0);
  }
}
