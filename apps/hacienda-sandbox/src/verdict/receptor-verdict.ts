// The verdict on a MensajeReceptor (REFERENCE §6.2): official XSD, the DetalleMensaje a partial acceptance
// or a rejection requires, XAdES signature, the signer's certificate (trusted CA, valid, and its holder is
// the NumeroCedulaReceptor), the answered document (one this sandbox received, whose receptor is the signer
// and whose issuer is NumeroCedulaEmisor, not refused), its amounts (TotalFactura and MontoTotalImpuesto as
// in the document) and one final answer per document: once an answer is accepted, later ones are refused.
import { Dec, HaciendaXmlError, parseMensajeReceptor, parseMessage, verifySignedXml } from '@cr/hacienda-xml';
import type { MensajeReceptorContent } from '@cr/hacienda-xml';
import type { Db } from '@cr/service-kit';
import type { Document } from '@xmldom/xmldom';
import type { KeyMaterial } from '../certificate-authority';
import { CODES, type Finding } from './findings';
import { DS_NS, type ParsedComprobante, parseComprobante } from './parse-comprobante';
import type { ResponseSigner, VerdictResult } from './run-verdict';
import { readSignerCertificate, signerCertificateFindings } from './signer-certificate';
import { ACCEPTED_TEXT, REJECTED_TEXT } from './run-verdict';
import type { XsdValidator } from './xsd-check';

export const RECEPTOR_CODES = {
  referencia: -600,
  receptor: -601,
  emisorReferencia: -602,
  montos: -603,
  yaRespondido: -604,
  referenciaRechazada: -605,
} as const;

export interface ReceptorVerdictOptions {
  xml: string;
  /** The status id: `<clave>-<consecutivoReceptor>`. */
  id: string;
  db: Db;
  xsd: XsdValidator;
  ca: KeyMaterial;
  trustAnyCa: boolean;
  now: Date;
  sign: ResponseSigner;
}

const IDENT_TYPES = new Set(['01', '02', '03', '04', '05', '06']);

const stripZeros = (id: string | undefined) => (id ?? '').replace(/^0+/, '');

function certificateFindings(doc: Document, expected: string, o: ReceptorVerdictOptions): Finding[] {
  const certText = doc.getElementsByTagNameNS(DS_NS, 'X509Certificate')[0]?.textContent?.replace(/\s+/g, '');
  if (!certText) return [{ code: CODES.firma, text: 'La firma no contiene el certificado X509' }];
  const cert = readSignerCertificate(o.ca, certText);
  if (!cert) return [{ code: CODES.firma, text: 'El certificado de la firma no se puede leer' }];
  return signerCertificateFindings(cert, { expected, rol: 'receptor', now: o.now, trustAnyCa: o.trustAnyCa });
}

/** DetalleMensaje is "required when rejecting or partially accepting" (REFERENCE §6.2 item 5). */
function detalleFindings(m: MensajeReceptorContent): Finding[] {
  if (m.mensaje === 1 || m.detalleMensaje?.trim()) return [];
  return [{ code: CODES.condicional, text: `DetalleMensaje es obligatorio con Mensaje ${m.mensaje}` }];
}

async function referenceFindings(
  m: MensajeReceptorContent,
  o: ReceptorVerdictOptions,
): Promise<{ findings: Finding[]; answered?: ParsedComprobante }> {
  const r = await o.db.query<{
    estado: string;
    receptor_numero: string | null;
    emisor_numero: string;
    comprobante_xml: string;
  }>(
    `SELECT estado, receptor_numero, emisor_numero, comprobante_xml FROM documents
     WHERE clave = $1 AND kind = 'comprobante'`,
    [m.clave],
  );
  const doc = r.rows[0];
  if (!doc) {
    const text = `El comprobante con la clave ${m.clave} no fue recibido por Hacienda`;
    return { findings: [{ code: RECEPTOR_CODES.referencia, text }] };
  }
  const findings: Finding[] = [];
  if (stripZeros(doc.receptor_numero ?? undefined) !== stripZeros(m.numeroCedulaReceptor)) {
    findings.push({
      code: RECEPTOR_CODES.receptor,
      text: `El receptor del comprobante (${doc.receptor_numero ?? 'sin receptor'}) no es ${m.numeroCedulaReceptor}`,
    });
  }
  if (stripZeros(doc.emisor_numero) !== stripZeros(m.numeroCedulaEmisor)) {
    findings.push({
      code: RECEPTOR_CODES.emisorReferencia,
      text: `NumeroCedulaEmisor ${m.numeroCedulaEmisor} no es el emisor del comprobante (${doc.emisor_numero})`,
    });
  }
  if (doc.estado === 'rechazado' || doc.estado === 'error') {
    findings.push({
      code: RECEPTOR_CODES.referenciaRechazada,
      text: `El comprobante ${m.clave} fue ${doc.estado === 'error' ? 'procesado con error' : 'rechazado'} por Hacienda`,
    });
  }
  const answered = parseComprobante(Buffer.from(doc.comprobante_xml, 'base64').toString('utf8'));
  const resumen = answered.amounts.resumen;
  const same = (a: string | undefined, b: string | undefined) =>
    new Dec(a && /^\d+(\.\d+)?$/.test(a) ? a : '0').equals(new Dec(b && /^\d+(\.\d+)?$/.test(b) ? b : '0'));
  if (!same(m.totalFactura, resumen.TotalComprobante)) {
    findings.push({
      code: RECEPTOR_CODES.montos,
      text: `TotalFactura ${m.totalFactura} no coincide con el TotalComprobante ${resumen.TotalComprobante ?? '0'}`,
    });
  }
  if (m.montoTotalImpuesto !== undefined && !same(m.montoTotalImpuesto, resumen.TotalImpuesto)) {
    findings.push({
      code: RECEPTOR_CODES.montos,
      text: `MontoTotalImpuesto ${m.montoTotalImpuesto} no coincide con el TotalImpuesto ${resumen.TotalImpuesto ?? '0'}`,
    });
  }
  const previous = await o.db.query(
    `SELECT 1 FROM documents WHERE kind = 'mensaje_receptor' AND referenced_clave = $1 AND clave <> $2
       AND estado = 'aceptado' LIMIT 1`,
    [m.clave, o.id],
  );
  if (previous.rowCount) {
    findings.push({
      code: RECEPTOR_CODES.yaRespondido,
      text: `El comprobante ${m.clave} ya tiene un mensaje de receptor aceptado`,
    });
  }
  return { findings, answered };
}

export async function runReceptorVerdict(o: ReceptorVerdictOptions): Promise<VerdictResult> {
  // One parse serves the fields, the signature and the certificate.
  let doc: Document;
  let m: MensajeReceptorContent;
  try {
    doc = parseMessage(o.xml);
    m = parseMensajeReceptor(doc);
  } catch (err) {
    if (err instanceof HaciendaXmlError) {
      return { estado: 'error', findings: [{ code: CODES.schema, text: err.message }] };
    }
    throw err;
  }
  const findings: Finding[] = [...((await o.xsd.validate(o.xml, 'MensajeReceptor_V4.4.xsd')) ?? [])];
  findings.push(...detalleFindings(m));
  const signature = verifySignedXml(o.xml, { requirePolicy: true, parsed: doc });
  for (const f of signature.findings.filter((x) => x.severity === 'error')) {
    findings.push({ code: CODES.firma, text: `La firma del mensaje no es válida (${f.code}): ${f.message}` });
  }
  findings.push(...certificateFindings(doc, m.numeroCedulaReceptor, o));
  const reference = await referenceFindings(m, o);
  findings.push(...reference.findings);
  const rejected = findings.some((f) => !f.warning);
  // The answer names the parties of the answered document, as for the document itself.
  const emisor = reference.answered?.emisor;
  const receptor = reference.answered?.receptor;
  const respuestaXml = o.sign({
    clave: m.clave,
    nombreEmisor: (emisor?.nombre ?? '').slice(0, 100),
    tipoIdentificacionEmisor: emisor?.tipo && IDENT_TYPES.has(emisor.tipo) ? emisor.tipo : '02',
    numeroCedulaEmisor: (emisor?.numero ?? m.numeroCedulaEmisor).slice(0, 20),
    ...(receptor?.nombre ? { nombreReceptor: receptor.nombre.slice(0, 100) } : {}),
    ...(receptor?.tipo && IDENT_TYPES.has(receptor.tipo)
      ? { tipoIdentificacionReceptor: receptor.tipo }
      : {}),
    numeroCedulaReceptor: m.numeroCedulaReceptor,
    mensaje: rejected ? 3 : 1,
    texto: rejected ? REJECTED_TEXT : ACCEPTED_TEXT,
    findings,
    ...(m.montoTotalImpuesto && /^\d{1,13}(\.\d{1,5})?$/.test(m.montoTotalImpuesto)
      ? { montoTotalImpuesto: m.montoTotalImpuesto }
      : {}),
    totalFactura: /^\d{1,13}(\.\d{1,5})?$/.test(m.totalFactura) ? m.totalFactura : '0',
  });
  return { estado: rejected ? 'rechazado' : 'aceptado', findings, respuestaXml };
}
