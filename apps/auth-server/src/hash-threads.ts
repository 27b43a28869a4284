// The threads that compute argon2 for logins. Each is a worker thread that runs @node-rs/argon2's
// synchronous functions and, on Linux, lowers its own scheduling priority first (a nice value is per thread
// there). A login flood then spends only the CPU that nothing else wants: the event loop (JWKS, /health,
// token checks) and the database keep their share, where argon2 on libuv's pool would compete with them as
// equals. Elsewhere the threads run at normal priority, as the pool did.
import type { Worker } from 'node:worker_threads';
import { MESSAGE_YOUNG_GENERATION_MB, startWorkerThread } from '@cr/service-kit';

/** What a thread is asked to do; the arguments are @node-rs/argon2's. */
type Op = { op: 'hash'; args: [string, Record<string, number>] } | { op: 'verify'; args: [string, string] };

// Plain JavaScript evaluated by the worker, so the same code runs from the sources, the bundle and tests.
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { readlinkSync } = require('node:fs');
const { getPriority, setPriority } = require('node:os');
const argon2 = require(workerData.argon2);
let tid = 0;
try {
  tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  setPriority(tid, workerData.nice);
} catch {}
parentPort.on('message', ({ id, op, args }) => {
  try {
    let value;
    if (op === 'hash') value = argon2.hashSync(...args);
    else if (op === 'verify') value = argon2.verifySync(...args);
    else if (op === 'priority') value = getPriority(tid);
    else throw new Error('unknown operation ' + op);
    parentPort.postMessage({ id, value });
  } catch (err) {
    parentPort.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
`;

/** argon2 refused what it was given (a malformed stored hash, bad parameters): an answer, not a failure. */
export class HashInputError extends Error {}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

class HashThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  dead = false;

  constructor(nice: number) {
    this.worker = startWorkerThread(
      { inline: THREAD_SOURCE },
      {
        workerData: { argon2: require.resolve('@node-rs/argon2'), nice },
        // argon2 works outside V8's heap; the thread's garbage is a message per hash.
        resourceLimits: { maxYoungGenerationSizeMb: MESSAGE_YOUNG_GENERATION_MB },
      },
    );
    this.worker.unref();
    this.worker.on('message', (m: { id: number; value?: unknown; error?: string }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.settled(m.id);
      if (m.error !== undefined) p.reject(new HashInputError(m.error));
      else p.resolve(m.value);
    });
    const fail = (err: Error) => {
      this.dead = true;
      for (const [id, p] of this.pending) {
        this.settled(id);
        p.reject(err);
      }
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`argon2 thread exited with code ${code}`)));
  }

  get busy(): number {
    return this.pending.size;
  }

  run(message: Op | { op: 'priority' }): Promise<unknown> {
    const id = this.nextId++;
    // Referenced while it has work, so a process waiting only for a hash does not exit.
    if (this.pending.size === 0) this.worker.ref();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, ...message });
    });
  }

  terminate(): Promise<number> {
    return this.worker.terminate();
  }

  private settled(id: number): void {
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker.unref();
  }
}

export interface HashThreadsOptions {
  /** How many threads (the caller bounds how many hashes run at once). */
  size: number;
  /** Nice value of each thread, 0 (as the event loop) to 19 (only idle CPU). */
  nice: number;
}

/** A fixed set of argon2 threads, started on first use; a thread that dies is replaced on the next call. */
export class HashThreads {
  private readonly threads: Array<HashThread | undefined>;

  constructor(private readonly options: HashThreadsOptions) {
    this.threads = new Array<HashThread | undefined>(Math.max(1, options.size)).fill(undefined);
  }

  hash(password: string, params: Record<string, number>): Promise<string> {
    return this.pick().run({ op: 'hash', args: [password, params] }) as Promise<string>;
  }

  verify(phc: string, password: string): Promise<boolean> {
    return this.pick().run({ op: 'verify', args: [phc, password] }) as Promise<boolean>;
  }

  /** The nice value a thread runs at, as the kernel reports it (for tests and diagnostics). */
  priority(): Promise<number> {
    return this.pick().run({ op: 'priority' }) as Promise<number>;
  }

  async close(): Promise<void> {
    const running = this.threads.filter((t): t is HashThread => t !== undefined);
    this.threads.fill(undefined);
    await Promise.all(running.map((t) => t.terminate()));
  }

  /** The least busy live thread, starting one where a slot is empty or its thread died. */
  private pick(): HashThread {
    let best: HashThread | undefined;
    for (let i = 0; i < this.threads.length; i++) {
      let t = this.threads[i];
      if (!t || t.dead) {
        t = new HashThread(this.options.nice);
        this.threads[i] = t;
      }
      if (t.busy === 0) return t;
      if (!best || t.busy < best.busy) best = t;
    }
    return best!;
  }
}
