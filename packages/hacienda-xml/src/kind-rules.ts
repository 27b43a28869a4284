// What differs between the seven comprobantes an issuer sends, one row per kind: the request's tipoDoc →
// the COMPROBANTE_KINDS row (root, namespace, XSD, consecutivo type), the folioType of its events, the
// cross-field rules its Anexos and XSD impose (receptor, condición de venta, references, rates) and the
// shape of its XML (which optional header, line and summary elements its XSD has). The checker and the
// XML builder read only this table, so adding or changing a kind is one row here.
import {
  CONDICIONES_VENTA,
  type RequestFolioType,
  TIPOS_IDENTIFICACION_NACIONAL,
  type TipoDoc,
} from '@cr/contracts';
import { COMPROBANTE_KINDS, type ComprobanteKind } from './comprobante-kinds';

/** The document type code of the consecutivo (REFERENCE §1.1). */
export type TipoDocumento = '01' | '02' | '03' | '04' | '08' | '09' | '10';

/** Summary totals some XSDs lack (FEE has no exonerated/no-sujeto totals, REP only the few it has). */
export type ResumenShape = 'full' | 'purchase' | 'export' | 'payment';

/** Line elements: FE/TE/NC/ND (full), FEC (no IVACobradoFabrica/ImpuestoAsumido…), FEE, REP. */
export type LineShape = 'full' | 'purchase' | 'export' | 'payment';

/** The IVA rates for NC/ND only (REFERENCE §7.4): 05, 06 and 07, transitory (`tarifasTransitorias`). */
export const TRANSITIONAL_TARIFAS: ReadonlySet<string> = new Set(['05', '06', '07']);
/** The exoneration types for NC/ND only (REFERENCE §7.5; `exoneracion: 'all'`). */
export const EXONERATION_NC_ONLY: ReadonlySet<string> = new Set(['01', '05', '06', '07']);
/** The CondicionVenta on credit, which need no MedioPago (REFERENCE §7.3: "mandatory except when …"). */
export const CONDICIONES_SIN_MEDIO_PAGO: ReadonlySet<string> = new Set(['02', '08', '10']);

export interface KindRules {
  tipoDoc: TipoDoc;
  tipo: TipoDocumento;
  /** Root element, key of COMPROBANTE_KINDS. */
  root: string;
  kind: ComprobanteKind;
  /** The kind's own folioType; INVOICE is accepted for every kind too. */
  folioType: RequestFolioType;
  /** The Spanish title (PDF, docs). */
  title: string;
  /** An English name for error messages ("a debit note"). */
  name: string;
  /** CondicionVenta codes the kind's XSD enumerates. */
  condiciones: readonly string[];
  /** Default condicionVenta when the request has none. */
  condicionPorDefecto: string;
  /**
   * Who the Receptor is: a client-given receiver (required, or optional for a ticket), or the issuer itself
   * (FEC, where the client gives the supplier as `proveedor`).
   */
  receptor: 'required' | 'ticket' | 'issuer';
  /** Identification types allowed for the receptor (REFERENCE §7.1). */
  receptorTipos: readonly string[];
  /** Whether informacionReferencia is required (REFERENCE §7.10: NC, ND, FEC, REP). */
  referenciaRequerida: boolean;
  /** CodigoTarifaIVA 05–07 are transitional rates for NC/ND only. */
  tarifasTransitorias: boolean;
  /** Exoneration types 01, 05, 06, 07 are for NC/ND only; FEE and REP carry no Exoneracion at all. */
  exoneracion: 'all' | 'ordinary' | 'none';
  /** LineaDetalle/DetalleSurtido has a place in the XML (FE, ND, NC, TE, FEE; not FEC, REP). */
  surtido: boolean;
  /** Impuesto/MontoExportacion has a place in the XML (FEE, NC, ND). */
  montoExportacion: boolean;
  /** Whether discounts and other charges have a place in the XML. */
  descuentos: boolean;
  otrosCargos: boolean;
  /** Payment means: required unless on credit (most kinds), or always (REP, whose XSD requires one). */
  medioPagoSiempre: boolean;
  /** CodigoActividadEmisor: required (FE/TE/FEE), optional (NC/ND), the supplier's (FEC: omitted), none (REP). */
  actividadEmisor: 'required' | 'optional' | 'none';
  /** CodigoActividadReceptor: optional client value, the issuer's own activity (FEC), or absent. */
  actividadReceptor: 'optional' | 'issuer' | 'none';
  /** TipoTransaccion has a place in the lines. */
  tipoTransaccion: boolean;
  /** PartidaArancelaria has a place in the lines; 'goods' = required on goods lines (FEE). */
  partidaArancelaria: 'none' | 'optional' | 'goods';
  lines: LineShape;
  resumen: ResumenShape;
}

/** The CondicionVenta codes of Nota 5 except the given ones (each XSD enumerates its own subset). */
const condicionesExcept = (...codes: string[]) => CONDICIONES_VENTA.filter((c) => !codes.includes(c));
/**
 * 09 and 11 pay a sale on credit: only a REP (or a note adjusting one) carries them. 13 (bienes usados de
 * un no contribuyente) is FEC only (REFERENCE §7.2), though the FE, TE and FEE XSDs enumerate it.
 */
const FE_CONDICIONES = condicionesExcept('09', '11', '13');
/** TE and FEE: also without 12 (mercancía no nacionalizada, FE only). */
const TE_FEE_CONDICIONES = condicionesExcept('09', '11', '12', '13');
/** FEC: 13 is its own. */
const FEC_CONDICIONES = condicionesExcept('09', '11', '12');
const NATIONAL: readonly string[] = TIPOS_IDENTIFICACION_NACIONAL;

const base = {
  condicionPorDefecto: '01',
  tarifasTransitorias: false,
  exoneracion: 'ordinary',
  montoExportacion: false,
  surtido: true,
  descuentos: true,
  otrosCargos: true,
  medioPagoSiempre: false,
  tipoTransaccion: true,
  partidaArancelaria: 'none',
  lines: 'full',
  resumen: 'full',
} as const;

function row(
  tipoDoc: TipoDoc,
  root: string,
  rules: Omit<KindRules, 'tipoDoc' | 'root' | 'kind' | 'tipo'>,
): KindRules {
  const kind = COMPROBANTE_KINDS[root]!;
  return { tipoDoc, root, kind, tipo: kind.tipo as TipoDocumento, ...rules };
}

export const KIND_RULES: Readonly<Record<TipoDoc, KindRules>> = {
  '1': row('1', 'FacturaElectronica', {
    ...base,
    folioType: 'INVOICE',
    title: 'Factura Electrónica',
    name: 'invoice',
    condiciones: FE_CONDICIONES,
    receptor: 'required',
    receptorTipos: NATIONAL,
    referenciaRequerida: false,
    actividadEmisor: 'required',
    actividadReceptor: 'optional',
  }),
  '2': row('2', 'NotaDebitoElectronica', {
    ...base,
    folioType: 'DEBIT_NOTE',
    title: 'Nota de Débito Electrónica',
    name: 'debit note',
    montoExportacion: true,
    condiciones: CONDICIONES_VENTA,
    receptor: 'required',
    receptorTipos: [...NATIONAL, '05'],
    referenciaRequerida: true,
    tarifasTransitorias: true,
    exoneracion: 'all',
    actividadEmisor: 'optional',
    actividadReceptor: 'optional',
    partidaArancelaria: 'optional',
  }),
  '3': row('3', 'NotaCreditoElectronica', {
    ...base,
    folioType: 'CREDIT_NOTE',
    title: 'Nota de Crédito Electrónica',
    name: 'credit note',
    montoExportacion: true,
    condiciones: CONDICIONES_VENTA,
    receptor: 'required',
    // The service's contract: "Invoice and credit note require an identified receiver with type 01 to 04",
    // narrower than Hacienda, which also takes 05 in a credit note (REFERENCE §7.1).
    receptorTipos: NATIONAL,
    referenciaRequerida: true,
    tarifasTransitorias: true,
    exoneracion: 'all',
    actividadEmisor: 'optional',
    actividadReceptor: 'optional',
    partidaArancelaria: 'optional',
  }),
  '4': row('4', 'TiqueteElectronico', {
    ...base,
    folioType: 'INVOICE',
    title: 'Tiquete Electrónico',
    name: 'ticket',
    condiciones: TE_FEE_CONDICIONES,
    receptor: 'ticket',
    receptorTipos: ['05'],
    referenciaRequerida: false,
    actividadEmisor: 'required',
    actividadReceptor: 'none',
    tipoTransaccion: false,
  }),
  '8': row('8', 'FacturaElectronicaCompra', {
    ...base,
    folioType: 'INVOICE',
    title: 'Factura Electrónica de Compra',
    name: 'purchase invoice',
    surtido: false,
    condiciones: FEC_CONDICIONES,
    receptor: 'issuer',
    receptorTipos: [],
    referenciaRequerida: true,
    actividadEmisor: 'none',
    actividadReceptor: 'issuer',
    lines: 'purchase',
    resumen: 'purchase',
  }),
  '9': row('9', 'FacturaElectronicaExportacion', {
    ...base,
    folioType: 'INVOICE',
    title: 'Factura Electrónica de Exportación',
    name: 'export invoice',
    montoExportacion: true,
    condiciones: TE_FEE_CONDICIONES,
    receptor: 'required',
    receptorTipos: ['05'],
    referenciaRequerida: false,
    exoneracion: 'none',
    actividadEmisor: 'required',
    actividadReceptor: 'none',
    partidaArancelaria: 'goods',
    lines: 'export',
    resumen: 'export',
  }),
  '10': row('10', 'ReciboElectronicoPago', {
    ...base,
    folioType: 'PAYMENT_RECEIPT',
    title: 'Recibo Electrónico de Pago',
    name: 'payment receipt',
    surtido: false,
    // 09 pays services rendered to the State on credit (08), 11 a sale on credit under art. 27 LIVA (10).
    condiciones: ['09', '11'],
    condicionPorDefecto: '11',
    receptor: 'required',
    receptorTipos: [...NATIONAL, '05'],
    referenciaRequerida: true,
    exoneracion: 'none',
    descuentos: false,
    otrosCargos: false,
    medioPagoSiempre: true,
    actividadEmisor: 'none',
    actividadReceptor: 'none',
    tipoTransaccion: false,
    lines: 'payment',
    resumen: 'payment',
  }),
};

/** "a ticket", "an invoice": the English name with its article, for messages. */
export function articled(name: string): string {
  return /^[aeiou]/.test(name) ? `an ${name}` : `a ${name}`;
}

/** The rules of a request's tipoDoc. */
export function kindRulesOf(tipoDoc: TipoDoc): KindRules {
  return KIND_RULES[tipoDoc];
}

/** The rules by consecutivo type ('01'…'10'), for readers of stored documents. */
export const KIND_RULES_BY_TIPO: Readonly<Record<string, KindRules>> = Object.fromEntries(
  Object.values(KIND_RULES).map((r) => [r.tipo, r]),
);
