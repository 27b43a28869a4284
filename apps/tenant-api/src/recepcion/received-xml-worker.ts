// Worker thread of the ReceivedXmlPool: runs the XML checks of one supplier's upload at a time, off the
// event loop. The pool terminates this thread when a check outlives its time limit.
import { parentPort } from 'node:worker_threads';
import { AppError } from '@cr/service-kit';
import { type ReceivedXmlInput, checkReceivedXml } from './received-xml-checks';
import type { ReceivedXmlFailure } from './received-xml-pool';

// Loaded: from now on the pool's time limit measures checks only, not the thread's start.
parentPort?.postMessage({ ready: true });
parentPort?.on('message', (input: ReceivedXmlInput) => {
  try {
    parentPort!.postMessage({ ok: true, value: checkReceivedXml(input) });
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
