// State transitions of a document, each one statement (its tenant transaction's whole) with what follows from
// it and the outcome of the job that made it: enviado enqueues the status follow-up; a final state stores
// Hacienda's answer, logs the event and enqueues the webhook event (and, once accepted, the receptor's e-mail).
// The conditional UPDATE and the unique (document, estado) event make a replayed job change nothing.
import {
  HaciendaXmlError,
  type SignatureFinding,
  type TrustedSigner,
  readMensajeHacienda,
} from '@cr/hacienda-xml';
import { type JobContext, jobResult, reschedule } from '@cr/jobs';
import { metrics } from '@cr/service-kit';
import { finishWithWrites } from '../db/finish-job';
import { MAIL_QUEUE, type MailJobPayload, RECEIVER_MESSAGES, newMessageId } from '../delivery/mail-deps';
import {
  type FinalEstado,
  type FinalValues,
  type TransitionJob,
  enviadoWrites,
  finalWrites,
} from '../documents/document-repository';
import { STATUS_QUEUE, type DocumentJobPayload } from '../documents/submit-document';
import type { SubmissionDeps } from '../documents/submission-deps';

export const WEBHOOK_QUEUE = 'webhook.deliver';

export const STATUS_KEY_PREFIX = 'status:';

export function statusJobKey(documentId: string): string {
  return `${STATUS_KEY_PREFIX}${documentId}`;
}

export interface TransitionOptions {
  /**
   * The job that makes the transition: it records itself done in the transition's statement
   * (JobContext.finishIn), so the two commit together and cost one round trip.
   */
  job?: Pick<JobContext, 'finishIn'>;
  /** The submission recepción just answered is counted in the same statement. */
  submitAttempt?: boolean;
}

export async function recordEnviado(
  deps: SubmissionDeps,
  payload: DocumentJobPayload,
  firstCheckAt: Date,
  detalle: string,
  options: TransitionOptions = {},
): Promise<void> {
  const { tenantId, documentId } = payload;
  const key = statusJobKey(documentId);
  const statusJob: TransitionJob = {
    job: { queue: STATUS_QUEUE, tenant: tenantId, key, payload, runAt: firstCheckAt },
    evenIfUnchanged: true,
  };
  const change = enviadoWrites(tenantId, documentId, detalle, statusJob, options.submitAttempt);
  await finishWithWrites(deps.db, tenantId, options.job ?? {}, jobResult.done(), change.writes);
  const { added, tipoDoc } = change.after();
  if (tipoDoc) metrics.documents.transitions.inc({ kind: tipoDoc, state: 'enviado' });
  // The job already existed: Hacienda's callback came before this commit, so check now.
  if (!added) await reschedule(deps.db, { key });
}

/** Returns whether this call made the transition (false: it had already happened). */
export async function recordFinal(
  deps: SubmissionDeps,
  payload: DocumentJobPayload,
  values: FinalValues,
  detalle: string,
  options: TransitionOptions = {},
): Promise<boolean> {
  const { tenantId, documentId } = payload;
  const then: TransitionJob[] = [
    {
      job: {
        queue: WEBHOOK_QUEUE,
        tenant: tenantId,
        key: `webhook:${documentId}:${values.estado}`,
        payload: { tenantId, documentId },
      },
    },
  ];
  // The receptor's e-mail; the job decides whether there is anyone to write to. A receiver's answer to a
  // supplier's document (RECEIVER_MESSAGES) is not mailed.
  if (values.estado === 'aceptado') {
    const mail: MailJobPayload = { tenantId, documentId, messageId: newMessageId(), reason: 'aceptado' };
    then.push({
      job: { queue: MAIL_QUEUE, tenant: tenantId, key: `mail:${documentId}:aceptado`, payload: mail },
      unlessTipoDoc: RECEIVER_MESSAGES,
    });
  }
  const change = finalWrites(tenantId, documentId, values, detalle, then, options.submitAttempt);
  await finishWithWrites(deps.db, tenantId, options.job ?? {}, jobResult.done(), change.writes);
  const tipoDoc = change.after();
  const changed = tipoDoc !== undefined;
  if (changed) {
    metrics.documents.transitions.inc({ kind: tipoDoc, state: values.estado });
    deps.logger.info('document final state', { tenantId, documentId, estado: values.estado });
    deps.wakeWorker?.();
  }
  return changed;
}

export type Respuesta = Pick<FinalValues, 'mensaje' | 'detalle' | 'totales'> & {
  verificacion: { valid: boolean; findings: SignatureFinding[] };
};

/**
 * With a pinned CA bundle a verdict stands only on a MensajeHacienda that verifies (Hacienda's seal, chained
 * to the bundle, naming this clave); returns why not. `error` carries no MensajeHacienda.
 */
export function unverifiedVerdict(estado: FinalEstado, respuesta: Respuesta | undefined): string | undefined {
  if (estado === 'error') return undefined;
  if (!respuesta) return `Hacienda answered ${estado} without its MensajeHacienda`;
  if (respuesta.verificacion.valid) return undefined;
  const errors = respuesta.verificacion.findings.filter((f) => f.severity === 'error');
  return `the MensajeHacienda does not verify: ${errors.map((f) => `${f.code}: ${f.message}`).join('; ')}`;
}

/**
 * Reads Hacienda's MensajeHacienda: its Mensaje, findings and totals, and the verification of its signature
 * (kept with its findings; a bad signature is recorded, not hidden), against `trust` when it is given.
 */
export function readRespuesta(xml: string, clave: string, trust?: TrustedSigner): Respuesta {
  try {
    const { message, verification } = readMensajeHacienda(xml, trust ? { trust } : {});
    const findings = [...verification.findings];
    if (message.clave !== clave) {
      findings.push({
        severity: 'error',
        code: 'clave_mismatch',
        message: `MensajeHacienda names clave ${message.clave}`,
      });
    }
    return {
      mensaje: message.mensaje,
      detalle: message.detalles,
      verificacion: { valid: verification.valid && message.clave === clave, findings },
      totales: {
        ...(message.montoTotalImpuesto !== undefined
          ? { montoTotalImpuesto: message.montoTotalImpuesto }
          : {}),
        totalFactura: message.totalFactura,
      },
    };
  } catch (err) {
    if (err instanceof HaciendaXmlError) {
      return {
        verificacion: {
          valid: false,
          findings: [{ severity: 'error', code: err.code, message: err.message }],
        },
      };
    }
    throw err;
  }
}
