// Reads the key facts back out of a comprobante (ours or a real sample): clave, parties, totals.
//
// Every value is read at its exact path under the root (root/Clave, root/Receptor/Identificacion/Numero,
// root/ResumenFactura/TotalImpuesto…), never as "the first element of that name anywhere": the signature
// covers the document minus its ds:Signature (URI="" with the enveloped transform), so an element placed
// inside ds:Signature (in a ds:Object, say) is unsigned, and a search of the whole tree would read it first
// when the signature comes first, or when the signed document lacks the element (an exempt invoice has no
// TotalImpuesto, a ticket may name no Receptor). Each step must also be the only element of its name there,
// in the root's namespace: readComprobanteAmounts (the §9 arithmetic) goes by local name and takes the first,
// so a second one, or one in a foreign namespace, would let the arithmetic read one value and this another.
import type { Document, Element } from '@xmldom/xmldom';
import { childElements } from './comprobante-amounts';
import { HaciendaXmlError } from './errors';
import { parseXml } from './parse-xml';

export interface ParsedComprobante {
  root: string;
  namespace: string;
  clave: string;
  numeroConsecutivo: string;
  fechaEmision: string;
  emisor: { tipo: string; numero: string; nombre: string };
  receptor?: { tipo?: string; numero?: string; nombre: string };
  codigoMoneda: string;
  tipoCambio: string;
  totalImpuesto?: string;
  totalComprobante: string;
  lineCount: number;
}

/** Reads one path step at a time from the root, refusing a step that is ambiguous. */
class PathReader {
  constructor(
    private readonly ns: string,
    private readonly rootName: string,
  ) {}

  /** The one child `name` of `parent`, undefined when there is none. */
  only(parent: Element | undefined, name: string, path: string): Element | undefined {
    const found = childElements(parent, name);
    if (found.length > 1) {
      throw new HaciendaXmlError('malformed_xml', `${this.rootName}/${path} appears ${found.length} times`);
    }
    const el = found[0];
    if (el && (el.namespaceURI ?? '') !== this.ns) {
      throw new HaciendaXmlError(
        'malformed_xml',
        `${this.rootName}/${path} is in the namespace ${el.namespaceURI ?? '(none)'}, not the document's`,
      );
    }
    return el;
  }

  /** The trimmed text at `steps` under `from` ('' when absent). */
  text(from: Element | undefined, steps: string[], prefix = ''): string {
    let at = from;
    let path = prefix;
    for (const step of steps) {
      path = path ? `${path}/${step}` : step;
      at = this.only(at, step, path);
      if (!at) return '';
    }
    return (at?.textContent ?? '').trim();
  }
}

/**
 * Parses a v4.4 comprobante; throws HaciendaXmlError('malformed_xml') when it cannot be read, or when a field
 * it reads appears twice at its path. `doc` is the caller's own parseXml of this very `xml`, when it has one
 * (only read), so the text is not parsed again.
 */
export function parseComprobante(xml: string, doc?: Document): ParsedComprobante {
  const parsed = doc ? { doc } : parseXml(xml);
  if ('error' in parsed) throw new HaciendaXmlError('malformed_xml', `not well-formed XML: ${parsed.error}`);
  const root = parsed.doc.documentElement!;
  const ns = root.namespaceURI ?? '';
  const rootName = root.localName ?? '';
  const read = new PathReader(ns, rootName);
  const clave = read.text(root, ['Clave']);
  if (!/^\d{50}$/.test(clave))
    throw new HaciendaXmlError('malformed_xml', 'the document has no 50-digit Clave');
  const party = (name: 'Emisor' | 'Receptor') => {
    const el = read.only(root, name, name);
    if (!el) return undefined;
    return {
      tipo: read.text(el, ['Identificacion', 'Tipo'], name),
      numero: read.text(el, ['Identificacion', 'Numero'], name),
      nombre: read.text(el, ['Nombre'], name),
    };
  };
  const emisor = party('Emisor') ?? { tipo: '', numero: '', nombre: '' };
  const receptor = party('Receptor');
  const resumen = read.only(root, 'ResumenFactura', 'ResumenFactura');
  const moneda = read.only(resumen, 'CodigoTipoMoneda', 'ResumenFactura/CodigoTipoMoneda');
  const monedaPath = 'ResumenFactura/CodigoTipoMoneda';
  const totalImpuesto = read.text(resumen, ['TotalImpuesto'], 'ResumenFactura');
  const detalle = read.only(root, 'DetalleServicio', 'DetalleServicio');
  return {
    root: rootName,
    namespace: ns,
    clave,
    numeroConsecutivo: read.text(root, ['NumeroConsecutivo']),
    fechaEmision: read.text(root, ['FechaEmision']),
    emisor,
    ...(receptor ? { receptor } : {}),
    codigoMoneda: read.text(moneda, ['CodigoMoneda'], monedaPath),
    tipoCambio: read.text(moneda, ['TipoCambio'], monedaPath),
    ...(totalImpuesto ? { totalImpuesto } : {}),
    totalComprobante: read.text(resumen, ['TotalComprobante'], 'ResumenFactura'),
    lineCount: childElements(detalle, 'LineaDetalle').filter((l) => (l.namespaceURI ?? '') === ns).length,
  };
}
