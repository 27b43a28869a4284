// Opens issuers' .p12 files off the event loop: a pool of worker threads (P12_THREADS), each opening one file
// at a time under a hard time limit (P12_OPEN_TIMEOUT_MS) after which its thread is terminated and replaced.
// Iteration counts are checked first, here, so a file asking for billions of rounds never reaches a thread.
// Tenants' requests, the jobs and /health keep running while a file is opened. A thread left idle for
// P12_IDLE_MS (5 s) ends: each holds a V8 isolate of its own (two idle threads after a few openings ≈ 38 MB of
// RSS), and files are opened rarely (a registration, an update, a signing-material cache miss); starting one
// again and opening a file takes ≈ 85 ms. The thread's bundle holds only node-forge and the opening code
// (@cr/hacienda-xml is free of side effects, so the rest of the engine is left out of it).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { p12IterationProblem } from '@cr/hacienda-xml';
import type { Logger } from '@cr/service-kit';
import { CertificateError, type CertificateErrorCode, type OpenedCertificate } from './certificate';

/** What the issuer use cases and the signing-material loader open certificates with. */
export interface CertificateOpener {
  /** Resolves the opened certificate or rejects with a CertificateError (the reason a 400 shows). */
  open(p12: Buffer, pin: string): Promise<OpenedCertificate>;
}

export interface P12PoolOptions {
  threads: number;
  timeoutMs: number;
  /** An idle thread ends after this long without work; the next opening starts one again. */
  idleMs: number;
  logger?: Logger;
}

interface Task {
  p12: Buffer;
  pin: string;
  resolve(cert: OpenedCertificate): void;
  reject(err: Error): void;
}

type Reply =
  | { ready: true; ok?: undefined }
  | { ok: true; cert: OpenedCertificate }
  | { ok: false; code: CertificateErrorCode; message: string };

/**
 * Buffers come back from a thread as plain Uint8Arrays, and Dates are rebuilt here so they belong to this
 * realm (a test runner's sandbox checks `instanceof Date`).
 */
function revive(cert: OpenedCertificate): OpenedCertificate {
  const der = cert.certificateDer as Uint8Array;
  return {
    ...cert,
    certificateDer: Buffer.from(der.buffer, der.byteOffset, der.byteLength),
    notBefore: new Date(cert.notBefore.getTime()),
    notAfter: new Date(cert.notAfter.getTime()),
  };
}

/** The built worker beside the bundle (dist/p12-worker.js), or the TypeScript source through tsx. */
function startThread(): Worker {
  const built = join(__dirname, 'p12-worker.js');
  if (existsSync(built)) return new Worker(built);
  const source = join(__dirname, 'p12-worker.ts');
  const tsx = require.resolve('tsx/cjs/api');
  return new Worker(`require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(source)});`, {
    eval: true,
  });
}

export class P12Pool implements CertificateOpener {
  private readonly idle: Worker[] = [];
  /** Threads still loading; they take work once they say they are ready. */
  private readonly starting = new Set<Worker>();
  private readonly busy = new Map<Worker, { task: Task; timer: NodeJS.Timeout }>();
  private readonly queue: Task[] = [];
  /** When each idle thread retires. */
  private readonly retirements = new Map<Worker, NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly options: P12PoolOptions) {}

  open(p12: Buffer, pin: string): Promise<OpenedCertificate> {
    const tooMany = p12IterationProblem(p12);
    if (tooMany) return Promise.reject(new CertificateError('too_many_iterations', tooMany));
    if (this.closed) return Promise.reject(new Error('the certificate pool is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ p12, pin, resolve, reject });
      this.pump();
    });
  }

  /** Terminates every thread; queued openings are refused. */
  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) task.reject(new Error('the certificate pool is closed'));
    for (const timer of this.retirements.values()) clearTimeout(timer);
    this.retirements.clear();
    const threads = [...this.idle.splice(0), ...this.busy.keys(), ...this.starting];
    this.starting.clear();
    for (const { task, timer } of this.busy.values()) {
      clearTimeout(timer);
      task.reject(new Error('the certificate pool is closed'));
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
      this.run(thread, this.queue.shift()!);
    }
  }

  private size(): number {
    return this.idle.length + this.busy.size + this.starting.size;
  }

  /** Threads alive now (starting, idle or busy). */
  get threadCount(): number {
    return this.size();
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
    const thread = startThread();
    thread.unref();
    this.starting.add(thread);
    thread.on('message', (reply: Reply) => this.settle(thread, reply));
    thread.on('error', (err) => this.fail(thread, err));
    thread.on('exit', () => this.fail(thread, new Error('the certificate thread exited')));
  }

  private run(thread: Worker, task: Task): void {
    const timer = setTimeout(() => {
      this.options.logger?.warn('a .p12 took too long to open: its thread was terminated', {
        timeoutMs: this.options.timeoutMs,
      });
      this.busy.delete(thread);
      void thread.terminate();
      task.reject(
        new CertificateError(
          'open_timeout',
          `could not be opened within ${this.options.timeoutMs} ms (its key derivation is too costly)`,
        ),
      );
      this.pump();
    }, this.options.timeoutMs);
    this.busy.set(thread, { task, timer });
    thread.postMessage({ p12: task.p12, pin: task.pin });
  }

  private settle(thread: Worker, reply: Reply): void {
    if (reply.ok === undefined) {
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
    if (reply.ok) current.task.resolve(revive(reply.cert));
    else current.task.reject(new CertificateError(reply.code, reply.message));
    this.pump();
  }

  private fail(thread: Worker, err: Error): void {
    if (this.starting.delete(thread)) {
      // A thread that cannot even load would fail every opening: refuse what waits, loudly.
      this.options.logger?.error('a certificate thread could not start', { error: err.message });
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
    this.options.logger?.error('a certificate thread failed', { error: err.message });
    current.task.reject(err);
    this.pump();
  }
}
