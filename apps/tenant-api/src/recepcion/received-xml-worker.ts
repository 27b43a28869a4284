// Worker thread of the ReceivedXmlPool: runs the XML checks of one supplier's upload at a time, off the
// event loop. The pool terminates this thread when a check outlives its time limit.
import { parentPort, workerData } from 'node:worker_threads';
import { trustedSigner } from '@cr/hacienda-xml';
import { AppError } from '@cr/service-kit';
import { type ReceivedXmlInput, type ReceivedXmlTrust, checkReceivedXml } from './received-xml-checks';
import type { PinnedBundle, ReceivedXmlFailure, ReceivedXmlWorkerData } from './received-xml-pool';

// The bundles were read and checked when the service started; here they are only parsed again.
const signer = (bundle: PinnedBundle | undefined) =>
  bundle ? trustedSigner(bundle.pem, bundle.signerId) : undefined;
const data = (workerData ?? {}) as ReceivedXmlWorkerData;
const hacienda = signer(data.hacienda);
const suppliers = signer(data.suppliers);
const trust: ReceivedXmlTrust = { ...(hacienda ? { hacienda } : {}), ...(suppliers ? { suppliers } : {}) };

// Loaded: from now on the pool's time limit measures checks only, not the thread's start.
parentPort?.postMessage({ ready: true });
parentPort?.on('message', (input: ReceivedXmlInput) => {
  try {
    parentPort!.postMessage({ ok: true, value: checkReceivedXml(input, trust) });
  } catch (err) {
    const failure: ReceivedXmlFailure =
      err instanceof AppError && err.status === 400
        ? {
            refused: true,
            message: err.message,
            ...(err.details === undefined ? {} : { details: err.details }),
          }
        : { refused: false, message: (err as Error).message ?? String(err) };
    parentPort!.postMessage({ ok: false, failure });
  }
});
