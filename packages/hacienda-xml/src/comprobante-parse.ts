// Reads the key facts back out of a comprobante (ours or a real sample): clave, parties, totals.
import type { Document } from '@xmldom/xmldom';
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

/**
 * Parses a v4.4 comprobante; throws HaciendaXmlError('malformed_xml') when it cannot be read. `doc` is the
 * caller's own parseXml of this very `xml`, when it has one (only read), so the text is not parsed again.
 */
export function parseComprobante(xml: string, doc?: Document): ParsedComprobante {
  const parsed = doc ? { doc } : parseXml(xml);
  if ('error' in parsed) throw new HaciendaXmlError('malformed_xml', `not well-formed XML: ${parsed.error}`);
  const root = parsed.doc.documentElement!;
  const ns = root.namespaceURI ?? '';
  const first = (
    parent: { getElementsByTagNameNS(ns: string, n: string): ArrayLike<unknown> },
    name: string,
  ) =>
    (
      ((parent.getElementsByTagNameNS(ns, name)[0] as { textContent?: string } | undefined)?.textContent ??
        '') as string
    ).trim();
  const emisorEl = root.getElementsByTagNameNS(ns, 'Emisor')[0];
  const receptorEl = root.getElementsByTagNameNS(ns, 'Receptor')[0];
  const clave = first(root, 'Clave');
  if (!/^\d{50}$/.test(clave))
    throw new HaciendaXmlError('malformed_xml', 'the document has no 50-digit Clave');
  const totalImpuesto = first(root, 'TotalImpuesto');
  return {
    root: root.localName ?? '',
    namespace: ns,
    clave,
    numeroConsecutivo: first(root, 'NumeroConsecutivo'),
    fechaEmision: first(root, 'FechaEmision'),
    emisor: emisorEl
      ? {
          tipo: first(emisorEl, 'Tipo'),
          numero: first(emisorEl, 'Numero'),
          nombre: first(emisorEl, 'Nombre'),
        }
      : { tipo: '', numero: '', nombre: '' },
    ...(receptorEl
      ? {
          receptor: {
            tipo: first(receptorEl, 'Tipo'),
            numero: first(receptorEl, 'Numero'),
            nombre: first(receptorEl, 'Nombre'),
          },
        }
      : {}),
    codigoMoneda: first(root, 'CodigoMoneda'),
    tipoCambio: first(root, 'TipoCambio'),
    ...(totalImpuesto ? { totalImpuesto } : {}),
    totalComprobante: first(root, 'TotalComprobante'),
    lineCount: root.getElementsByTagNameNS(ns, 'LineaDetalle').length,
  };
}
