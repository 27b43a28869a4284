// What a run of the webhook job reads before it sends, in one statement: the event this job froze on an
// earlier run, else the document to freeze it from (and the tenant's branding when the event carries the
// document's PDF: an accepted document that is not a receiver's answer), and the tenant's endpoint. Four
// reads were four round trips for every event (four messages each way to the embedded database's thread).
import type { Queryable } from '@cr/service-kit';
import {
  type BrandingRow,
  JOINED_BRANDING_COLUMNS,
  type JoinedBranding,
  joinedBrandingOf,
} from '../delivery/branding-repository';
import type { DocumentForEvent, WebhookEndpointRow, WebhookEventRow } from './webhook-repository';

export interface WebhookJobInputs {
  event: WebhookEventRow | undefined;
  /** Read only when asked for and no event was frozen yet. */
  doc: DocumentForEvent | undefined;
  branding: BrandingRow | undefined;
  endpoint: WebhookEndpointRow | undefined;
}

type Row = JoinedBranding & {
  event_id: string | null;
  event_document_id: string;
  event_clave: string;
  event_estado: string;
  event_body: string;
  event_state: string;
  doc_id: string | null;
  doc_clave: string;
  doc_estado: string;
  doc_respuesta_xml: string | null;
  doc_clave_recibida: string | null;
  doc_folio_type: DocumentForEvent['folio_type'];
  doc_xml: string;
} & { [K in keyof WebhookEndpointRow as `endpoint_${K}`]: WebhookEndpointRow[K] | null };

export async function findWebhookJobInputs(
  tx: Queryable,
  tenantId: string,
  { jobId, documentId, withDocument }: { jobId: string; documentId: string; withDocument: boolean },
): Promise<WebhookJobInputs> {
  const r = await tx.query<Row>(
    `SELECT e.id AS event_id, e.document_id AS event_document_id, e.clave AS event_clave,
            e.estado AS event_estado, e.body AS event_body, e.state AS event_state,
            d.id AS doc_id, d.clave AS doc_clave, d.estado AS doc_estado, d.respuesta_xml AS doc_respuesta_xml,
            d.clave_recibida AS doc_clave_recibida, d.folio_type AS doc_folio_type, d.xml AS doc_xml,
            ${JOINED_BRANDING_COLUMNS},
            w.tenant_id AS endpoint_tenant_id, w.url AS endpoint_url, w.secret_sealed AS endpoint_secret_sealed,
            w.previous_secret_sealed AS endpoint_previous_secret_sealed,
            w.secrets_key_id AS endpoint_secrets_key_id, w.rotated_at AS endpoint_rotated_at,
            w.active AS endpoint_active, w.disabled_at AS endpoint_disabled_at,
            w.disabled_reason AS endpoint_disabled_reason, w.updated_at AS endpoint_updated_at
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
    event:
      row.event_id === null
        ? undefined
        : {
            id: row.event_id,
            tenant_id: tenantId,
            document_id: row.event_document_id,
            clave: row.event_clave,
            estado: row.event_estado,
            job_id: jobId,
            body: row.event_body,
            state: row.event_state,
          },
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
    endpoint:
      row.endpoint_tenant_id === null
        ? undefined
        : {
            tenant_id: row.endpoint_tenant_id,
            url: row.endpoint_url as string,
            secret_sealed: row.endpoint_secret_sealed as string,
            previous_secret_sealed: row.endpoint_previous_secret_sealed,
            secrets_key_id: row.endpoint_secrets_key_id as string,
            rotated_at: row.endpoint_rotated_at,
            active: row.endpoint_active as boolean,
            disabled_at: row.endpoint_disabled_at,
            disabled_reason: row.endpoint_disabled_reason,
            updated_at: row.endpoint_updated_at as Date | string,
          },
  };
}
