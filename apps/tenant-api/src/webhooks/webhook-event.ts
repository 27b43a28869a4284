// The event a tenant receives: the spec's Events payload with folioId = clave, plus clave and estado.
import { randomBytes } from 'node:crypto';
import { ESTADOS_FINALES, type EstadoFinal, type FolioType, type WebhookEventPayload } from '@cr/contracts';

export const WEBHOOK_QUEUE = 'webhook.deliver';

/** Payload of a `webhook.deliver` job (S's final-state enqueue gives the first two; replays name the event). */
export interface WebhookJobPayload {
  tenantId: string;
  documentId: string;
  /** Set by replays so the request can answer with the id the receiver will see. */
  eventId?: string;
  /**
   * An event that is not a document's final state (`recepcion.deadline`): delivered as given, recorded
   * under `documentId` (then the received document's id).
   */
  event?: { type: string; clave: string; body: unknown };
}

export function isFinalState(estado: string): estado is EstadoFinal {
  return (ESTADOS_FINALES as readonly string[]).includes(estado);
}

/** A new webhook-id: `msg_` and 128 random bits. */
export function newEventId(): string {
  return `msg_${randomBytes(16).toString('hex')}`;
}

const xmlFile = (xml: string) => ({
  fileType: 'XML' as const,
  encodedFile: Buffer.from(xml, 'utf8').toString('base64'),
});

export function buildEventPayload(doc: {
  clave: string;
  estado: EstadoFinal;
  respuesta_xml: string | null;
  clave_recibida?: string | null;
  xml?: string;
  /** The request's folioType (documents stored before it existed read INVOICE). */
  folio_type?: FolioType;
  /** An accepted document's PDF (the bytes of GET /api/descargar/{clave}/pdf): the last entry. */
  pdf?: Buffer;
}): WebhookEventPayload {
  const answer = doc.respuesta_xml === null ? [] : [xmlFile(doc.respuesta_xml)];
  if (doc.clave_recibida) {
    // A receiver's answer: the signed MensajeReceptor first, then Hacienda's answer to it.
    return {
      folioId: doc.clave,
      folioType: 'RECEIVER_MESSAGE',
      folioDetails: [...(doc.xml ? [xmlFile(doc.xml)] : []), ...answer],
      clave: doc.clave_recibida,
      estado: doc.estado,
    };
  }
  const pdf = doc.pdf ? [{ fileType: 'PDF' as const, encodedFile: doc.pdf.toString('base64') }] : [];
  return {
    folioId: doc.clave,
    folioType: doc.folio_type ?? 'INVOICE',
    folioDetails: [...answer, ...pdf],
    clave: doc.clave,
    estado: doc.estado,
  };
}
