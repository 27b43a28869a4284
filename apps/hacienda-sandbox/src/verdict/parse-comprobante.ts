// Reads what the verdict needs out of a received v4.4 comprobante (FE, ND, NC, TE, FEC, FEE, REP) with a
// real XML parser. Values stay strings; the checks turn amounts into decimals themselves.
import {
  type AmountLine,
  COMPROBANTE_KINDS,
  type ComprobanteAmounts,
  type ComprobanteKind,
  V44_NAMESPACE_BASE,
  childElements,
  parseXml,
  readComprobanteAmounts,
} from '@cr/hacienda-xml';
import type { Document, Element } from '@xmldom/xmldom';

type ComprobanteKindRoot = Pick<ComprobanteKind, 'tipo' | 'ns' | 'xsd'>;

export const V44_PREFIX = V44_NAMESPACE_BASE;
export const DS_NS = 'http://www.w3.org/2000/09/xmldsig#';

/** Root element → document type code in the consecutivo, XSD and namespace: the seven comprobantes and the
 *  receiver's message, which the sandbox also receives. */
export const ROOTS: Readonly<Record<string, ComprobanteKindRoot>> = {
  ...COMPROBANTE_KINDS,
  MensajeReceptor: { tipo: '05', xsd: 'MensajeReceptor_V4.4.xsd', ns: 'mensajeReceptor' },
};

export interface ParsedParty {
  nombre?: string;
  tipo?: string;
  numero?: string;
}

/** A line as the verdict reads it: every discount and tax (REFERENCE §8), from @cr/hacienda-xml. */
export type ParsedLine = AmountLine;

export interface ParsedComprobante {
  xml: string;
  doc: Document;
  root: Element;
  rootName: string;
  namespace: string;
  clave?: string;
  numeroConsecutivo?: string;
  fechaEmision?: string;
  codigoActividadEmisor?: string;
  codigoActividadReceptor?: string;
  condicionVenta?: string;
  emisor: ParsedParty;
  receptor?: ParsedParty;
  /** Lines, ResumenFactura totals, tax breakdown, other charges and payment means. */
  amounts: ComprobanteAmounts;
  lines: ParsedLine[];
  mediosPago: ComprobanteAmounts['mediosPago'];
  /** Each InformacionReferencia as written (TipoDocIR, Numero, FechaEmisionIR, Codigo): the documents a note
   *  refers to, and why. */
  informacionReferencia: Array<{ tipoDoc?: string; numero?: string; fechaEmision?: string; codigo?: string }>;
  plazoCredito?: string;
  condicionVentaOtros?: string;
  codigoMoneda?: string;
  tipoCambio?: string;
  /** Base64 DER of the first ds:X509Certificate of the document's own signature. */
  signatureCertificate?: string;
  hasSignature: boolean;
}

export class UnprocessableXmlError extends Error {}

function childrenNS(el: Element, ns: string, name: string): Element[] {
  return childElements(el, name).filter((c) => c.namespaceURI === ns);
}

/** The elements at a `/`-separated path of child names under `from`, in document order. */
export function elementsAt(from: Element, path: string): Element[] {
  return path.split('/').reduce<Element[]>((at, name) => at.flatMap((el) => childElements(el, name)), [from]);
}

function child(el: Element | undefined, name: string): Element | undefined {
  return childElements(el, name)[0];
}

function text(el: Element | undefined, name?: string): string | undefined {
  const target = name ? child(el, name) : el;
  const t = target?.textContent;
  return t == null ? undefined : t.trim();
}

function parseParty(el: Element | undefined): ParsedParty | undefined {
  if (!el) return undefined;
  const id = child(el, 'Identificacion');
  return { nombre: text(el, 'Nombre'), tipo: text(id, 'Tipo'), numero: text(id, 'Numero') };
}

/** Throws UnprocessableXmlError when the bytes are not a well-formed XML document. */
export function parseXmlDocument(xml: string): Document {
  const parsed = parseXml(xml);
  if ('error' in parsed) throw new UnprocessableXmlError(`XML mal formado: ${parsed.error}`);
  return parsed.doc;
}

export function parseComprobante(xml: string): ParsedComprobante {
  const doc = parseXmlDocument(xml);
  const root = doc.documentElement as Element;
  const rootName = root.localName ?? root.nodeName;
  const amounts = readComprobanteAmounts(root);
  const resumen = child(root, 'ResumenFactura');
  const signature = childElements(root, 'Signature').find((s) => s.namespaceURI === DS_NS);
  // The certificate the signature check verifies with (verifySignedXml: the first X509Certificate under the
  // signature's KeyInfo), not the first anywhere under ds:Signature, which could sit in an unsigned ds:Object
  // placed before KeyInfo and name someone else.
  const keyInfo = signature ? childrenNS(signature, DS_NS, 'KeyInfo')[0] : undefined;
  const certEl = keyInfo?.getElementsByTagNameNS(DS_NS, 'X509Certificate')[0];
  return {
    xml,
    doc,
    root,
    rootName,
    namespace: root.namespaceURI ?? '',
    clave: text(root, 'Clave'),
    numeroConsecutivo: text(root, 'NumeroConsecutivo'),
    fechaEmision: text(root, 'FechaEmision'),
    codigoActividadEmisor: text(root, 'CodigoActividadEmisor'),
    codigoActividadReceptor: text(root, 'CodigoActividadReceptor'),
    condicionVenta: text(root, 'CondicionVenta'),
    emisor: parseParty(child(root, 'Emisor')) ?? {},
    receptor: parseParty(child(root, 'Receptor')),
    amounts,
    lines: amounts.lines,
    mediosPago: amounts.mediosPago,
    informacionReferencia: childElements(root, 'InformacionReferencia').map((r) => ({
      tipoDoc: text(r, 'TipoDocIR'),
      numero: text(r, 'Numero'),
      fechaEmision: text(r, 'FechaEmisionIR'),
      codigo: text(r, 'Codigo'),
    })),
    plazoCredito: text(root, 'PlazoCredito'),
    condicionVentaOtros: text(root, 'CondicionVentaOtros'),
    codigoMoneda: text(child(resumen, 'CodigoTipoMoneda'), 'CodigoMoneda'),
    tipoCambio: text(child(resumen, 'CodigoTipoMoneda'), 'TipoCambio'),
    signatureCertificate: certEl?.textContent?.replace(/\s+/g, '') || undefined,
    hasSignature: signature !== undefined,
  };
}
