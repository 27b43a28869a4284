// The seven v4.4 comprobantes by root element: the document type code of the consecutivo (REFERENCE §1.1),
// the namespace and the official XSD file. One table for every reader of received or stored XML (the
// sandbox's verdict, the tenant-api's inbox, the PDF), so a kind is never known to one and not another.

export const V44_NAMESPACE_BASE = 'https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/';

export type ComprobanteSigla = 'FE' | 'ND' | 'NC' | 'TE' | 'FEC' | 'FEE' | 'REP';

export interface ComprobanteKind {
  /** Document type code in the consecutivo. */
  tipo: string;
  /** Namespace suffix after V44_NAMESPACE_BASE. */
  ns: string;
  /** The official XSD file. */
  xsd: string;
  sigla: ComprobanteSigla;
}

export const COMPROBANTE_KINDS: Readonly<Record<string, ComprobanteKind>> = {
  FacturaElectronica: {
    tipo: '01',
    ns: 'facturaElectronica',
    xsd: 'FacturaElectronica_V4.4.xsd',
    sigla: 'FE',
  },
  NotaDebitoElectronica: {
    tipo: '02',
    ns: 'notaDebitoElectronica',
    xsd: 'NotaDebitoElectronica_V4.4.xsd',
    sigla: 'ND',
  },
  NotaCreditoElectronica: {
    tipo: '03',
    ns: 'notaCreditoElectronica',
    xsd: 'NotaCreditoElectronica_V4.4.xsd',
    sigla: 'NC',
  },
  TiqueteElectronico: {
    tipo: '04',
    ns: 'tiqueteElectronico',
    xsd: 'TiqueteElectronico_V4.4.xsd',
    sigla: 'TE',
  },
  FacturaElectronicaCompra: {
    tipo: '08',
    ns: 'facturaElectronicaCompra',
    xsd: 'FacturaElectronicaCompra_V4.4.xsd',
    sigla: 'FEC',
  },
  FacturaElectronicaExportacion: {
    tipo: '09',
    ns: 'facturaElectronicaExportacion',
    xsd: 'FacturaElectronicaExportacion_V4.4.xsd',
    sigla: 'FEE',
  },
  ReciboElectronicoPago: {
    tipo: '10',
    ns: 'reciboElectronicoPago',
    xsd: 'ReciboElectronicoPago_V4.4.xsd',
    sigla: 'REP',
  },
};
