// Job `hacienda.status`: GET recepción/{clave} until aceptado, rechazado or error, on the backoff (2 s, 5 s,
// 15 s, 1 min, 5 min, … capped at 1 h); Hacienda's callback only brings the next check forward. A 429 waits
// the longer of its Retry-After and the backoff, never beyond the cap. A 404 (Hacienda never stored it) puts
// the document back to be submitted again once its last submission is old enough (resubmission.ts). A final
// state stores the MensajeHacienda (signature verified, findings kept), its Mensaje, DetalleMensaje lines
// and totals.
import { type StatusOutcome, isFinalEstado } from '@cr/hacienda-client';
import { type Job, type JobContext, type JobResult, jobResult } from '@cr/jobs';
import { ONE_STATEMENT, withTenant } from '../db/with-tenant';
import { type FinalEstado, findDocumentStatusById } from '../documents/document-repository';
import type { DocumentJobPayload } from '../documents/submit-document';
import { type SubmissionDeps, schedulesOf } from '../documents/submission-deps';
import { accessTokenFor, retryOnSchedule, tokenKeyOf } from './hacienda-access';
import { retryAfterRateLimit } from './rate-limited-retry';
import { readRespuesta, recordFinal, unverifiedVerdict } from './record-transitions';
import { resubmitUnknown } from './resubmission';

function describeOutcome(out: StatusOutcome): string {
  if (out.kind === 'found') return `recepcion ind-estado ${out.indEstado}`;
  const cause = 'cause' in out && out.cause ? `: ${out.cause}` : '';
  const status = 'status' in out ? ` ${out.status}` : '';
  return `recepcion ${out.kind}${status}${cause}`;
}

export async function runStatusJob(
  deps: SubmissionDeps,
  job: Job<DocumentJobPayload>,
  context: JobContext,
): Promise<JobResult> {
  const { tenantId, documentId } = job.payload;
  const schedules = schedulesOf(deps);
  const now = context.now();
  const doc = await withTenant(
    deps.db,
    tenantId,
    (tx) => findDocumentStatusById(tx, tenantId, documentId),
    ONE_STATEMENT,
  );
  if (!doc) return jobResult.fail(`document ${documentId} not found`);
  const later = (reason: string) =>
    retryOnSchedule(now, job.attempts, schedules.status, reason, schedules.statusCapMs);
  // Started early by a callback, or put back after a 404: wait for the submission job to record `enviado`
  // (it nudges this job).
  if (doc.estado === 'pendiente') return later('not yet recorded as enviado');
  if (doc.estado !== 'enviado') return jobResult.done();

  const key = tokenKeyOf(tenantId, doc);
  const access = await accessTokenFor(deps, job, doc, now, schedules.status);
  if ('result' in access) return access.result;
  const out = await deps.hacienda.recepcion(key.ambiente).status(access.token, doc.clave);
  if (out.kind === 'unauthorized') deps.hacienda.tokens.invalidate(key);
  if (out.kind === 'rateLimited') {
    const { status: schedule, statusCapMs: capMs } = schedules;
    return retryAfterRateLimit(now, job.attempts, schedule, out.retryAfterMs, capMs, describeOutcome(out));
  }
  if (out.kind === 'notFound') {
    return resubmitUnknown(deps, job, context, doc, later(describeOutcome(out)), out.cause);
  }
  if (out.kind !== 'found' || !isFinalEstado(out.indEstado)) return later(describeOutcome(out));

  const estado = out.indEstado.toLowerCase() as FinalEstado;
  const respuestaXml = out.respuestaXml
    ? Buffer.from(out.respuestaXml, 'base64').toString('utf8')
    : undefined;
  const respuesta =
    respuestaXml === undefined
      ? undefined
      : readRespuesta(respuestaXml, doc.clave_recibida ?? doc.clave, deps.haciendaTrust);
  const refused = deps.haciendaTrust ? unverifiedVerdict(estado, respuesta) : undefined;
  if (refused) {
    // Not Hacienda's word (forged, tampered or for another clave): the document stays enviado and the check
    // is repeated on the schedule, so Hacienda's genuine answer still lands once it can be fetched.
    deps.logger.error("Hacienda's answer refused: the document keeps its state", {
      tenantId,
      documentId,
      clave: doc.clave,
      estado,
      reason: refused,
    });
    return later(`answer refused: ${refused}`);
  }
  await recordFinal(
    deps,
    job.payload,
    { estado, ...(respuestaXml === undefined ? {} : { respuestaXml, ...respuesta }) },
    describeOutcome(out),
    { job: context },
  );
  return jobResult.done();
}
