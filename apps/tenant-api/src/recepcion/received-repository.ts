// Storage of received documents. Every function takes the tenant and filters by it; callers run them
// inside withTenant(), where row-level security enforces the same filter a second time. The state is not
// stored: it follows from the latest answer (pendiente without one or after a refused one, respondiendo
// while Hacienda has it, respondido once Hacienda accepted it).
import type { EstadoRecepcion, RecepcionFinding } from '@cr/contracts';
import type { Queryable } from '@cr/service-kit';

export interface NewReceived {
  id: string;
  clave: string;
  receptor: string;
  tipo: string;
  emisor: { tipo: string; numero: string; nombre: string };
  fechaEmision: Date;
  fechaEmisionText: string;
  fechaDia: string;
  moneda: string;
  total: string;
  impuestos: string | null;
  xml: string;
  xmlSha256: string;
  respuestaHaciendaXml: string | null;
  findings: RecepcionFinding[];
  vence: string;
  origen: 'carga' | 'sincronizacion';
}

export interface ReceivedRow {
  id: string;
  clave: string;
  receptor: string;
  tipo: string;
  emisor_tipo: string;
  emisor_numero: string;
  emisor_nombre: string;
  fecha_emision_text: string;
  moneda: string;
  total: string;
  impuestos: string | null;
  xml_sha256: string;
  findings: RecepcionFinding[];
  vence: string;
  origen: 'carga' | 'sincronizacion';
  respuesta_document_id: string | null;
  aviso_vencimiento: string | null;
  created_at: Date;
  estado: EstadoRecepcion;
  respuesta_estado: string | null;
  respuesta_tipo_doc: string | null;
  respuesta_consecutivo: string | null;
}

/**
 * The row with its derived state and the latest answer's; `vence` as YYYY-MM-DD on both engines. Without the
 * stored XMLs (the supplier's, up to RECEPCION_MAX_XML_BYTES, and Hacienda's answer): nothing that shows a
 * row uses them, and a 200-row page of 2 MiB documents read them all, ~400 MB of strings for a 219 KB answer.
 * They are read one at a time, by `findReceivedXml`, for a download.
 */
export const RECEIVED_SELECT = `
  SELECT r.id, r.clave, r.receptor, r.tipo, r.emisor_tipo, r.emisor_numero, r.emisor_nombre,
    r.fecha_emision_text, r.moneda, r.total, r.impuestos, r.xml_sha256, r.findings,
    to_char(r.vence, 'YYYY-MM-DD') AS vence, r.origen, r.respuesta_document_id, r.aviso_vencimiento,
    r.created_at, r.tenant_id, r.fecha_dia, r.vence AS vence_d,
    CASE
      WHEN d.id IS NULL OR d.estado IN ('rechazado', 'error') THEN 'pendiente'
      WHEN d.estado = 'aceptado' THEN 'respondido'
      ELSE 'respondiendo'
    END AS estado,
    d.estado AS respuesta_estado, d.tipo_doc AS respuesta_tipo_doc, d.consecutivo AS respuesta_consecutivo
  FROM received_documents r
  LEFT JOIN documents d ON d.id = r.respuesta_document_id AND d.tenant_id = r.tenant_id`;

/** Inserts unless the clave is already stored for the tenant; returns whether it was inserted. */
export async function insertReceived(tx: Queryable, tenantId: string, r: NewReceived): Promise<boolean> {
  const res = await tx.query(
    `INSERT INTO received_documents (id, tenant_id, clave, receptor, tipo, emisor_tipo, emisor_numero,
       emisor_nombre, fecha_emision, fecha_emision_text, fecha_dia, moneda, total, impuestos, xml, xml_sha256,
       respuesta_hacienda_xml, findings, vence, origen)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::date, $12, $13, $14, $15, $16, $17, $18::jsonb,
       $19::date, $20)
     ON CONFLICT ON CONSTRAINT received_documents_once DO NOTHING`,
    [
      r.id,
      tenantId,
      r.clave,
      r.receptor,
      r.tipo,
      r.emisor.tipo,
      r.emisor.numero,
      r.emisor.nombre,
      r.fechaEmision,
      r.fechaEmisionText,
      r.fechaDia,
      r.moneda,
      r.total,
      r.impuestos,
      r.xml,
      r.xmlSha256,
      r.respuestaHaciendaXml,
      JSON.stringify(r.findings),
      r.vence,
      r.origen,
    ],
  );
  return res.rowCount === 1;
}

export async function findReceivedByClave(
  tx: Queryable,
  tenantId: string,
  clave: string,
): Promise<ReceivedRow | undefined> {
  const r = await tx.query<ReceivedRow>(`${RECEIVED_SELECT} WHERE r.tenant_id = $1 AND r.clave = $2`, [
    tenantId,
    clave,
  ]);
  return r.rows[0];
}

/** One of a received document's stored XMLs (null: no answer from Hacienda came with it); undefined: no such clave. */
export async function findReceivedXml(
  tx: Queryable,
  tenantId: string,
  clave: string,
  which: 'xml' | 'respuesta-hacienda',
): Promise<{ xml: string | null } | undefined> {
  // The column named here, never taken from the caller: it is spliced into the statement.
  const column = which === 'xml' ? 'xml' : 'respuesta_hacienda_xml';
  const r = await tx.query<{ xml: string | null }>(
    `SELECT ${column} AS xml FROM received_documents WHERE tenant_id = $1 AND clave = $2`,
    [tenantId, clave],
  );
  return r.rows[0];
}

export async function listStoredClaves(
  tx: Queryable,
  tenantId: string,
  claves: readonly string[],
): Promise<Set<string>> {
  if (claves.length === 0) return new Set();
  const r = await tx.query<{ clave: string }>(
    'SELECT clave FROM received_documents WHERE tenant_id = $1 AND clave = ANY($2::text[])',
    [tenantId, claves],
  );
  return new Set(r.rows.map((row) => row.clave));
}

/**
 * Points the document at a new answer if the previous one is still `previous` (null: none); returns
 * false when another answer got there first.
 */
export async function attachAnswer(
  tx: Queryable,
  tenantId: string,
  id: string,
  previous: string | null,
  answerId: string,
): Promise<boolean> {
  const r = await tx.query(
    `UPDATE received_documents SET respuesta_document_id = $4
     WHERE tenant_id = $1 AND id = $2 AND respuesta_document_id IS NOT DISTINCT FROM $3::uuid`,
    [tenantId, id, previous, answerId],
  );
  return r.rowCount === 1;
}
