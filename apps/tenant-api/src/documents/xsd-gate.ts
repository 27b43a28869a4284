// The last check before a signed document is numbered, stored and queued: its XML against the official XSD
// of its kind (docs/decisions/0055). Signed documents are the comprobantes of POST /api/enviar/items and the
// MensajeReceptor the inbox signs to answer a received one. The contract and the engine's rules are meant to
// accept only what the XSD accepts; where they fall short (a code list, a pattern, a character XML 1.0
// forbids) Hacienda would reject the signed document after the number was spent. Here it is a 400 naming the
// element as libxml2 does, and nothing is stored. The XSDs require ds:Signature, so the signed XML is what is
// validated.
//
// The schema is the one the inbox and the sandbox use: the official text with the 2026-04 codes the engine
// may write (docs/decisions/0010). When it cannot be used here (HACIENDA_XSD_DIR missing, a schema that does
// not compile) the document goes unvalidated, as a received one does: a deployment fault is not the
// client's, and Hacienda still validates what it receives. That is logged as an error, at most once a
// minute per schema.
import { COMPROBANTE_KINDS } from '@cr/hacienda-xml';
import { AppError, type Logger } from '@cr/service-kit';
import type { XsdValidator } from '@cr/xsd';

/**
 * Largest signed XML validated: ours, bounded by BODY_LIMIT and the contract, not by the inbox's
 * RECEPCION_MAX_XML_BYTES. A 1,000-line invoice is 615 KB; this leaves room for the richest lines.
 */
export const SIGNED_XML_MAX_BYTES = 16 * 1024 * 1024;

/** Problems listed in a refusal: libxml2 reports at most 20 (MAX_ERRORS of @cr/xsd). */
export interface XsdIssue {
  /** The XML element the XSD names, e.g. `CodigoMoneda`; `(xml)` when the XML itself is not well-formed. */
  path: string;
  reason: string;
}

export interface XsdGateDeps {
  xsd: XsdValidator;
  logger: Logger;
}

const UNAVAILABLE_LOG_INTERVAL_MS = 60_000;
const lastUnavailableLog = new WeakMap<XsdValidator, Map<string, number>>();

/** An enumeration's set is listed in full by libxml2 (170 currencies); a few and the count are enough. */
function shortenSets(text: string): string {
  return text.replace(/\{('[^']*'(?:, '[^']*')*)\}/g, (whole, inner: string) => {
    const values = inner.split(', ');
    return values.length <= 8 ? whole : `{${values.slice(0, 8).join(', ')}, … ${values.length} values}`;
  });
}

/**
 * libxml2's `line N: Schemas validity error: Element '{ns}Name': reason` as {path: Name, reason}. The line
 * number is left out: the signed XML is one line after its declaration.
 */
export function toXsdIssue(error: string): XsdIssue {
  const text = shortenSets(error.replace(/^line \d+: /, '').replace(/\{https?:[^}]*\}/g, ''));
  const element = /^Schemas validity error: Element '([^']+)'(?:, attribute '([^']+)')?: (.*)$/.exec(text);
  if (element) {
    const [, name, attribute, reason] = element;
    return { path: attribute ? `${name}@${attribute}` : name!, reason: reason! };
  }
  const parser = /^parser error: (.*)$/.exec(text);
  if (parser) return { path: '(xml)', reason: `is not well-formed XML: ${parser[1]}` };
  return { path: '(xml)', reason: text.replace(/^Schemas validity error: /, '') };
}

/** The kinds by the document type code of their consecutivo (`01` FacturaElectronica …). */
const KIND_BY_TIPO = new Map(Object.values(COMPROBANTE_KINDS).map((k) => [k.tipo, k]));

/** Throws a 400 when `xml`, a signed comprobante of type `tipo` (`01`…`10`), does not validate. */
export async function checkSignedXml(
  deps: XsdGateDeps,
  signed: { tipo: string; xml: string },
): Promise<void> {
  const kind = KIND_BY_TIPO.get(signed.tipo);
  if (!kind) throw new Error(`documents: no XSD is known for document type ${signed.tipo}`);
  await checkSignedAgainst(deps, kind.xsd, signed.xml);
}

/**
 * Throws a 400 when `xml`, a signed document, does not validate against `xsdFile` (a file name in
 * HACIENDA_XSD_DIR): for what is not a comprobante, such as the MensajeReceptor (consecutivo types 05–07
 * share one schema).
 */
export async function checkSignedAgainst(deps: XsdGateDeps, xsdFile: string, xml: string): Promise<void> {
  const outcome = await deps.xsd.validate(xml, xsdFile, { maxBytes: SIGNED_XML_MAX_BYTES });
  if (outcome === undefined) {
    logUnavailable(deps, xsdFile);
    return;
  }
  if (outcome.valid) return;
  const issues = outcome.errors.map(toXsdIssue);
  const message = `the document does not validate against the official ${xsdFile}: ${issues
    .map((i) => `${i.path}: ${i.reason}`)
    .join('; ')}`;
  // Each of these is a rule the contract or the engine misses: worth knowing about, not only answering.
  deps.logger.warn('a signed document does not validate against its XSD; refused', {
    xsd: xsdFile,
    issues: issues.slice(0, 5),
  });
  throw new AppError('bad_request', message, { details: issues });
}

function logUnavailable(deps: XsdGateDeps, xsdFile: string): void {
  const logged = lastUnavailableLog.get(deps.xsd) ?? new Map<string, number>();
  lastUnavailableLog.set(deps.xsd, logged);
  const now = Date.now();
  if (now - (logged.get(xsdFile) ?? Number.NEGATIVE_INFINITY) < UNAVAILABLE_LOG_INTERVAL_MS) return;
  logged.set(xsdFile, now);
  const said = 'an official XSD cannot be used here; signed documents are stored without XSD validation';
  deps.logger.error(said, { xsdFile, xsdDirAvailable: deps.xsd.available });
}
