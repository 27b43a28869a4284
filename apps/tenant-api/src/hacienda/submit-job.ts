// Job `hacienda.submit`: POST the signed comprobante to recepción. 2xx or "ya fue recibido" → enviado and
// the status follow-up; any other 400 → error (X-Error-Cause kept); 401 → a fresh token and one more try;
// 429/5xx/timeouts/network → retried on the backoff without an end (a signed document must get there),
// within the issuer's limit of 100 submissions per minute; a 429 waits the longer of its Retry-After and the
// backoff, never beyond the schedule's longest step.
import { TIPOS_IDENTIFICACION_NACIONAL } from '@cr/contracts';
import type { SubmitOutcome, SubmitRequest } from '@cr/hacienda-client';
import { KIND_RULES } from '@cr/hacienda-xml';
import { type Job, type JobContext, type JobResult, jobResult } from '@cr/jobs';
import { finishWithWrites } from '../db/finish-job';
import { ONE_STATEMENT, withTenant } from '../db/with-tenant';
import { type DocumentRow, findDocumentById, submitAttemptWrites } from '../documents/document-repository';
import { type DocumentJobPayload, callbackSecretContext } from '../documents/submit-document';
import { type SubmissionDeps, schedulesOf } from '../documents/submission-deps';
import { accessTokenFor, retryOnSchedule, tokenKeyOf } from './hacienda-access';
import { retryAfterRateLimit } from './rate-limited-retry';
import { recordEnviado, recordFinal } from './record-transitions';

function describeOutcome(out: SubmitOutcome): string {
  const cause = 'cause' in out && out.cause ? `: ${out.cause}` : '';
  const status = 'status' in out ? ` ${out.status}` : '';
  return `recepcion ${out.kind}${status}${cause}`;
}

/**
 * The receptors POST /recepcion names: national ids. Its JSON schema takes `numeroIdentificacion` up to 12
 * characters, a foreign one (05) up to 20 (REFERENCE §4.2), so a document to a foreign receptor is posted
 * as a ticket without one is; the XML names it.
 */
const NATIONAL_IDS: ReadonlySet<string> = new Set(TIPOS_IDENTIFICACION_NACIONAL);

/**
 * Hacienda's POST body for a stored document. A receiver's answer (MensajeReceptor) is posted under the
 * answered document's clave, with the supplier as emisor, us as receptor and the message's consecutivo
 * (REFERENCE §4.2). A factura de compra is posted as its XML reads: the supplier (stored as the
 * counterparty) as emisor, us as receptor (docs/decisions/0010).
 */
export function submissionOf(doc: DocumentRow): Omit<SubmitRequest, 'token' | 'callbackUrl'> {
  const comprobanteXml = Buffer.from(doc.xml, 'utf8').toString('base64');
  const us = { tipoIdentificacion: doc.emisor_tipo, numeroIdentificacion: doc.emisor };
  if (doc.clave_recibida || doc.tipo_doc === KIND_RULES['8'].tipoDoc) {
    return {
      clave: doc.clave_recibida ?? doc.clave,
      fecha: doc.fecha_emision_text,
      emisor: {
        tipoIdentificacion: doc.receptor_tipo ?? '',
        numeroIdentificacion: doc.receptor_numero ?? '',
      },
      receptor: us,
      ...(doc.clave_recibida ? { consecutivoReceptor: doc.consecutivo } : {}),
      comprobanteXml,
    };
  }
  return {
    clave: doc.clave,
    fecha: doc.fecha_emision_text,
    emisor: us,
    ...(doc.receptor_tipo && NATIONAL_IDS.has(doc.receptor_tipo) && doc.receptor_numero
      ? { receptor: { tipoIdentificacion: doc.receptor_tipo, numeroIdentificacion: doc.receptor_numero } }
      : {}),
    comprobanteXml,
  };
}

export function callbackUrlFor(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/hacienda/callback/${token}`;
}

export async function runSubmitJob(
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
    (tx) => findDocumentById(tx, tenantId, documentId),
    ONE_STATEMENT,
  );
  if (!doc) return jobResult.fail(`document ${documentId} not found`);
  if (doc.estado !== 'pendiente') return jobResult.done();

  const limit = deps.hacienda.submissions.tryAcquire(`${tenantId}/${doc.emisor}`);
  if (!limit.ok) {
    return jobResult.retryAt(new Date(now.getTime() + limit.retryAfterMs), 'issuer submission limit');
  }
  const key = tokenKeyOf(tenantId, doc);
  const token = deps.secrets.openText(doc.callback_token_sealed, callbackSecretContext(tenantId, documentId));
  const recepcion = deps.hacienda.recepcion(key.ambiente);
  let refreshed = false;
  for (;;) {
    const access = await accessTokenFor(deps, job, doc, now, schedules.submit);
    if ('result' in access) return access.result;
    const out = await recepcion.submit({
      token: access.token,
      ...submissionOf(doc),
      callbackUrl: callbackUrlFor(deps.publicUrl, token),
    });
    if (out.kind === 'accepted' || out.kind === 'alreadyReceived') {
      await recordEnviado(
        deps,
        job.payload,
        new Date(context.now().getTime() + schedules.firstStatusMs),
        describeOutcome(out),
        { submitAttempt: true, job: context },
      );
      return jobResult.done();
    }
    // Every other answer is an attempt too, counted in the transaction that records what follows from it (a
    // process that dies between the POST and that write leaves one attempt uncounted: `intentos` is what the
    // records show, not a guarantee).
    const countedRetry = async (result: JobResult): Promise<JobResult> => {
      await finishWithWrites(deps.db, tenantId, context, result, submitAttemptWrites(tenantId, documentId));
      return result;
    };
    switch (out.kind) {
      case 'rejected':
        await recordFinal(
          deps,
          job.payload,
          { estado: 'error', errorCause: out.cause ?? 'recepción answered 400 without X-Error-Cause' },
          describeOutcome(out),
          { submitAttempt: true, job: context },
        );
        return jobResult.done();
      case 'unauthorized':
        deps.hacienda.tokens.invalidate(key);
        if (!refreshed) {
          refreshed = true;
          const counted = submitAttemptWrites(tenantId, documentId);
          await withTenant(deps.db, tenantId, (tx) => counted.run(tx), ONE_STATEMENT);
          continue;
        }
        return countedRetry(retryOnSchedule(now, job.attempts, schedules.submit, describeOutcome(out)));
      case 'rateLimited':
        // Capped at the schedule's longest step, the wait between tries at the end of the schedule: a signed
        // document must get there, and a retry inside a longer block costs one more 429, nothing else.
        return countedRetry(
          retryAfterRateLimit(
            now,
            job.attempts,
            schedules.submit,
            out.retryAfterMs,
            Math.max(...schedules.submit),
            describeOutcome(out),
          ),
        );
      default:
        return countedRetry(retryOnSchedule(now, job.attempts, schedules.submit, describeOutcome(out)));
    }
  }
}
