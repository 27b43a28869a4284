// Puts a document in a given state straight into the database (through withTenant), for the webhook tests:
// what the submission pipeline stores, without running it.
import { randomInt, randomUUID } from 'node:crypto';
import type { DocumentRequest } from '@cr/contracts';
import { buildSignedDocument, openP12 } from '@cr/hacienda-xml';
import { ISSUER, exportInvoice, invoice } from '@cr/hacienda-xml/src/testing/mothers';
import { makeTestP12 } from '@cr/hacienda-xml/src/testing/test-certificate';
import type { Db } from '@cr/service-kit';
import { withTenant } from '../../src/db/with-tenant';

const signed = new Map<string, string>();

/** The engine's signed XML of one of its mothers, built once per mother. */
function signedXmlOf(name: string, document: () => DocumentRequest): string {
  let xml = signed.get(name);
  if (!xml) {
    const { p12, pin } = makeTestP12();
    xml = buildSignedDocument({
      document: document(),
      issuer: ISSUER,
      key: openP12(p12, pin),
      now: new Date('2026-05-26T18:31:00Z'),
      codigoSeguridad: '12345678',
    }).xml;
    signed.set(name, xml);
  }
  return xml;
}

/** A signed one-line invoice as the engine builds it (what an accepted document's PDF is rendered from). */
export function signedInvoiceXml(): string {
  return signedXmlOf('invoice', invoice);
}

/** A signed export invoice (FEE) to a foreign receptor (Identificacion Tipo 05). */
export function signedExportInvoiceXml(): string {
  return signedXmlOf('exportInvoice', exportInvoice);
}

export interface TestDocument {
  id: string;
  clave: string;
  estado: string;
  respuestaXml: string | null;
}

export function randomClave(): string {
  let digits = '506';
  while (digits.length < 50) digits += String(randomInt(10));
  return digits;
}

export function mensajeHaciendaXml(clave: string, mensaje = 1): string {
  return `<?xml version="1.0" encoding="utf-8"?><MensajeHacienda xmlns="https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/mensajeHacienda"><Clave>${clave}</Clave><NombreEmisor>ACME SOCIEDAD ANONIMA</NombreEmisor><Mensaje>${mensaje}</Mensaje><DetalleMensaje>Aceptado</DetalleMensaje><MontoTotalImpuesto>130.00</MontoTotalImpuesto><TotalFactura>1130.00</TotalFactura></MensajeHacienda>`;
}

export async function insertTestDocument(
  db: Db,
  tenantId: string,
  options: {
    estado?: string;
    respuestaXml?: string | null;
    clave?: string;
    tipoDoc?: string;
    /** The emission instant (ISO 8601); default now. */
    fechaEmision?: string;
    receptor?: { tipo: string; numero: string };
    numeroReferencia?: number;
    totals?: Record<string, string>;
    /** CodigoMoneda; default CRC, none for an answer (tipoDoc 5/6/7) as submissions store it. */
    moneda?: string | null;
    /** The stored signed XML; default signedInvoiceXml(). */
    xml?: string;
  } = {},
): Promise<TestDocument> {
  const id = randomUUID();
  const clave = options.clave ?? randomClave();
  const estado = options.estado ?? 'aceptado';
  const respuestaXml =
    options.respuestaXml === undefined
      ? estado === 'aceptado' || estado === 'rechazado'
        ? mensajeHaciendaXml(clave, estado === 'aceptado' ? 1 : 3)
        : null
      : options.respuestaXml;
  await withTenant(db, tenantId, (tx) =>
    tx.query(
      `INSERT INTO documents (id, tenant_id, clave, tipo_doc, emisor, emisor_tipo, sucursal, terminal,
                              numero_referencia, consecutivo, fecha_emision, fecha_emision_text, ambiente, estado,
                              request_hash, xml, totals, callback_token_hash, callback_token_sealed, respuesta_xml,
                              receptor_tipo, receptor_numero, moneda)
       VALUES ($1, $2, $3, $10, '3101123456', '02', 1, 1, $4, $5, COALESCE($11::timestamptz, now()),
               COALESCE($12, '2026-11-21T10:00:00-06:00'), 2, $6, $7, $16, $13::jsonb, $8,
               'unused', $9, $14, $15, $17)`,
      [
        id,
        tenantId,
        clave,
        options.numeroReferencia ?? randomInt(1, 2 ** 40),
        clave.slice(21, 41),
        estado,
        randomUUID(),
        randomUUID(),
        respuestaXml,
        options.tipoDoc ?? '1',
        options.fechaEmision ?? null,
        options.fechaEmision ?? null,
        JSON.stringify(options.totals ?? {}),
        options.receptor?.tipo ?? null,
        options.receptor?.numero ?? null,
        options.xml ?? signedInvoiceXml(),
        options.moneda === undefined
          ? ['5', '6', '7'].includes(options.tipoDoc ?? '1')
            ? null
            : 'CRC'
          : options.moneda,
      ],
    ),
  );
  return { id, clave, estado, respuestaXml };
}

/** Moves a document to another state, as the follow-up does when Hacienda answers. */
export async function setDocumentState(
  db: Db,
  tenantId: string,
  id: string,
  estado: string,
  respuestaXml: string | null,
): Promise<void> {
  await withTenant(db, tenantId, (tx) =>
    tx.query('UPDATE documents SET estado = $3, respuesta_xml = $4 WHERE tenant_id = $1 AND id = $2', [
      tenantId,
      id,
      estado,
      respuestaXml,
    ]),
  );
}
