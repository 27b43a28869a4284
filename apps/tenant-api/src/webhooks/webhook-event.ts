// The event a tenant receives: the spec's Events payload with folioId = clave, plus clave and estado.
import { randomBytes } from 'node:crypto';
import { ESTADOS_FINALES, type EstadoFinal, type WebhookEventPayload } from '@cr/contracts';

export const WEBHOOK_QUEUE = 'webhook.deliver';

/** Payload of a `webhook.deliver` job (S's final-state enqueue gives the first two; replays name the event). */
export interface WebhookJobPayload {
  tenantId: string;
  documentId: string;
  /** Set by replays so the request can answer with the id the receiver will see. */
  eventId?: string;
}

export function isFinalState(estado: string): estado is EstadoFinal {
  return (ESTADOS_FINALES as readonly string[]).includes(estado);
}

/** A new webhook-id: `msg_` and 128 random bits. */
export function newEventId(): string {
  return `msg_${randomBytes(16).toString('hex')}`;
}

export function buildEventPayload(doc: {
  clave: string;
  estado: EstadoFinal;
  respuesta_xml: string | null;
}): WebhookEventPayload {
  return {
    folioId: doc.clave,
    folioType: 'INVOICE',
    folioDetails:
      doc.respuesta_xml === null
        ? []
        : [{ fileType: 'XML', encodedFile: Buffer.from(doc.respuesta_xml, 'utf8').toString('base64') }],
    clave: doc.clave,
    estado: doc.estado,
  };
}
