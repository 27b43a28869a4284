// The service's side of the thread that runs its embedded PGlite (ADR 0039): each statement is a message to
// pglite-worker.ts and its rows come back in the reply. The event loop no longer executes the WebAssembly
// PostgreSQL, so requests are served while a statement runs, and the database's CPU can use the other core.
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import type { Worker } from 'node:worker_threads';
import { MESSAGE_YOUNG_GENERATION_MB, startWorkerThread } from '../threads';
import {
  type PgliteReply,
  type PgliteRequest,
  type PgliteStartup,
  type PgliteThreadData,
  errorOf,
} from './pglite-protocol';

// Distributes Omit over the union, so each request keeps its own fields.
type Unnumbered<T> = T extends unknown ? Omit<T, 'id'> : never;

export class PgliteThread {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(r: PgliteReply): void; reject(err: Error): void }>();
  private stopped: Error | undefined;

  private constructor(
    private readonly worker: Worker,
    private readonly onStopped: ((err: Error) => void) | undefined,
  ) {
    worker.on('message', (reply: PgliteReply) => {
      const waiter = this.pending.get(reply.id);
      if (!waiter) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      waiter.resolve(reply);
    });
    const failed = (err: Error) => {
      if (this.stopped) return;
      this.stop(err);
      this.onStopped?.(err);
    };
    worker.on('error', (err) => failed(new Error(`the embedded database thread failed: ${err.message}`)));
    worker.on('exit', () => failed(new Error('the embedded database thread has stopped')));
  }

  /**
   * Starts the thread and opens the database in it (`dataDir` must hold a cluster already). `onStopped`
   * hears once of a thread that fails or exits while open (not of `close`): the service cannot go on
   * without its database.
   */
  static async start(
    data: PgliteThreadData,
    { onStopped, heapMb }: { onStopped?: (err: Error) => void; heapMb?: number } = {},
  ): Promise<PgliteThread> {
    // WebAssembly compiled by Liftoff alone (ADR 0043): V8's optimising compiler, run on the functions of the
    // WASM PostgreSQL that get hot, left ~35–55 MB of freed compiler memory in malloc's arenas for good, and
    // statements ran no faster for it. The flag is the process's; its other WebAssembly (libxml2's XSD
    // validation) runs on Liftoff too.
    setFlagsFromString('--liftoff-only');
    const worker = startWorkerThread(
      // dist/pglite-worker.js beside each app's main.js (infra/docker/tsup.config.base.ts), or the source.
      { built: join(__dirname, 'pglite-worker.js'), source: join(__dirname, 'pglite-worker.ts') },
      // PGlite's memory is WebAssembly's; this thread's own garbage is a statement's messages and rows.
      {
        workerData: data,
        resourceLimits: {
          maxYoungGenerationSizeMb: MESSAGE_YOUNG_GENERATION_MB,
          ...(heapMb ? { maxOldGenerationSizeMb: heapMb } : {}),
        },
      },
    );
    const exited = (code: number) => new Error(`the embedded database thread exited (${code}) while opening`);
    let onError: (err: Error) => void = () => undefined;
    let onExit: (code: number) => void = () => undefined;
    const startup = await new Promise<PgliteStartup>((resolve, reject) => {
      onError = reject;
      onExit = (code) => reject(exited(code));
      worker.once('message', resolve);
      worker.once('error', onError);
      worker.once('exit', onExit);
    }).finally(() => {
      // Only ours: the Worker's own listeners (which start and stop its port) must stay.
      worker.off('error', onError);
      worker.off('exit', onExit);
    });
    if (!startup.ready) {
      await worker.terminate();
      throw errorOf(startup.failure);
    }
    worker.unref();
    return new PgliteThread(worker, onStopped);
  }

  /** Sends one request; resolves with its reply's rows, rejects with the database's error. */
  async send(request: Unnumbered<PgliteRequest>): Promise<{ rows: unknown[]; rowCount: number }> {
    if (this.stopped) throw this.stopped;
    const id = this.nextId++;
    const reply = await new Promise<PgliteReply>((resolve, reject) => {
      // Keeps the process alive while the database works for it; an idle thread does not.
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...request, id } as PgliteRequest);
    });
    if (!reply.ok) throw errorOf(reply.failure);
    return { rows: reply.rows ?? [], rowCount: reply.rowCount ?? 0 };
  }

  async close(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.send({ op: 'close' });
    } finally {
      this.stop(new Error('the embedded database is closed'));
      await this.worker.terminate();
    }
  }

  private stop(err: Error): void {
    if (this.stopped) return;
    this.stopped = err;
    for (const waiter of this.pending.values()) waiter.reject(err);
    this.pending.clear();
  }
}
