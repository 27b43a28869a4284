// Independent checks of a supplier's comprobante before it is stored (issue 13). What makes the upload a
// 400 (nothing stored): bad Base64, a DTD (entity expansion is never attempted), and what the XML checks
// refuse (received-xml-checks.ts: not well-formed, not a v4.4 comprobante, a signature that does not verify,
// addressed to someone else). What is stored as findings, for the receiver to decide (and reject): the
// official XSD, the signer's certificate against the issuer, the §9 arithmetic and Hacienda's answer. The XML
// checks run off the event loop (a worker thread); the XSD check here, against the compiled schemas.
import type { RecepcionFinding } from '@cr/contracts';
import type { ParsedComprobante } from '@cr/hacienda-xml';
import { AppError } from '@cr/service-kit';
import { type XsdValidator, containsDtd } from '@cr/xsd';
import type { ReceivedXmlChecker } from './received-xml-pool';

export interface Inspection {
  parsed: ParsedComprobante;
  tipo: string;
  findings: RecepcionFinding[];
  respuestaHaciendaXml?: string;
}

function bad(message: string): AppError {
  return new AppError('bad_request', message);
}

/** Base64 → UTF-8 text, refused with the field's name when it is not Base64 or carries a DTD. */
export function decodeXmlField(field: string, value: string): string {
  const compact = value.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(compact) || compact.length % 4 !== 0) {
    throw bad(`${field}: is not valid Base64`);
  }
  const text = Buffer.from(compact, 'base64').toString('utf8');
  if (containsDtd(text)) {
    throw bad(`${field}: carries a DTD (<!DOCTYPE or <!ENTITY); refused, no entity is ever expanded`);
  }
  return text;
}

/** Checks a supplier's document for `receptor`; throws AppError 400 for what cannot be stored. */
export async function inspectReceived(
  deps: { xsd: XsdValidator; xmlChecks: ReceivedXmlChecker },
  input: { xml: string; respuestaHaciendaXml?: string; receptor: string },
): Promise<Inspection> {
  const checked = await deps.xmlChecks.check(input);
  const findings: RecepcionFinding[] = [];
  const schema = await deps.xsd.validate(input.xml, checked.xsd);
  if (schema && 'refused' in schema) throw bad(`xml: ${schema.refused}`);
  if (schema === undefined) {
    findings.push({
      code: 'xsd',
      severity: 'warning',
      message: `the official XSD ${checked.xsd} cannot be used here (missing from HACIENDA_XSD_DIR or not compiling); not validated`,
    });
  } else if (!schema.valid) {
    for (const e of schema.errors) findings.push({ code: 'xsd', severity: 'error', message: e });
  } else {
    findings.push({ code: 'xsd', severity: 'info', message: `valid against ${checked.xsd}` });
  }
  findings.push(...checked.findings);
  return {
    parsed: checked.parsed,
    tipo: checked.tipo,
    findings,
    ...(input.respuestaHaciendaXml ? { respuestaHaciendaXml: input.respuestaHaciendaXml } : {}),
  };
}
