// The printable view of a comprobante: every fact the PDF shows, as written in the signed XML (amounts are
// the XML's decimal strings, codes are Hacienda's codes). Renderers only lay it out.

import type { ComprobanteSigla } from '@cr/hacienda-xml';

export type KindCode = ComprobanteSigla;

export interface Party {
  nombre: string;
  nombreComercial?: string;
  identificacion?: { tipo: string; numero: string };
  telefono?: string;
  correos: string[];
  ubicacion?: { provincia: string; canton: string; distrito: string; barrio?: string; otrasSenas?: string };
  otrasSenasExtranjero?: string;
}

export interface Exoneracion {
  tipoDocumento: string;
  tipoDocumentoOtro?: string;
  numeroDocumento: string;
  articulo?: string;
  inciso?: string;
  nombreInstitucion: string;
  nombreInstitucionOtros?: string;
  fechaEmision: string;
  tarifaExonerada: string;
  montoExoneracion: string;
}

export interface Impuesto {
  codigo: string;
  /** CodigoImpuestoOTRO: what a tax 99 is. */
  codigoOtro?: string;
  codigoTarifa?: string;
  tarifa?: string;
  monto: string;
  /** FEE, NC, ND goods lines: the special tax not charged on the export, informational. */
  montoExportacion?: string;
  exoneracion?: Exoneracion;
}

/**
 * One component of a surtido (package) line, as written in its LineaDetalleSurtido: its amounts are those of
 * one unit of the line (the line is the components at its own quantity).
 */
export interface ComponenteSurtido {
  cabys: string;
  codigosComerciales: string[];
  cantidad: string;
  unidadMedida: string;
  unidadMedidaComercial?: string;
  detalle: string;
  precioUnitario: string;
  montoTotal: string;
  descuentos: { monto: string; codigo?: string }[];
  subTotal: string;
  impuestos: { codigo: string; codigoTarifa?: string; tarifa?: string; monto: string }[];
}

export interface Linea {
  numero: string;
  cabys?: string;
  /** The goods' tariff heading (FEE, NC, ND). */
  partidaArancelaria?: string;
  codigosComerciales: string[];
  cantidad?: string;
  unidadMedida?: string;
  /** The seller's own name for the unit; with unit `Otros` it says what the unit is (REFERENCE §7.8). */
  unidadMedidaComercial?: string;
  detalle: string;
  precioUnitario?: string;
  /** A surtido line's components (empty for any other line). */
  surtido: ComponenteSurtido[];
  montoTotal: string;
  descuentos: { monto: string; codigo?: string; codigoOtro?: string; naturaleza?: string }[];
  subTotal: string;
  impuestos: Impuesto[];
  impuestoNeto?: string;
  montoTotalLinea: string;
}

export interface OtroCargo {
  tipoDocumento: string;
  detalle: string;
  porcentaje?: string;
  nombreTercero?: string;
  montoCargo: string;
}

export interface MedioPago {
  tipo: string;
  otros?: string;
  total?: string;
}

export interface Referencia {
  tipoDoc: string;
  tipoDocOtro?: string;
  numero?: string;
  fechaEmision: string;
  codigo?: string;
  codigoOtro?: string;
  razon?: string;
}

export interface Resumen {
  codigoMoneda: string;
  tipoCambio?: string;
  /** The summary's totals that are present, in the XSD's order, by element name (TotalGravado, …). */
  totales: { nombre: string; monto: string }[];
  desglose: { codigo: string; codigoTarifa?: string; monto: string }[];
  totalImpuesto?: string;
  totalOtrosCargos?: string;
  /** IVA returned on health services paid by card: TotalComprobante is net of it. */
  totalIVADevuelto?: string;
  totalComprobante: string;
  mediosPago: MedioPago[];
}

export interface ComprobanteView {
  kind: KindCode;
  clave: string;
  consecutivo: string;
  /** As written: ISO 8601 with the Costa Rica offset. */
  fechaEmision: string;
  codigoActividadEmisor?: string;
  codigoActividadReceptor?: string;
  emisor: Party;
  receptor?: Party;
  condicionVenta?: string;
  condicionVentaOtros?: string;
  plazoCredito?: string;
  lineas: Linea[];
  otrosCargos: OtroCargo[];
  resumen: Resumen;
  referencias: Referencia[];
  otros: string[];
}
