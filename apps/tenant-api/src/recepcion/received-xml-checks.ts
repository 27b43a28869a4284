// The checks of a supplier's comprobante that read its XML (issue 13), pure and synchronous: they run in a
// worker thread (received-xml-pool.ts), because a 2 MiB upload takes about half a second to parse and every
// tenant shares the event loop. The document is parsed once and every check reads that tree. What throws
// AppError 400 (nothing stored): XML that is not well-formed, a root that is not a v4.4 comprobante, a
// ds:Signature that is not the root's one last element, a field it reads written twice (parseComprobante), a
// signature that does not verify, a document addressed to someone else, an unreadable Hacienda answer. What
// becomes findings: the signer's certificate against the issuer and the pinned CAs, the §9 arithmetic and
// Hacienda's answer against Hacienda's pinned seal (the XSD is checked by the caller, with the process's
// compiled schemas). A signature proves only that whoever holds the certificate's key signed: anyone can
// make a certificate naming the supplier, or Hacienda, so without a pinned CA the findings say so.
import type { RecepcionFinding } from '@cr/contracts';
import {
  COMPROBANTE_KINDS,
  HaciendaXmlError,
  type MensajeHacienda,
  type ParsedComprobante,
  type ParsedXmlDocument,
  checkReceivedArithmetic,
  parseComprobante,
  parseDecimal,
  parseXml,
  readMensajeHacienda,
  type SignatureFinding,
  type TrustedSigner,
  V44_NAMESPACE_BASE,
  verifySignedXml,
} from '@cr/hacienda-xml';
import { AppError } from '@cr/service-kit';
import { signaturePlacementProblem } from './received-structure';
import { unanswerableValues } from './answerable';

export interface ReceivedXmlInput {
  /** The comprobante's text (decoded, no DTD). */
  xml: string;
  /** The issuer of the tenant it must be addressed to. */
  receptor: string;
  respuestaHaciendaXml?: string;
}

/** The pinned CA bundles a received document's signatures are checked against (each thread parses them once). */
export interface ReceivedXmlTrust {
  /** HACIENDA_CA_BUNDLE with HACIENDA_SIGNER_ID: a supplied MensajeHacienda must carry Hacienda's seal. */
  hacienda?: TrustedSigner;
  /** RECEPCION_CA_BUNDLE: the CAs that issue taxpayers' signing certificates. */
  suppliers?: TrustedSigner;
}

export interface ReceivedXmlChecks {
  parsed: ParsedComprobante;
  tipo: string;
  /** The official XSD of its kind. */
  xsd: string;
  /** Signature, certificate, arithmetic and Hacienda findings, in that order. */
  findings: RecepcionFinding[];
}

function bad(message: string, details?: Array<{ path: string; reason: string }>): AppError {
  return new AppError('bad_request', message, details === undefined ? undefined : { details });
}

const digits = (id: string | undefined) => (id ?? '').replace(/\D/g, '').replace(/^0+/, '');

function signerFindings(
  xml: string,
  doc: ParsedXmlDocument,
  emisor: string,
  suppliers: TrustedSigner | undefined,
): { findings: RecepcionFinding[] } {
  const verification = verifySignedXml(xml, {
    requirePolicy: true,
    parsed: doc,
    ...(suppliers ? { trust: suppliers } : {}),
  });
  // A certificate outside the pinned CAs is a finding for the tenant to weigh, not a refusal: the document
  // is still the supplier's word, and the tenant answers it (or not) knowing.
  const untrusted = verification.findings.filter((f) => f.code === 'untrusted_signer');
  const errors = verification.findings.filter((f) => f.severity === 'error' && f.code !== 'untrusted_signer');
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
    ...verification.findings
      .filter((f) => f.severity === 'warning')
      .map((f) => ({
        code: 'signature',
        severity: 'warning' as const,
        message: `${f.code}: ${f.message}`,
      })),
    chainFinding(suppliers, untrusted),
  ];
  const holder = verification.certificate?.subjectSerialNumber;
  if (!holder || digits(holder) !== digits(emisor)) {
    findings.push({
      code: 'certificate',
      severity: 'error',
      message: `the signing certificate belongs to ${holder ?? 'an unidentified holder'}, not to the issuer ${emisor}`,
    });
  }
  // The certificate's validity at SigningTime is the verifier's check (certificate_not_valid, refused above),
  // which reads a value without an offset as Costa Rica time, whatever the server's zone.
  return { findings };
}

function chainFinding(suppliers: TrustedSigner | undefined, untrusted: SignatureFinding[]): RecepcionFinding {
  if (!suppliers) {
    return {
      code: 'certificate',
      severity: 'warning',
      message:
        "the signing certificate's issuer was not checked: no CA of taxpayers' certificates is pinned on this platform",
    };
  }
  if (untrusted.length > 0) {
    return {
      code: 'certificate',
      severity: 'error',
      message: `the signing certificate is not issued under a trusted CA: ${untrusted.map((f) => f.message).join('; ')}`,
    };
  }
  return {
    code: 'certificate',
    severity: 'info',
    message: 'the signing certificate is issued under a trusted CA',
  };
}

const sameAmount = (a: string | undefined, b: string | undefined) => {
  const x = parseDecimal(a);
  const y = parseDecimal(b);
  return x !== undefined && y !== undefined && x.eq(y);
};

/**
 * What the answer says about the document besides its clave: a clave is the supplier's to write, so another
 * document under the clave Hacienda accepted, with the genuine answer attached, would pass on the clave alone.
 */
function answerMismatches(message: MensajeHacienda, parsed: ParsedComprobante): string[] {
  const out: string[] = [];
  if (digits(message.numeroCedulaEmisor) !== digits(parsed.emisor.numero)) {
    out.push(`its emisor is ${message.numeroCedulaEmisor}, the document's ${parsed.emisor.numero}`);
  }
  if (
    message.numeroCedulaReceptor !== undefined &&
    digits(message.numeroCedulaReceptor) !== digits(parsed.receptor?.numero)
  ) {
    out.push(
      `its receptor is ${message.numeroCedulaReceptor}, the document's ${parsed.receptor?.numero ?? 'none'}`,
    );
  }
  if (!sameAmount(message.totalFactura, parsed.totalComprobante)) {
    out.push(
      `its TotalFactura is ${message.totalFactura}, the document's TotalComprobante ${parsed.totalComprobante}`,
    );
  }
  if (
    message.montoTotalImpuesto !== undefined &&
    !sameAmount(message.montoTotalImpuesto, parsed.totalImpuesto ?? '0')
  ) {
    out.push(
      `its MontoTotalImpuesto is ${message.montoTotalImpuesto}, the document's TotalImpuesto ${parsed.totalImpuesto ?? '0'}`,
    );
  }
  return out;
}

function haciendaFindings(
  xml: string | undefined,
  parsed: ParsedComprobante,
  hacienda: TrustedSigner | undefined,
): RecepcionFinding[] {
  const { clave } = parsed;
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
    const { message, verification } = readMensajeHacienda(xml, hacienda ? { trust: hacienda } : {});
    const out: RecepcionFinding[] = [];
    if (!verification.valid) {
      const why = verification.findings
        .filter((f) => f.severity === 'error')
        .map((f) => (f.code === 'untrusted_signer' ? `${f.code}: ${f.message}` : f.code));
      out.push({
        code: 'hacienda',
        severity: 'error',
        message: `Hacienda's answer is not validly signed (${why.join(', ')})`,
      });
    }
    const mismatches = message.clave === clave ? answerMismatches(message, parsed) : [];
    if (message.clave !== clave) {
      out.push({
        code: 'hacienda',
        severity: 'error',
        message: `Hacienda's answer is about clave ${message.clave}`,
      });
    } else if (mismatches.length > 0) {
      out.push({
        code: 'hacienda',
        severity: 'error',
        message: `Hacienda's answer is about another document under this clave: ${mismatches.join('; ')}`,
      });
    } else if (message.mensaje !== 1) {
      out.push({
        code: 'hacienda',
        severity: 'error',
        message: `Hacienda rejected the document: ${message.detalles.map((d) => `${d.codigo} ${d.mensaje}`).join('; ') || message.detalleMensaje}`,
      });
    } else if (verification.valid && hacienda) {
      out.push({
        code: 'hacienda',
        severity: 'info',
        message: "Hacienda accepted the document (the answer carries Hacienda's seal)",
      });
    } else if (verification.valid) {
      out.push({
        code: 'hacienda',
        severity: 'warning',
        message:
          "the answer says Hacienda accepted the document, but its seal was not checked: Hacienda's CA is not pinned on this platform",
      });
    }
    return out;
  } catch (err) {
    if (err instanceof HaciendaXmlError) {
      throw bad(`respuestaHacienda: ${err.message}`, [{ path: 'respuestaHacienda', reason: err.message }]);
    }
    throw err;
  }
}

/** Checks a supplier's document for `receptor`; throws AppError 400 for what cannot be stored. */
export function checkReceivedXml(input: ReceivedXmlInput, trust: ReceivedXmlTrust = {}): ReceivedXmlChecks {
  const { xml, receptor } = input;
  const parsedXml = parseXml(xml);
  if ('error' in parsedXml) throw bad(`xml: is not well-formed XML (${parsedXml.error})`);
  const { doc } = parsedXml;
  const root = doc.documentElement;
  const rootName = root?.localName ?? '';
  const kind = COMPROBANTE_KINDS[rootName];
  if (!kind || root?.namespaceURI !== `${V44_NAMESPACE_BASE}${kind.ns}`) {
    throw bad(
      `xml: the root element ${rootName} (${root?.namespaceURI ?? 'no namespace'}) is not a v4.4 comprobante (${Object.keys(COMPROBANTE_KINDS).join(', ')})`,
    );
  }
  // What the signature does not cover is never read (parseComprobante reads exact paths from the root), and a
  // document shaped to carry it where a reader might is refused outright.
  const misplaced = signaturePlacementProblem(root);
  if (misplaced) throw bad(`xml: ${misplaced}`);
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
  const unanswerable = unanswerableValues(parsed);
  if (unanswerable.length > 0) throw bad(`xml: ${unanswerable.join('; ')}`);
  const findings = [...signerFindings(xml, doc, parsed.emisor.numero, trust.suppliers).findings];
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
  findings.push(...haciendaFindings(input.respuestaHaciendaXml, parsed, trust.hacienda));
  return { parsed, tipo: kind.tipo, xsd: kind.xsd, findings };
}
