// The XML checks of suppliers' uploads off the event loop: a ThreadPool running received-xml-checks.ts. A
// 2 MiB upload takes about half a second to parse and check; on the event loop every tenant's requests, the
// jobs and /health waited for it (docs/security.md, "Work that holds the event loop"). A check that outlives
// RECEPCION_CHECK_TIMEOUT_MS is refused (400) and its thread replaced, and so is one that needs more heap than
// RECEPCION_CHECK_HEAP_MB: a DOM costs far more than its text (2 MiB of tiny elements took over 256 MB), and
// two such uploads at once had taken the process past its container's memory limit, every tenant with it.
import { join } from 'node:path';
import type { TrustedSigner } from '@cr/hacienda-xml';
import { AppError, type Logger } from '@cr/service-kit';
import { ThreadPool } from '../threads/thread-pool';
import type { ReceivedXmlChecks, ReceivedXmlInput, ReceivedXmlTrust } from './received-xml-checks';

export interface ReceivedXmlChecker {
  /** The checks' verdict; rejects with AppError 400 for what cannot be stored. */
  check(input: ReceivedXmlInput): Promise<ReceivedXmlChecks>;
}

/** What a thread answers when the checks refuse the document (an AppError 400), or fail. */
export type ReceivedXmlFailure =
  | { refused: true; message: string; details?: Array<{ path: string; reason: string }> }
  | { refused: false; message: string };

export interface ReceivedXmlPoolOptions {
  threads: number;
  timeoutMs: number;
  idleMs: number;
  /** Each thread's old generation (MB): a document whose checks need more is refused (400). */
  heapMb: number;
  /** The pinned CAs the checks hold signatures to (none: the findings say the signers were not checked). */
  trust?: ReceivedXmlTrust;
  logger?: Logger;
}

/** A pinned bundle as a thread receives it: X509Certificate objects do not cross threads, their PEM does. */
export interface PinnedBundle {
  pem: string;
  signerId?: string;
}

/** The threads' `workerData`. */
export interface ReceivedXmlWorkerData {
  hacienda?: PinnedBundle;
  suppliers?: PinnedBundle;
}

function pinned(trust: TrustedSigner | undefined): PinnedBundle | undefined {
  if (!trust) return undefined;
  const pem = trust.anchors.map((a) => a.toString()).join('\n');
  return trust.signerId === undefined ? { pem } : { pem, signerId: trust.signerId };
}

function workerData(trust: ReceivedXmlTrust = {}): ReceivedXmlWorkerData {
  const hacienda = pinned(trust.hacienda);
  const suppliers = pinned(trust.suppliers);
  return { ...(hacienda ? { hacienda } : {}), ...(suppliers ? { suppliers } : {}) };
}

export class ReceivedXmlPool implements ReceivedXmlChecker {
  private readonly pool: ThreadPool<ReceivedXmlChecks, ReceivedXmlFailure>;

  constructor(options: ReceivedXmlPoolOptions) {
    this.pool = new ThreadPool({
      name: 'received XML',
      script: {
        built: join(__dirname, 'received-xml-worker.js'),
        source: join(__dirname, 'received-xml-worker.ts'),
      },
      threads: options.threads,
      timeoutMs: options.timeoutMs,
      idleMs: options.idleMs,
      workerData: workerData(options.trust),
      heap: {
        mb: options.heapMb,
        outOfMemoryError: () =>
          new AppError(
            'bad_request',
            `xml: needs more than ${options.heapMb} MB to be checked (RECEPCION_CHECK_HEAP_MB); refused`,
          ),
      },
      timeoutError: () =>
        new AppError('bad_request', `xml: could not be checked within ${options.timeoutMs} ms; refused`),
      failureError: (failure) =>
        failure.refused
          ? new AppError(
              'bad_request',
              failure.message,
              failure.details === undefined ? undefined : { details: failure.details },
            )
          : new Error(`the received XML checks failed: ${failure.message}`),
      ...(options.logger ? { logger: options.logger } : {}),
    });
  }

  check(input: ReceivedXmlInput): Promise<ReceivedXmlChecks> {
    return this.pool.run(input);
  }

  /** Threads alive now (starting, idle or busy). */
  get threadCount(): number {
    return this.pool.threadCount;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
