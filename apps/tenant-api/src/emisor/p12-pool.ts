// Opens issuers' .p12 files off the event loop: a pool of worker threads (P12_THREADS), each opening one file
// at a time under a hard time limit (P12_OPEN_TIMEOUT_MS) after which its thread is terminated and replaced.
// Iteration counts are checked first, here, so a file asking for billions of rounds never reaches a thread.
// Tenants' requests, the jobs and /health keep running while a file is opened. A thread left idle for
// P12_IDLE_MS (5 s) ends: each holds a V8 isolate of its own (two idle threads after a few openings ≈ 38 MB of
// RSS), and files are opened rarely (a registration, an update, a signing-material cache miss); starting one
// again and opening a file takes ≈ 85 ms. The thread's bundle holds only node-forge and the opening code
// (@cr/hacienda-xml is free of side effects, so the rest of the engine is left out of it).
import { join } from 'node:path';
import { p12IterationProblem } from '@cr/hacienda-xml';
import type { Logger } from '@cr/service-kit';
import { ThreadPool } from '../threads/thread-pool';
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

/** Why a thread could not open a file: the reason the issuer's 400 shows. */
export interface P12Failure {
  code: CertificateErrorCode;
  message: string;
}

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

export class P12Pool implements CertificateOpener {
  private readonly pool: ThreadPool<OpenedCertificate, P12Failure>;

  constructor(options: P12PoolOptions) {
    this.pool = new ThreadPool({
      name: 'certificate',
      // Beside the bundle (dist/p12-worker.js), or the TypeScript source through tsx.
      script: { built: join(__dirname, 'p12-worker.js'), source: join(__dirname, 'p12-worker.ts') },
      threads: options.threads,
      timeoutMs: options.timeoutMs,
      idleMs: options.idleMs,
      timeoutError: () =>
        new CertificateError(
          'open_timeout',
          `could not be opened within ${options.timeoutMs} ms (its key derivation is too costly)`,
        ),
      failureError: (failure) => new CertificateError(failure.code, failure.message),
      ...(options.logger ? { logger: options.logger } : {}),
    });
  }

  async open(p12: Buffer, pin: string): Promise<OpenedCertificate> {
    const tooMany = p12IterationProblem(p12);
    if (tooMany) throw new CertificateError('too_many_iterations', tooMany);
    return revive(await this.pool.run({ p12, pin }));
  }

  /** Threads alive now (starting, idle or busy). */
  get threadCount(): number {
    return this.pool.threadCount;
  }

  /** Terminates every thread; queued openings are refused. */
  close(): Promise<void> {
    return this.pool.close();
  }
}
