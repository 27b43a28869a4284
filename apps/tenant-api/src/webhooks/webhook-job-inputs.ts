// What a run of the webhook job reads before it sends, in one statement: the event this job froze on an
// earlier run, else the document to freeze it from (and the tenant's branding when the event carries the
// document's PDF: an accepted document that is not a receiver's answer), the event's attempts so far and the
// tenant's endpoint. Each read on its own was a round trip (a message each way to the embedded database's
// thread).
import type { Queryable } from '@cr/service-kit';
import {
  type BrandingRow,
  JOINED_BRANDING_COLUMNS,
  type JoinedBranding,
  joinedBrandingOf,
} from '../delivery/branding-repository';
import type { DocumentForEvent, WebhookEndpointRow, WebhookEventRow } from './webhook-repository';

export interface WebhookJobInputs {
  /** This job's event, frozen by an earlier run and still pending (so with its body). */
  event: WebhookEventRow | undefined;
  /**
   * This job's event already finished (a run that crashed between its attempt's write and the job's): nothing
   * is left to send, and its body may be gone (ADR 0051), so it is not returned as `event`.
   */
  finished: boolean;
  /** The delivery attempts already recorded for `event` (0 without one). */
  attempts: number;
  /** Read only when asked for and no event was frozen yet. */
  doc: DocumentForEvent | undefined;
  branding: BrandingRow | undefined;
  endpoint: WebhookEndpointRow | undefined;
}

// The event (but its body) and the endpoint arrive as whole rows (to_jsonb); a timestamp in them is an ISO
// string, which the endpoint's uses accept (and `updated_at` compares exactly, to the microsecond). The body
// stays a column: it may carry the PDF, and JSON would escape it once more.
type Row = JoinedBranding & {
  event: Omit<WebhookEventRow, 'body' | 'job_id'> | null;
  event_body: string | null;
  attempts: string | number;
  endpoint: WebhookEndpointRow | null;
  doc_id: string | null;
  doc_clave: string;
  doc_estado: string;
  doc_respuesta_xml: string | null;
  doc_clave_recibida: string | null;
  doc_folio_type: DocumentForEvent['folio_type'];
  doc_xml: string;
};

/**
 * A body is null only once its event finished and the housekeeping cleared it (ADR 0051). A pending event
 * without one would be sent empty: refused.
 */
function pendingEvent(row: Row, jobId: string): WebhookEventRow | undefined {
  const { event, event_body: body } = row;
  if (event?.state !== 'pending') return undefined;
  if (body === null) throw new Error(`webhook event ${event.id} is pending without its body`);
  return { ...event, job_id: jobId, body };
}

export async function findWebhookJobInputs(
  tx: Queryable,
  tenantId: string,
  { jobId, documentId, withDocument }: { jobId: string; documentId: string; withDocument: boolean },
): Promise<WebhookJobInputs> {
  const r = await tx.query<Row>(
    `SELECT to_jsonb(e) - 'body' - 'job_id' AS event, e.body AS event_body,
            (SELECT count(*) FROM webhook_deliveries a WHERE a.tenant_id = $1 AND a.event_id = e.id) AS attempts,
            d.id AS doc_id, d.clave AS doc_clave, d.estado AS doc_estado, d.respuesta_xml AS doc_respuesta_xml,
            d.clave_recibida AS doc_clave_recibida, d.folio_type AS doc_folio_type, d.xml AS doc_xml,
            ${JOINED_BRANDING_COLUMNS}, to_jsonb(w) AS endpoint
     FROM (VALUES (1)) AS one (x)
     LEFT JOIN webhook_events e ON e.tenant_id = $1 AND e.job_id = $2::bigint
     LEFT JOIN documents d ON $4 AND e.id IS NULL AND d.tenant_id = $1 AND d.id = $3
     LEFT JOIN tenant_branding b
       ON d.estado = 'aceptado' AND d.clave_recibida IS NULL AND b.tenant_id = $1
     LEFT JOIN webhook_endpoints w ON w.tenant_id = $1`,
    [tenantId, jobId, documentId, withDocument],
  );
  const row = r.rows[0];
  if (!row) throw new Error('findWebhookJobInputs: the statement returns one row');
  return {
    event: pendingEvent(row, jobId),
    finished: row.event !== null && row.event.state !== 'pending',
    attempts: Number(row.attempts),
    doc:
      row.doc_id === null
        ? undefined
        : {
            id: row.doc_id,
            clave: row.doc_clave,
            estado: row.doc_estado,
            respuesta_xml: row.doc_respuesta_xml,
            clave_recibida: row.doc_clave_recibida,
            folio_type: row.doc_folio_type,
            xml: row.doc_xml,
          },
    branding: joinedBrandingOf(row),
    endpoint: row.endpoint ?? undefined,
  };
}
