// Use case of POST /api/recepcion/documentos (and of each document sincronizar imports): decode, inspect
// (inspect-received.ts), compute the deadline and store the document with its findings. The same XML again
// answers the stored record; another XML under a stored clave is a conflict. The receptor must be one of
// the tenant's issuers.
import { createHash, randomUUID } from 'node:crypto';
import { type RecepcionDocumentData, RecepcionDocumentRequest } from '@cr/contracts';
import { Dec, claveMismatches, costaRicaDate, formatAmount, parseIsoDateTime } from '@cr/hacienda-xml';
import { AppError, parseBody } from '@cr/service-kit';
import { ONE_STATEMENT, withTenant } from '../db/with-tenant';
import { findIssuer } from '../emisor/issuer-repository';
import { decodeXmlField, inspectReceived } from './inspect-received';
import type { RecepcionDeps } from './recepcion-deps';
import { findReceivedByClave, insertReceived } from './received-repository';
import { toReceivedData } from './received-view';

// A FechaEmision outside these bounds cannot be a real Hacienda document: it is refused like the other
// impossible fields (400, nothing stored), never a deadline computed for the year 9999 (a 500). Only v4.4 is
// received, which dates from 2024, so 2018 is a generous floor; a supplier's clock may run ahead, not by days.
const EARLIEST_EMISSION = new Date('2018-01-01T00:00:00-06:00');
const FUTURE_LEEWAY_MS = 86_400_000;

export interface ReceiveResult {
  created: boolean;
  data: RecepcionDocumentData;
}

/**
 * POST /api/recepcion/documentos: at most RECEPCION_UPLOADS_PER_TENANT uploads of a tenant at once, since each
 * reads up to RECEPCION_MAX_XML_BYTES of XML on the event loop every tenant shares (429 beyond).
 */
export function uploadReceivedDocument(
  deps: RecepcionDeps,
  input: { tenantId: string; body: unknown },
): Promise<ReceiveResult> {
  return deps.uploads.run(input.tenantId, () => receiveDocument(deps, input));
}

export async function receiveDocument(
  deps: RecepcionDeps,
  input: { tenantId: string; body: unknown; origen?: 'carga' | 'sincronizacion' },
): Promise<ReceiveResult> {
  const { tenantId } = input;
  const body = parseBody(RecepcionDocumentRequest, input.body);
  const xml = decodeXmlField('xml', body.xml);
  const respuesta =
    body.respuestaHacienda === undefined
      ? undefined
      : decodeXmlField('respuestaHacienda', body.respuestaHacienda, 'answer');
  const issuer = await withTenant(
    deps.db,
    tenantId,
    (tx) => findIssuer(tx, tenantId, body.receptor),
    ONE_STATEMENT,
  );
  if (!issuer) throw new AppError('not_found', `receptor: issuer ${body.receptor} is not registered`);

  const inspection = await inspectReceived(deps, {
    xml,
    receptor: body.receptor,
    ...(respuesta === undefined ? {} : { respuestaHaciendaXml: respuesta }),
  });
  const { parsed } = inspection;
  const emitted = parseIsoDateTime(parsed.fechaEmision);
  if (!emitted) throw new AppError('bad_request', 'xml: FechaEmision is not a date-time');
  if (emitted < EARLIEST_EMISSION || emitted.getTime() > deps.now().getTime() + FUTURE_LEEWAY_MS) {
    throw new AppError(
      'bad_request',
      `xml: FechaEmision ${parsed.fechaEmision} is not a plausible emission date (from 2018-01-01 to a day from now)`,
    );
  }
  // Hacienda refuses a clave that disagrees with its document; stored, it would also squat the clave of the
  // issuer it names, whose genuine document would then be a 409.
  const claveProblems = claveMismatches(parsed);
  if (claveProblems.length > 0) throw new AppError('bad_request', `xml: ${claveProblems.join('; ')}`);
  const sha = createHash('sha256').update(xml, 'utf8').digest('hex');
  const id = randomUUID();
  const row = await withTenant(deps.db, tenantId, async (tx) => {
    const inserted = await insertReceived(tx, tenantId, {
      id,
      clave: parsed.clave,
      receptor: body.receptor,
      tipo: inspection.tipo,
      emisor: { tipo: parsed.emisor.tipo, numero: parsed.emisor.numero, nombre: parsed.emisor.nombre },
      fechaEmision: emitted,
      fechaEmisionText: parsed.fechaEmision,
      fechaDia: costaRicaDate(emitted),
      moneda: parsed.codigoMoneda || 'CRC',
      total: formatAmount(new Dec(parsed.totalComprobante)),
      impuestos:
        parsed.totalImpuesto && /^\d+(\.\d+)?$/.test(parsed.totalImpuesto)
          ? formatAmount(new Dec(parsed.totalImpuesto))
          : null,
      xml,
      xmlSha256: sha,
      respuestaHaciendaXml: inspection.respuestaHaciendaXml ?? null,
      findings: inspection.findings,
      vence: deps.calendar.receiverDeadline(emitted),
      origen: input.origen ?? 'carga',
    });
    const stored = await findReceivedByClave(tx, tenantId, parsed.clave);
    if (!stored) throw new Error('received_documents: clave neither inserted nor found');
    return { inserted, stored };
  });
  if (!row.inserted) {
    if (row.stored.xml_sha256 !== sha) {
      throw new AppError(
        'conflict',
        `xml: document ${parsed.clave} was already received with a different XML`,
      );
    }
    return { created: false, data: toReceivedData(row.stored) };
  }
  deps.logger.info('supplier document received', {
    tenantId,
    clave: parsed.clave,
    receptor: body.receptor,
    errors: inspection.findings.filter((f) => f.severity === 'error').length,
  });
  return { created: true, data: toReceivedData(row.stored) };
}
