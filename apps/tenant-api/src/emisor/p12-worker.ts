// Worker thread of the P12Pool: opens one .p12 at a time with node-forge, off the event loop. The pool
// terminates this thread when an opening outlives its time limit, so a costly file freezes nothing else.
import { parentPort } from 'node:worker_threads';
import { CertificateError, openCertificate } from './certificate';
import type { P12Failure } from './p12-pool';

export interface P12Request {
  p12: Uint8Array;
  pin: string;
}

// Loaded: from now on the pool's time limit measures openings only, not the thread's start.
parentPort?.postMessage({ ready: true });
parentPort?.on('message', ({ p12, pin }: P12Request) => {
  try {
    const cert = openCertificate(Buffer.from(p12), pin);
    parentPort!.postMessage({ ok: true, value: cert });
  } catch (err) {
    const known = err instanceof CertificateError;
    const failure: P12Failure = {
      code: known ? err.code : 'invalid_p12',
      message: known ? err.message : 'is not a readable PKCS#12 (.p12) file',
    };
    parentPort!.postMessage({ ok: false, failure });
  }
});
