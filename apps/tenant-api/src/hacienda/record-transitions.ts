// State transitions of a document, each in one transaction with what follows from it: enviado enqueues the
// status follow-up; a final state stores Hacienda's answer, logs the event and enqueues the webhook event.
// The conditional UPDATE and the unique (document, estado) event make a replayed job change nothing.
import { HaciendaXmlError, readMensajeHacienda } from '@cr/hacienda-xml';
import { enqueue, reschedule } from '@cr/jobs';
import { metrics } from '@cr/service-kit';
import { withTenant } from '../db/with-tenant';
import { type FinalValues, appendEvent, markEnviado, markFinal } from '../documents/document-repository';
import { STATUS_QUEUE, type DocumentJobPayload } from '../documents/submit-document';
import type { SubmissionDeps } from '../documents/submission-deps';

export const WEBHOOK_QUEUE = 'webhook.deliver';

export function statusJobKey(documentId: string): string {
  return `status:${documentId}`;
}

export async function recordEnviado(
  deps: SubmissionDeps,
  payload: DocumentJobPayload,
  firstCheckAt: Date,
  detalle: string,
): Promise<void> {
  const { tenantId, documentId } = payload;
  const key = statusJobKey(documentId);
  const { added, tipoDoc } = await withTenant(deps.db, tenantId, async (tx) => {
    const changed = await markEnviado(tx, tenantId, documentId);
    if (changed) await appendEvent(tx, tenantId, documentId, 'enviado', detalle);
    const job = await enqueue(tx, { queue: STATUS_QUEUE, key, payload, runAt: firstCheckAt });
    return { added: job, tipoDoc: changed };
  });
  if (tipoDoc) metrics.documents.transitions.inc({ kind: tipoDoc, state: 'enviado' });
  // The job already existed: Hacienda's callback came before this commit, so check now.
  if (!added.created) await reschedule(deps.db, { key });
}

/** Returns whether this call made the transition (false: it had already happened). */
export async function recordFinal(
  deps: SubmissionDeps,
  payload: DocumentJobPayload,
  values: FinalValues,
  detalle: string,
): Promise<boolean> {
  const { tenantId, documentId } = payload;
  const tipoDoc = await withTenant(deps.db, tenantId, async (tx) => {
    const changed = await markFinal(tx, tenantId, documentId, values);
    if (!changed) return undefined;
    await appendEvent(tx, tenantId, documentId, values.estado, detalle);
    await enqueue(tx, {
      queue: WEBHOOK_QUEUE,
      key: `webhook:${documentId}:${values.estado}`,
      payload: { tenantId, documentId },
    });
    return changed;
  });
  const changed = tipoDoc !== undefined;
  if (changed) {
    metrics.documents.transitions.inc({ kind: tipoDoc, state: values.estado });
    deps.logger.info('document final state', { tenantId, documentId, estado: values.estado });
    deps.wakeWorker?.();
  }
  return changed;
}

/**
 * Reads Hacienda's MensajeHacienda: its Mensaje, findings and totals, and the verification of its signature
 * (kept with its findings; a bad signature is recorded, not hidden).
 */
export function readRespuesta(
  xml: string,
  clave: string,
): Pick<FinalValues, 'mensaje' | 'detalle' | 'verificacion' | 'totales'> {
  try {
    const { message, verification } = readMensajeHacienda(xml);
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
