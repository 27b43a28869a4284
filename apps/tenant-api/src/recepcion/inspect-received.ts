// Independent checks of a supplier's comprobante before it is stored (issue 13). What makes the upload a
// 400 (nothing stored): bad Base64, a DTD (entity expansion is never attempted), and what the XML checks
// refuse (received-xml-checks.ts: not well-formed, not a v4.4 comprobante, a signature that does not verify,
// addressed to someone else). What is stored as findings, for the receiver to decide (and reject): the
// official XSD, the signer's certificate against the issuer, the §9 arithmetic and Hacienda's answer. The XML
// checks run off the event loop (a worker thread); the XSD check here, against the compiled schemas.
import { type RecepcionFinding, xmlCharacterProblem } from '@cr/contracts';
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

/** A 400 about one Base64 field; `details` names it, so that a caller can tell which field failed. */
function badField(field: string, reason: string): AppError {
  return new AppError('bad_request', `${field}: ${reason}`, { details: [{ path: field, reason }] });
}

/**
 * Tags (`<`) a received document may have. Each becomes nodes of a DOM in a checking thread: 2 MiB of `<a/>`
 * took 244 MB of heap there, and two threads run at once in a pod of 512 MiB. A signed invoice of 1,000
 * lines (Hacienda's maximum) has about 36,000; richer lines (taxes, discounts, exonerations) a few times that.
 */
export const MAX_XML_TAGS = 250_000;

/**
 * Tags Hacienda's answer may have. A MensajeHacienda has about 60, its signature included; without a cap of
 * its own, an answer of 100,000 nested tags exhausted the checking thread and the refusal named `xml`.
 */
export const MAX_ANSWER_TAGS = 2_000;

/** XML 1.0's Char production (§2.2), which a character reference must match too (WFC: Legal Character). */
function isXmlChar(code: number): boolean {
  return (
    code === 0x9 ||
    code === 0xa ||
    code === 0xd ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0x10ffff)
  );
}

/**
 * The first character reference (`&#0;`, `&#x1F;`) to a character XML cannot carry, or undefined. The parser
 * decodes them without complaint, and `&#0;` in a name would reach the insert as U+0000.
 */
function illegalCharacterReference(text: string): string | undefined {
  if (!text.includes('&#')) return undefined;
  for (const m of text.matchAll(/&#(?:x([0-9A-Fa-f]+)|([0-9]+));/g)) {
    const code = m[1] !== undefined ? Number.parseInt(m[1], 16) : Number.parseInt(m[2]!, 10);
    if (!isXmlChar(code)) return m[0];
  }
  return undefined;
}

/** What a decoded field holds, and so how many tags it may have. */
const TAG_LIMITS = {
  comprobante: { max: MAX_XML_TAGS, why: 'no comprobante of 1,000 lines comes near that' },
  answer: { max: MAX_ANSWER_TAGS, why: 'no answer of Hacienda comes near that' },
} as const;

function tagCount(text: string, max: number): number {
  let count = 0;
  for (let at = text.indexOf('<'); at >= 0 && count <= max; at = text.indexOf('<', at + 1)) count += 1;
  return count;
}

/**
 * Base64 → UTF-8 text, refused with the field's name when it is not Base64, holds a character XML cannot
 * carry (U+0000 among them, which PostgreSQL cannot store either), carries a DTD or has more tags than what
 * it holds may have.
 */
export function decodeXmlField(
  field: string,
  value: string,
  holds: keyof typeof TAG_LIMITS = 'comprobante',
): string {
  const compact = value.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(compact) || compact.length % 4 !== 0) {
    throw badField(field, 'is not valid Base64');
  }
  // A byte-order mark before the declaration is allowed by XML 1.0 and written by many Windows tools.
  const text = Buffer.from(compact, 'base64')
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  // The XML parser accepts these; refused here, they would reach the insert and fail there (a 500).
  const characters = xmlCharacterProblem(text);
  if (characters) throw badField(field, characters);
  const reference = illegalCharacterReference(text);
  if (reference) {
    throw badField(field, `refers to a character XML cannot carry (${reference.slice(0, 20)})`);
  }
  if (containsDtd(text)) {
    throw badField(field, 'carries a DTD (<!DOCTYPE or <!ENTITY); refused, no entity is ever expanded');
  }
  const limit = TAG_LIMITS[holds];
  if (tagCount(text, limit.max) > limit.max) {
    throw badField(field, `has more than ${limit.max} tags; ${limit.why}`);
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
  if (schema && 'refused' in schema) throw badField('xml', schema.refused);
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
