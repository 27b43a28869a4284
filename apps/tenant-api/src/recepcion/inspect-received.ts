// Independent checks of a supplier's comprobante before it is stored (issue 13). What makes the upload a
// 400 (nothing stored): bad Base64, a DTD (entity expansion is never attempted), XML that is not
// well-formed, a root that is not a v4.4 comprobante, a signature that does not verify, a document
// addressed to someone else. What is stored as findings, for the receiver to decide (and reject): the
// official XSD, the signer's certificate against the issuer, the §9 arithmetic and Hacienda's answer.
import type { RecepcionFinding } from '@cr/contracts';
import {
  COMPROBANTE_KINDS,
  HaciendaXmlError,
  type ParsedComprobante,
  type ParsedXmlDocument,
  checkReceivedArithmetic,
  parseComprobante,
  parseXml,
  readMensajeHacienda,
  V44_NAMESPACE_BASE,
  verifySignedXml,
} from '@cr/hacienda-xml';
import { AppError } from '@cr/service-kit';
import { type XsdValidator, containsDtd } from '@cr/xsd';

export interface Inspection {
  parsed: ParsedComprobante;
  tipo: string;
  findings: RecepcionFinding[];
  respuestaHaciendaXml?: string;
}

function bad(message: string, details?: Array<{ path: string; reason: string }>): AppError {
  return new AppError('bad_request', message, details === undefined ? undefined : { details });
}

/** XML from a request: its text and its one parse, which every later check reads (only reads). */
export interface DecodedXml {
  text: string;
  doc: ParsedXmlDocument;
}

/**
 * Base64 → UTF-8 text and its parse, refused with the field's name when it is not Base64, carries a DTD or
 * is not well-formed. A 2 MiB upload takes about half a second of the event loop to parse, so it is parsed
 * once: the root check, the fields, the signature and the arithmetic all read this one tree.
 */
export function decodeXmlField(field: string, value: string): DecodedXml {
  const compact = value.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(compact) || compact.length % 4 !== 0) {
    throw bad(`${field}: is not valid Base64`);
  }
  const text = Buffer.from(compact, 'base64').toString('utf8');
  if (containsDtd(text)) {
    throw bad(`${field}: carries a DTD (<!DOCTYPE or <!ENTITY); refused, no entity is ever expanded`);
  }
  const parsed = parseXml(text);
  if ('error' in parsed) throw bad(`${field}: is not well-formed XML (${parsed.error})`);
  return { text, doc: parsed.doc };
}

const digits = (id: string | undefined) => (id ?? '').replace(/\D/g, '').replace(/^0+/, '');

function signerFindings(xml: DecodedXml, emisor: string): { findings: RecepcionFinding[] } {
  const verification = verifySignedXml(xml.text, { requirePolicy: true, parsed: xml.doc });
  const errors = verification.findings.filter((f) => f.severity === 'error');
  if (errors.length > 0) {
    throw bad(
      `xml: the signature does not verify: ${errors.map((e) => `${e.code} (${e.message})`).join('; ')}`,
      errors.map((e) => ({ path: 'xml', reason: `signature ${e.code}: ${e.message}` })),
    );
  }
  const findings: RecepcionFinding[] = [
    {
      code: 'signature',
      severity: 'info',
      message: `XAdES-EPES signature verified; signer ${verification.certificate?.subject ?? 'unknown'}`,
    },
    ...verification.findings.map((f) => ({
      code: 'signature',
      severity: 'warning' as const,
      message: `${f.code}: ${f.message}`,
    })),
  ];
  const holder = verification.certificate?.subjectSerialNumber;
  if (!holder || digits(holder) !== digits(emisor)) {
    findings.push({
      code: 'certificate',
      severity: 'error',
      message: `the signing certificate belongs to ${holder ?? 'an unidentified holder'}, not to the issuer ${emisor}`,
    });
  }
  const signedAt = verification.signingTime ? new Date(verification.signingTime) : undefined;
  const cert = verification.certificate;
  if (cert && signedAt && (signedAt < cert.notBefore || signedAt > cert.notAfter)) {
    findings.push({
      code: 'certificate',
      severity: 'error',
      message: `the certificate was not valid at the signing time ${verification.signingTime}`,
    });
  }
  return { findings };
}

function haciendaFindings(xml: string | undefined, clave: string): RecepcionFinding[] {
  if (xml === undefined) {
    return [
      {
        code: 'hacienda',
        severity: 'warning',
        message: "Hacienda's answer was not supplied; the document's acceptance is not confirmed",
      },
    ];
  }
  try {
    const { message, verification } = readMensajeHacienda(xml);
    const out: RecepcionFinding[] = [];
    if (!verification.valid) {
      const why = verification.findings.filter((f) => f.severity === 'error').map((f) => f.code);
      out.push({
        code: 'hacienda',
        severity: 'error',
        message: `Hacienda's answer is not validly signed (${why.join(', ')})`,
      });
    }
    if (message.clave !== clave) {
      out.push({
        code: 'hacienda',
        severity: 'error',
        message: `Hacienda's answer is about clave ${message.clave}`,
      });
    } else if (message.mensaje !== 1) {
      out.push({
        code: 'hacienda',
        severity: 'error',
        message: `Hacienda rejected the document: ${message.detalles.map((d) => `${d.codigo} ${d.mensaje}`).join('; ') || message.detalleMensaje}`,
      });
    } else if (verification.valid) {
      out.push({
        code: 'hacienda',
        severity: 'info',
        message: 'Hacienda accepted the document (signed answer)',
      });
    }
    return out;
  } catch (err) {
    if (err instanceof HaciendaXmlError) throw bad(`respuestaHacienda: ${err.message}`);
    throw err;
  }
}

/** Checks a supplier's document for `receptor`; throws AppError 400 for what cannot be stored. */
export async function inspectReceived(
  xsd: XsdValidator,
  input: { xml: DecodedXml; respuestaHaciendaXml?: string; receptor: string },
): Promise<Inspection> {
  const { receptor } = input;
  const { text: xml, doc } = input.xml;
  const root = doc.documentElement;
  const rootName = root?.localName ?? '';
  const kind = COMPROBANTE_KINDS[rootName];
  if (!kind || root?.namespaceURI !== `${V44_NAMESPACE_BASE}${kind.ns}`) {
    throw bad(
      `xml: the root element ${rootName} (${root?.namespaceURI ?? 'no namespace'}) is not a v4.4 comprobante (${Object.keys(COMPROBANTE_KINDS).join(', ')})`,
    );
  }
  let parsed: ParsedComprobante;
  try {
    parsed = parseComprobante(xml, doc);
  } catch (err) {
    if (err instanceof HaciendaXmlError) throw bad(`xml: ${err.message}`);
    throw err;
  }
  if (!/^\d{20}$/.test(parsed.numeroConsecutivo) || parsed.numeroConsecutivo.slice(8, 10) !== kind.tipo) {
    throw bad(`xml: NumeroConsecutivo ${parsed.numeroConsecutivo} is not of type ${kind.tipo} (${rootName})`);
  }
  if (!parsed.receptor?.numero) throw bad('xml: the document names no receptor; it cannot be received');
  if (digits(parsed.receptor.numero) !== digits(receptor)) {
    throw bad(`receptor: the document is addressed to ${parsed.receptor.numero}, not to issuer ${receptor}`);
  }
  if (!/^\d+(\.\d+)?$/.test(parsed.totalComprobante)) throw bad('xml: the document has no TotalComprobante');
  const signature = signerFindings(input.xml, parsed.emisor.numero);
  const findings: RecepcionFinding[] = [];
  const schema = await xsd.validate(xml, kind.xsd);
  if (schema && 'refused' in schema) throw bad(`xml: ${schema.refused}`);
  if (schema === undefined) {
    findings.push({
      code: 'xsd',
      severity: 'warning',
      message: `the official XSD ${kind.xsd} cannot be used here (missing from HACIENDA_XSD_DIR or not compiling); not validated`,
    });
  } else if (!schema.valid) {
    for (const e of schema.errors) findings.push({ code: 'xsd', severity: 'error', message: e });
  } else {
    findings.push({ code: 'xsd', severity: 'info', message: `valid against ${kind.xsd}` });
  }
  findings.push(...signature.findings);
  const mismatches = checkReceivedArithmetic(xml, doc);
  for (const m of mismatches) {
    findings.push({
      code: 'arithmetic',
      severity: 'error',
      message: `${m.path} is ${m.found}, expected ${m.expected}`,
    });
  }
  if (mismatches.length === 0) {
    findings.push({ code: 'arithmetic', severity: 'info', message: 'lines and totals add up (§9)' });
  }
  findings.push(...haciendaFindings(input.respuestaHaciendaXml, parsed.clave));
  return {
    parsed,
    tipo: kind.tipo,
    findings,
    ...(input.respuestaHaciendaXml ? { respuestaHaciendaXml: input.respuestaHaciendaXml } : {}),
  };
}
