// An enviado document that recepción does not know (GET answers 404, "No existe el recurso"): Hacienda never
// stored it, e.g. a gateway in front of recepción answered the POST with a 2xx page of its own. Polling it
// would go on for ever, so it is put back to `pendiente` with a submission job of its own, which posts the same
// signed XML again: a duplicate is safe, since Hacienda answers "ya fue recibido" and the document is enviado
// again (the status check brought forward by recordEnviado).
//
// Not at once: Hacienda may take a moment to show a document it has just received (REFERENCE §4.3 leaves
// the cadence open; its `recibido` state exists for that moment), so only a document whose last submission
// (`updated_at`: every POST's answer is counted on the row, and nothing else touches an enviado row) is at
// least RESUBMIT_AFTER_MS old goes back. That also bounds a document that keeps answering 404 after its
// re-post: at most one POST per RESUBMIT_AFTER_MS, and in practice one per status check once the checks are
// at their cap (an hour), as the check that follows a re-post finds it young and only backs off.
//
// One statement with the status job's record (ADR 0034, 0048): the conditional UPDATE is the claim (two checks
// of one document meet at its row lock and only one moves it), and the job is added only from its RETURNING.
// The history keeps one event per estado (UNIQUE (document_id, estado)), so the move adds none: it shows as the
// estado going back to pendiente and `intentos` growing, and is logged with its cause.
import { type JobContext, type JobResult, enqueueCtes, notifyJobsDue } from '@cr/jobs';
import { CteWrites } from '@cr/service-kit';
import { finishWithWrites } from '../db/finish-job';
import type { DocumentStatusRow } from '../documents/document-repository';
import { type DocumentJobPayload, SUBMIT_QUEUE } from '../documents/submit-document';
import type { SubmissionDeps } from '../documents/submission-deps';

/**
 * How long after its last submission an unknown document is posted again: well past any delay Hacienda takes
 * to show a document it received (seconds: it answers `recibido` meanwhile), so a 404 that is only that delay
 * never costs a POST, and a document that stays unknown is posted at most every ten minutes (hourly once its
 * checks are at their cap). While its re-post waits or retries the document is pendiente, which no status
 * check moves, so re-posts never pile up.
 */
export const RESUBMIT_AFTER_MS = 10 * 60_000;

/**
 * Records the status job's `result` for a 404 and, when the document's last submission is old enough, puts
 * it back to pendiente with a new submission job (keyed by this claim: the first one, `submit:<id>`, is done
 * for good). Returns `result`.
 */
export async function resubmitUnknown(
  deps: SubmissionDeps,
  job: { id: string; attempts: number; payload: DocumentJobPayload },
  context: Pick<JobContext, 'finishIn'>,
  doc: Pick<DocumentStatusRow, 'clave'>,
  result: JobResult,
  cause: string | undefined,
): Promise<JobResult> {
  const { tenantId, documentId } = job.payload;
  const w = new CteWrites();
  w.add(
    'moved',
    `UPDATE documents SET estado = 'pendiente', updated_at = now()
     WHERE tenant_id = ${w.param(tenantId)} AND id = ${w.param(documentId)} AND estado = 'enviado'
       AND updated_at <= now() - ${w.param(RESUBMIT_AFTER_MS)}::double precision * interval '1 millisecond'
     RETURNING tenant_id, id`,
  );
  const payload: DocumentJobPayload = { tenantId, documentId };
  const key = `submit:${documentId}:again:${job.id}.${job.attempts}`;
  w.include((first) => enqueueCtes({ queue: SUBMIT_QUEUE, tenant: tenantId, key, payload }, 'moved', first));
  w.select('moved', 'EXISTS (SELECT 1 FROM moved)');
  await finishWithWrites(deps.db, tenantId, context, result, w);
  if (w.selected<{ moved: boolean }>().moved === true) {
    // Workers re-poll briefly after a wake-up, so a nudge that arrives before the commit is not lost.
    notifyJobsDue(SUBMIT_QUEUE);
    deps.logger.warn('hacienda: recepción does not know an enviado document; submitting it again', {
      tenantId,
      documentId,
      clave: doc.clave,
      cause: cause ?? 'recepción answered 404',
    });
  }
  return result;
}
