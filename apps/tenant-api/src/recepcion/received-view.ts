// A stored received document as the API shows it.
import type { RecepcionDocumentData } from '@cr/contracts';
import type { ReceivedRow } from './received-repository';

const MENSAJE_OF_TIPO_DOC: Record<string, number> = { '5': 1, '6': 2, '7': 3 };

export function toReceivedData(row: ReceivedRow): RecepcionDocumentData {
  return {
    clave: row.clave,
    tipo: row.tipo,
    receptor: row.receptor,
    emisor: { tipo: row.emisor_tipo, numero: row.emisor_numero, nombre: row.emisor_nombre },
    fechaEmision: row.fecha_emision_text,
    moneda: row.moneda,
    total: row.total,
    impuestos: row.impuestos,
    findings: row.findings,
    vence: row.vence,
    estado: row.estado,
    origen: row.origen,
    respuesta:
      row.respuesta_document_id && row.respuesta_consecutivo
        ? {
            mensaje: MENSAJE_OF_TIPO_DOC[row.respuesta_tipo_doc ?? ''] ?? 0,
            consecutivo: row.respuesta_consecutivo,
            estado: row.respuesta_estado ?? 'pendiente',
          }
        : null,
    recibido: new Date(row.created_at).toISOString(),
  };
}
