// Use cases of POST /api/consultar/documento and GET /api/descargar/{clave}/…: one document of this
// tenant (another tenant's clave is the same 404 as an unknown one). The clave of a received document
// finds the tenant's latest answer to it (MensajeReceptor, tipoDoc 5/6/7): its state, XML and Hacienda's
// answer. Its webhook deliveries and e-mails grow with every replay and resend and are never deleted: only the
// latest RECENT_ENTRIES of each are read and shown, with how many there are in all.
import type { DocumentData, WebhookEntrega } from '@cr/contracts';
import { AppError, type Queryable } from '@cr/service-kit';
import { ONE_STATEMENT, withTenant } from '../db/with-tenant';
import { listRecentMailOfDocument } from '../delivery/mail-repository';
import type { IssuerDeps } from '../emisor/issuer-deps';
import { type DocumentRow, findDocumentOrAnswerByClave, listEvents } from './document-repository';

const CLAVE = /^\d{50}$/;

/** How many of a document's latest webhook deliveries and e-mails consultar/documento shows (its contract's maxItems). */
export const RECENT_ENTRIES = 20;

function notFound(clave: string): AppError {
  return new AppError('not_found', `clave: document ${clave} not found`);
}

export function checkClave(clave: string): string {
  if (!CLAVE.test(clave)) throw new AppError('bad_request', 'clave: must be 50 digits');
  return clave;
}

/** The latest `limit` webhook deliveries of a document, oldest first, and how many it has in all. */
async function listRecentDeliveries(
  tx: Queryable,
  tenantId: string,
  documentId: string,
  limit: number,
): Promise<{ entregas: WebhookEntrega[]; total: number }> {
  // One statement: the total is a count beside the LIMIT (a window count would carry every row through the sort).
  const r = await tx.query<{
    event_id: string;
    attempt: number;
    url: string;
    status: number | null;
    latency_ms: number | null;
    error: string | null;
    created_at: Date | string;
    total: string | number;
  }>(
    `SELECT event_id, attempt, url, status, latency_ms, error, created_at,
            (SELECT count(*) FROM webhook_deliveries WHERE tenant_id = $1 AND document_id = $2) AS total
     FROM webhook_deliveries
     WHERE tenant_id = $1 AND document_id = $2 ORDER BY created_at DESC, attempt DESC, event_id DESC LIMIT $3`,
    [tenantId, documentId, limit],
  );
  const total = Number(r.rows[0]?.total ?? 0);
  const entregas = r.rows.reverse().map((row) => ({
    eventId: row.event_id,
    intento: Number(row.attempt),
    url: row.url,
    status: row.status === null ? null : Number(row.status),
    latenciaMs: row.latency_ms === null ? null : Number(row.latency_ms),
    error: row.error,
    fecha: new Date(row.created_at).toISOString(),
  }));
  return { entregas, total };
}

/** What consultar/documento shows of the document's own row (never its XMLs or its sealed callback token). */
const CONSULTED = [
  'id',
  'clave',
  'clave_recibida',
  'tipo_doc',
  'emisor',
  'numero_referencia',
  'consecutivo',
  'fecha_emision_text',
  'estado',
  'mensaje',
  'detalle',
  'error_cause',
  'submit_attempts',
] as const;

export async function getDocument(
  deps: Pick<IssuerDeps, 'db'>,
  input: { tenantId: string; clave: string },
): Promise<DocumentData> {
  const { tenantId, clave } = input;
  return withTenant(deps.db, tenantId, async (tx) => {
    const row = await findDocumentOrAnswerByClave(tx, tenantId, clave, CONSULTED);
    if (!row) throw notFound(clave);
    const webhook = await listRecentDeliveries(tx, tenantId, row.id, RECENT_ENTRIES);
    // At most one event per estado (UNIQUE (document_id, estado)): the history is bounded as it is.
    const events = await listEvents(tx, tenantId, row.id);
    const correo = await listRecentMailOfDocument(tx, tenantId, row.id, RECENT_ENTRIES);
    const detalle = Array.isArray(row.detalle)
      ? (row.detalle as DocumentData['mensajeHacienda']['detalle'])
      : [];
    return {
      clave: row.clave_recibida ?? row.clave,
      tipoDoc: row.tipo_doc,
      emisor: row.emisor,
      numeroReferencia: Number(row.numero_referencia),
      consecutivo: row.consecutivo,
      fechaEmision: row.fecha_emision_text,
      estado: row.estado,
      mensajeHacienda: {
        mensaje: row.mensaje === null ? null : Number(row.mensaje),
        detalle,
        ...(row.error_cause ? { errorCause: row.error_cause } : {}),
      },
      intentos: Number(row.submit_attempts),
      historial: events.map((e) => ({
        estado: e.estado,
        fecha: new Date(e.created_at).toISOString(),
        detalle: e.detalle,
      })),
      webhook,
      correo,
    };
  });
}

/** The signed comprobante, or Hacienda's answer (404 until the document is final): the one XML asked for. */
export async function getDocumentXml(
  deps: Pick<IssuerDeps, 'db'>,
  input: { tenantId: string; clave: string; which: 'xml' | 'respuesta' },
): Promise<{ xml: string; fileName: string }> {
  const { tenantId, clave } = input;
  const read = <K extends keyof DocumentRow>(columns: readonly K[]) =>
    withTenant(
      deps.db,
      tenantId,
      (tx) => findDocumentOrAnswerByClave(tx, tenantId, clave, columns),
      ONE_STATEMENT,
    );
  // Named by the stored clave (REFERENCE §1.3): a receiver's message is `<clave>-<its consecutivo>`, so it
  // never takes the name of the supplier's document it answers.
  if (input.which === 'xml') {
    const row = await read(['clave', 'xml']);
    if (!row) throw notFound(clave);
    return { xml: row.xml, fileName: `${row.clave}.xml` };
  }
  const row = await read(['clave', 'estado', 'respuesta_xml']);
  if (!row) throw notFound(clave);
  if (!row.respuesta_xml) {
    throw new AppError(
      'not_found',
      `clave: Hacienda's answer to ${clave} is not available yet (estado ${row.estado})`,
    );
  }
  return { xml: row.respuesta_xml, fileName: `${row.clave}_respuesta.xml` };
}
