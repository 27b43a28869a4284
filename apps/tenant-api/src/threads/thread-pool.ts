// A small pool of worker threads for CPU work that must not hold the event loop every tenant shares (opening
// a .p12, checking a supplier's XML). Each thread does one task at a time under a hard time limit, after which
// it is terminated and replaced; a thread idle for `idleMs` ends (each is a V8 isolate of its own, tens of MB),
// and the next task starts one again. Our own ~150 lines rather than a pool library: the TypeScript worker must
// load through tsx in development and from its bundle beside main.js in the image, which a library would not
// remove.
//
// The protocol: a thread posts `{ ready: true }` once loaded (the time limit then measures tasks only), and
// answers each task with `{ ok: true, value }` or `{ ok: false, failure }`.
import type { Worker } from 'node:worker_threads';
import {
  type Logger,
  REQUEST_YOUNG_GENERATION_MB,
  type WorkerScript,
  startWorkerThread,
} from '@cr/service-kit';

export type ThreadReply<V, F> = { ok: true; value: V } | { ok: false; failure: F };

type Message<V, F> = { ready: true; ok?: undefined } | ThreadReply<V, F>;

export interface ThreadPoolOptions<F> {
  /** Names the work in logs, e.g. "certificate". */
  name: string;
  /** The worker's bundle (`dist/<name>.js` beside main.js) and its TypeScript source (run through tsx). */
  script: WorkerScript;
  threads: number;
  timeoutMs: number;
  /** An idle thread ends after this long without work; the next task starts one again. */
  idleMs: number;
  /** What a task that outlived `timeoutMs` rejects with (its thread is terminated). */
  timeoutError: () => Error;
  /** What a task the thread refused rejects with. */
  failureError: (failure: F) => Error;
  /**
   * Each thread's old generation (MB). A task that needs more ends its thread (ERR_WORKER_OUT_OF_MEMORY) and
   * rejects with `outOfMemoryError`: the process's memory stays bounded by threads × this, whatever the task.
   */
  heap?: { mb: number; outOfMemoryError: () => Error };
  /** Given to every thread once, as `workerData` (settings it prepares once, not per task). */
  workerData?: unknown;
  logger?: Logger;
}

interface Task<V> {
  request: unknown;
  resolve(value: V): void;
  reject(err: Error): void;
}

export class ThreadPool<V, F> {
  private readonly idle: Worker[] = [];
  /** Threads still loading; they take work once they say they are ready. */
  private readonly starting = new Set<Worker>();
  private readonly busy = new Map<Worker, { task: Task<V>; timer: NodeJS.Timeout }>();
  private readonly queue: Task<V>[] = [];
  /** When each idle thread retires. */
  private readonly retirements = new Map<Worker, NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly options: ThreadPoolOptions<F>) {}

  run(request: unknown): Promise<V> {
    if (this.closed) return Promise.reject(new Error(`the ${this.options.name} pool is closed`));
    return new Promise((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
      this.pump();
    });
  }

  /** Threads alive now (starting, idle or busy). */
  get threadCount(): number {
    return this.size();
  }

  /** Terminates every thread; queued tasks are refused. */
  async close(): Promise<void> {
    this.closed = true;
    const closed = () => new Error(`the ${this.options.name} pool is closed`);
    for (const task of this.queue.splice(0)) task.reject(closed());
    for (const timer of this.retirements.values()) clearTimeout(timer);
    this.retirements.clear();
    const threads = [...this.idle.splice(0), ...this.busy.keys(), ...this.starting];
    this.starting.clear();
    for (const { task, timer } of this.busy.values()) {
      clearTimeout(timer);
      task.reject(closed());
    }
    this.busy.clear();
    await Promise.all(threads.map((t) => t.terminate()));
  }

  private pump(): void {
    while (this.queue.length > 0 && !this.closed) {
      const thread = this.idle.pop();
      if (!thread) {
        // Start threads for what waits (up to the limit); each takes work when ready.
        if (this.size() < this.options.threads && this.starting.size < this.queue.length) {
          this.spawn();
          continue;
        }
        return;
      }
      clearTimeout(this.retirements.get(thread));
      this.retirements.delete(thread);
      this.dispatch(thread, this.queue.shift()!);
    }
  }

  private size(): number {
    return this.idle.length + this.busy.size + this.starting.size;
  }

  private park(thread: Worker): void {
    this.idle.push(thread);
    const timer = setTimeout(() => {
      this.retirements.delete(thread);
      const at = this.idle.indexOf(thread);
      if (at < 0) return;
      this.idle.splice(at, 1);
      void thread.terminate();
    }, this.options.idleMs);
    timer.unref();
    this.retirements.set(thread, timer);
  }

  private spawn(): void {
    const thread = startWorkerThread(this.options.script, {
      resourceLimits: {
        maxYoungGenerationSizeMb: REQUEST_YOUNG_GENERATION_MB,
        ...(this.options.heap ? { maxOldGenerationSizeMb: this.options.heap.mb } : {}),
      },
      ...(this.options.workerData === undefined ? {} : { workerData: this.options.workerData }),
    });
    thread.unref();
    this.starting.add(thread);
    thread.on('message', (message: Message<V, F>) => this.settle(thread, message));
    thread.on('error', (err) => this.fail(thread, err));
    thread.on('exit', () => this.fail(thread, new Error(`the ${this.options.name} thread exited`)));
  }

  private dispatch(thread: Worker, task: Task<V>): void {
    const timer = setTimeout(() => {
      this.options.logger?.warn(`a ${this.options.name} task took too long: its thread was terminated`, {
        timeoutMs: this.options.timeoutMs,
      });
      this.busy.delete(thread);
      void thread.terminate();
      task.reject(this.options.timeoutError());
      this.pump();
    }, this.options.timeoutMs);
    this.busy.set(thread, { task, timer });
    thread.postMessage(task.request);
  }

  private settle(thread: Worker, message: Message<V, F>): void {
    if (message.ok === undefined) {
      this.starting.delete(thread);
      if (this.closed) void thread.terminate();
      else {
        this.park(thread);
        this.pump();
      }
      return;
    }
    const current = this.busy.get(thread);
    if (!current) return;
    clearTimeout(current.timer);
    this.busy.delete(thread);
    this.park(thread);
    if (message.ok) current.task.resolve(message.value);
    else current.task.reject(this.options.failureError(message.failure));
    this.pump();
  }

  private fail(thread: Worker, err: Error): void {
    if (this.starting.delete(thread)) {
      // A thread that cannot even load would fail every task: refuse what waits, loudly.
      this.options.logger?.error(`a ${this.options.name} thread could not start`, { error: err.message });
      if (this.size() === 0) for (const task of this.queue.splice(0)) task.reject(err);
      return;
    }
    const idleAt = this.idle.indexOf(thread);
    if (idleAt >= 0) this.idle.splice(idleAt, 1);
    clearTimeout(this.retirements.get(thread));
    this.retirements.delete(thread);
    const current = this.busy.get(thread);
    if (!current) return;
    clearTimeout(current.timer);
    this.busy.delete(thread);
    const heap = this.options.heap;
    if (heap && (err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY') {
      // The task's own input outgrew the limit: refuse it; the next task gets a new thread.
      this.options.logger?.warn(`a ${this.options.name} task needed more memory: its thread ended`, {
        heapMb: heap.mb,
      });
      current.task.reject(heap.outOfMemoryError());
    } else {
      this.options.logger?.error(`a ${this.options.name} thread failed`, { error: err.message });
      current.task.reject(err);
    }
    this.pump();
  }
}
