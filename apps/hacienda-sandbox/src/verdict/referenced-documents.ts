// What the references check needs of a document a credit or debit note names: the sandbox's own record of it,
// as Hacienda knows the documents it accepted. Only accepted documents count, and only accepted credit notes
// count as credited against one.
import { Dec, readComprobanteAmounts } from '@cr/hacienda-xml';
import type { Db } from '@cr/service-kit';
import type { Element } from '@xmldom/xmldom';
import type { ReferencedDocument } from './checks';
import { parseXmlDocument } from './parse-comprobante';

/** TotalComprobante of a stored comprobante (kept in Base64, as it arrived). */
function totalOf(base64: string): Dec | undefined {
  const xml = Buffer.from(base64, 'base64').toString('utf8');
  const total = readComprobanteAmounts(parseXmlDocument(xml).documentElement as Element).resumen
    .TotalComprobante;
  return total !== undefined && /^\d+(\.\d+)?$/.test(total) ? new Dec(total) : undefined;
}

export async function findReferencedDocument(db: Db, clave: string): Promise<ReferencedDocument | undefined> {
  const original = await db.query<{ receptor_numero: string | null; comprobante_xml: string }>(
    `SELECT receptor_numero, comprobante_xml FROM documents
      WHERE clave = $1 AND kind = 'comprobante' AND estado = 'aceptado'`,
    [clave],
  );
  const row = original.rows[0];
  const total = row ? totalOf(row.comprobante_xml) : undefined;
  if (!row || !total) return undefined;
  const notes = await db.query<{ comprobante_xml: string }>(
    `SELECT comprobante_xml FROM documents
      WHERE referenced_clave = $1 AND tipo = '03' AND kind = 'comprobante' AND estado = 'aceptado'`,
    [clave],
  );
  let credited = new Dec(0);
  for (const note of notes.rows) credited = credited.plus(totalOf(note.comprobante_xml) ?? 0);
  return {
    ...(row.receptor_numero ? { receptor: row.receptor_numero } : {}),
    totalComprobante: total.toString(),
    credited,
  };
}
