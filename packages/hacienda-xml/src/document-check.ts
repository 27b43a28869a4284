// Turns a client document into a checked, computed model: schema validation (contracts), the cross-field
// rules of issue 4, the authoritative arithmetic and the comparison of the client's amounts. Returns every
// issue instead of throwing.
import { type DocumentLinea, DocumentRequest, validate } from '@cr/contracts';
import {
  type DesgloseEntry,
  type LineAmounts,
  type SummaryAmounts,
  computeLine,
  computeSummary,
} from './arithmetic';
import { parseIsoDateTime } from './cr-time';
import type { DocumentIssue } from './errors';
import { Clave, describeIdentificacionProblem } from './identifiers';
import type { Issuer } from './issuer';
import { Dec, ZERO, formatAmount, parseDecimal, sum, withinTolerance } from './money';

export type { DesgloseEntry };

/** IVA rate (percentage points) required by each CodigoTarifaIVA (REFERENCE §7.4); exenta is 0. */
export const TARIFA_BY_CODE: Record<string, string> = {
  '01': '0',
  '02': '1',
  '03': '2',
  '04': '4',
  '05': '0',
  '06': '4',
  '07': '8',
  '08': '13',
  '09': '0.5',
  '10': '0',
  '11': '0',
};

/** TARIFA_BY_CODE as decimals, built once. */
const TARIFA_DEC_BY_CODE: Record<string, Dec> = Object.fromEntries(
  Object.entries(TARIFA_BY_CODE).map(([code, rate]) => [code, new Dec(rate)]),
);
const ONE = new Dec(1);

export type TipoDocumento = '01' | '03' | '04';

export interface CheckedLine extends LineAmounts {
  source: DocumentLinea;
  impuestoCodigo: string;
  codigoTarifa: string;
  tarifa: Dec;
  cantidad: Dec;
  precioUnitario: Dec;
  tarifaExonerada?: Dec;
}

export interface CheckedDocument {
  document: DocumentRequest;
  tipo: TipoDocumento;
  fechaEmision: Date;
  condicionVenta: string;
  codigoMoneda: string;
  tipoCambio: Dec;
  lines: CheckedLine[];
  otrosCargos: Dec[];
  mediosPago: { tipo: string; otros?: string; total?: Dec }[];
  summary: SummaryAmounts;
}

export type CheckResult = { ok: true; value: CheckedDocument } | { ok: false; issues: DocumentIssue[] };

const TIPO_BY_DOC: Record<string, TipoDocumento> = { '1': '01', '3': '03', '4': '04' };
const CONDICION_NOT_IN: Record<TipoDocumento, string[]> = {
  '01': ['09', '11'],
  '03': [],
  '04': ['09', '11', '12'],
};
const EXONERATION_NC_ONLY = new Set(['01', '05', '06', '07']);
const EXONERATION_NEEDS_ARTICLE = new Set(['02', '03', '06', '07', '08']);
/** TipoDocIR whose Numero Hacienda checks to be a clave (REFERENCE §7.10). */
const REFERENCE_NEEDS_CLAVE = new Set(['01', '02', '03', '04', '09', '11', '12', '15']);

function medioCode(value: string | number): string {
  return typeof value === 'number' ? String(value).padStart(2, '0') : value;
}

/** Validates and computes a document; `issuer` (when given) must be the document's emisor. */
export function checkDocument(input: unknown, options: { issuer?: Issuer; now?: Date } = {}): CheckResult {
  const schema = validate(DocumentRequest, input);
  if (!schema.ok) return { ok: false, issues: schema.issues };
  const doc = schema.value;
  const issues: DocumentIssue[] = [];
  const add = (path: string, reason: string, expected?: string) =>
    issues.push(expected === undefined ? { path, reason } : { path, reason, expected });

  const tipo = TIPO_BY_DOC[doc.tipoDoc]!;
  const fechaEmision = parseIsoDateTime(doc.fechaEmision);
  if (!fechaEmision) add('fechaEmision', 'is not a valid date-time');

  if (options.issuer && options.issuer.numeroIdentificacion !== doc.emisor) {
    add('emisor', 'does not match the issuer the document is signed for');
  }

  // Receptor per document type.
  if (doc.receptor === '') {
    if (tipo !== '04')
      add('receptor', 'is required for an invoice or credit note (only a ticket may omit it)');
  } else {
    const t = doc.receptor.identificacion.tipo;
    if (t === '05' && tipo !== '04')
      add('receptor.identificacion.tipo', 'type 05 (foreign) is only allowed in a ticket');
    if (tipo === '04' && t !== '05') {
      add('receptor.identificacion.tipo', 'a ticket receptor is either absent ("") or foreign (type 05)');
    }
    const problem = describeIdentificacionProblem(t, doc.receptor.identificacion.numero);
    if (problem) add('receptor.identificacion.numero', problem.replace(/^numero /, ''));
    if (doc.receptor.otrasSenasExtranjero !== undefined && t !== '05') {
      add('receptor.otrasSenasExtranjero', 'is only allowed for a foreign receptor (type 05)');
    }
  }

  const condicionVenta = doc.condicionVenta ?? '01';
  if (CONDICION_NOT_IN[tipo].includes(condicionVenta)) {
    add('condicionVenta', `${condicionVenta} is not allowed for this document type`);
  }
  if ((condicionVenta === '02' || condicionVenta === '10') && doc.plazoCredito === undefined) {
    add('plazoCredito', 'is required when condicionVenta is 02 or 10');
  }
  if (condicionVenta === '99' && !doc.condicionVentaOtros)
    add('condicionVentaOtros', 'is required when condicionVenta is 99');
  if (tipo === '04' && doc.codigoActividadReceptor !== undefined) {
    add('codigoActividadReceptor', 'is not allowed in a ticket');
  }

  // Currency.
  const codigoMoneda = doc.resumenFactura.codigoTipoMoneda.codigoMoneda;
  const tipoCambioRaw = doc.resumenFactura.codigoTipoMoneda.tipoCambio;
  let tipoCambio = ONE;
  if (codigoMoneda === 'CRC') {
    if (tipoCambioRaw !== undefined && !new Dec(tipoCambioRaw).eq(ONE)) {
      add('resumenFactura.codigoTipoMoneda.tipoCambio', 'must be 1 for CRC');
    }
  } else if (tipoCambioRaw === undefined) {
    add('resumenFactura.codigoTipoMoneda.tipoCambio', `is required for ${codigoMoneda}`);
  } else if (new Dec(tipoCambioRaw).lte(0)) {
    add('resumenFactura.codigoTipoMoneda.tipoCambio', 'must be greater than 0');
  } else {
    tipoCambio = new Dec(tipoCambioRaw);
  }

  // Lines.
  const lines: CheckedLine[] = [];
  doc.detalleServicio.forEach((line, i) => {
    const p = `detalleServicio[${i}]`;
    if (line.numeroLinea !== i + 1) add(`${p}.numeroLinea`, `must be ${i + 1} (consecutive from 1)`);
    const cantidad = new Dec(String(line.cantidad));
    if (cantidad.decimalPlaces() > 3) add(`${p}.cantidad`, 'must have at most 3 decimals');
    const precioUnitario = new Dec(line.precioUnitario);
    if (precioUnitario.lte(0)) add(`${p}.precioUnitario`, 'must be greater than 0');
    if (tipo === '04' && line.tipoTransaccion !== undefined)
      add(`${p}.tipoTransaccion`, 'is not allowed in a ticket');
    const descuento = line.descuento !== undefined ? new Dec(line.descuento) : ZERO;
    if (descuento.gt(0) && line.codigoDescuento === '99' && !line.naturalezaDescuento) {
      add(`${p}.naturalezaDescuento`, 'is required when codigoDescuento is 99');
    }
    if (line.impuesto.length > 1) add(`${p}.impuesto`, 'only one tax entry (IVA) per line is supported');
    const tax = line.impuesto[0]!;
    const tp = `${p}.impuesto[0]`;
    if (tax.codigo !== '01') add(`${tp}.codigo`, 'only IVA (01) is supported by this engine');
    const tarifa = new Dec(tax.tarifa);
    const expectedTarifa = TARIFA_BY_CODE[tax.codigoTarifa]!;
    if (!tarifa.eq(TARIFA_DEC_BY_CODE[tax.codigoTarifa]!)) {
      add(`${tp}.tarifa`, `must be ${expectedTarifa} for codigoTarifa ${tax.codigoTarifa}`, expectedTarifa);
    }
    if (tipo !== '03' && ['05', '06', '07'].includes(tax.codigoTarifa)) {
      add(`${tp}.codigoTarifa`, `${tax.codigoTarifa} is a transitional rate only allowed in credit notes`);
    }
    let tarifaExonerada: Dec | undefined;
    const ex = tax.exoneracion;
    if (ex) {
      const ep = `${tp}.exoneracion`;
      tarifaExonerada = new Dec(String(ex.porcentajeExoneracion));
      if (tarifaExonerada.decimalPlaces() > 2)
        add(`${ep}.porcentajeExoneracion`, 'must have at most 2 decimals');
      if (tarifaExonerada.gt(tarifa))
        add(`${ep}.porcentajeExoneracion`, 'must not exceed the line tarifa', tarifa.toString());
      if (tarifa.lte(0)) add(ep, 'only a taxed line (tarifa > 0) can be exonerated');
      if (EXONERATION_NC_ONLY.has(ex.tipoDocumento) && tipo !== '03') {
        add(`${ep}.tipoDocumento`, `${ex.tipoDocumento} is only allowed in credit notes`);
      }
      if (EXONERATION_NEEDS_ARTICLE.has(ex.tipoDocumento)) {
        if (ex.articulo === undefined)
          add(`${ep}.articulo`, `is required for exoneration type ${ex.tipoDocumento}`);
        if (ex.inciso === undefined)
          add(`${ep}.inciso`, `is required for exoneration type ${ex.tipoDocumento}`);
      }
      if (ex.tipoDocumento === '99' && !ex.tipoDocumentoOtro)
        add(`${ep}.tipoDocumentoOtro`, 'is required when tipoDocumento is 99');
      if (ex.nombreInstitucion === '99' && !ex.nombreInstitucionOtros) {
        add(`${ep}.nombreInstitucionOtros`, 'is required when nombreInstitucion is 99');
      }
      if (!parseIsoDateTime(ex.fechaEmision)) add(`${ep}.fechaEmision`, 'is not a valid date-time');
    }
    const amounts = computeLine({
      cabys: line.codigo,
      cantidad,
      precioUnitario,
      descuento,
      impuestoCodigo: tax.codigo,
      codigoTarifa: tax.codigoTarifa,
      tarifa,
      ...(tarifaExonerada !== undefined ? { tarifaExonerada } : {}),
    });
    if (amounts.descuento.gt(amounts.montoTotal))
      add(`${p}.descuento`, 'must not exceed quantity × unit price');
    // The spec names the client's fields the other way round from the XML: its `subTotal` is
    // quantity × price (XML MontoTotal) and its `montoTotal` the line total before taxes (XML SubTotal).
    compare(`${p}.subTotal`, line.subTotal, amounts.montoTotal);
    compare(`${p}.montoTotal`, line.montoTotal, amounts.subTotal);
    compare(`${tp}.monto`, tax.monto, amounts.monto);
    if (ex?.montoExoneracion !== undefined && amounts.montoExoneracion) {
      compare(`${tp}.exoneracion.montoExoneracion`, ex.montoExoneracion, amounts.montoExoneracion);
    }
    compare(`${p}.impuestoNeto`, line.impuestoNeto, amounts.impuestoNeto);
    compare(`${p}.montoTotalLinea`, line.montoTotalLinea, amounts.montoTotalLinea);
    // computeLine returns a fresh object: extend it in place (same keys, same order as spreading it
    // into a new literal, without copying every field of every line).
    const checkedLine = amounts as CheckedLine;
    checkedLine.source = line;
    checkedLine.impuestoCodigo = tax.codigo;
    checkedLine.codigoTarifa = tax.codigoTarifa;
    checkedLine.tarifa = tarifa;
    checkedLine.cantidad = cantidad;
    checkedLine.precioUnitario = precioUnitario;
    if (tarifaExonerada !== undefined) checkedLine.tarifaExonerada = tarifaExonerada;
    lines.push(checkedLine);
  });

  // Other charges.
  const otrosCargos: Dec[] = [];
  (doc.otrosCargos ?? []).forEach((c, i) => {
    const p = `otrosCargos[${i}]`;
    if (c.tipoDocumento === '99' && !c.tipoDocumentoOtros)
      add(`${p}.tipoDocumentoOtros`, 'is required when tipoDocumento is 99');
    if (c.tipoDocumento === '04') {
      if (!c.identificacionTercero) add(`${p}.identificacionTercero`, 'is required when tipoDocumento is 04');
      if (!c.nombreTercero) add(`${p}.nombreTercero`, 'is required when tipoDocumento is 04');
    }
    if (c.identificacionTercero) {
      const problem = describeIdentificacionProblem(
        c.identificacionTercero.tipo,
        c.identificacionTercero.numero,
      );
      if (problem) add(`${p}.identificacionTercero.numero`, problem.replace(/^numero /, ''));
    }
    otrosCargos.push(new Dec(c.montoCargo));
  });

  const summary = computeSummary(lines, otrosCargos);
  if (doc.resumenFactura.totalOtrosCargos !== undefined) {
    compare('resumenFactura.totalOtrosCargos', doc.resumenFactura.totalOtrosCargos, summary.totalOtrosCargos);
  }

  // Payment means.
  const medios = doc.resumenFactura.mediosPago.map((m) => ({
    tipo: medioCode(m.tipoMedioPago),
    ...(m.medioPagoOtros !== undefined ? { otros: m.medioPagoOtros } : {}),
    ...(m.totalMedioPago !== undefined ? { total: new Dec(m.totalMedioPago) } : {}),
  }));
  const validMedios = new Set(['01', '02', '03', '04', '05', '06', '07', '99']);
  medios.forEach((m, i) => {
    const p = `resumenFactura.mediosPago[${i}]`;
    if (!validMedios.has(m.tipo)) add(`${p}.tipoMedioPago`, 'must be one of 01, 02, 03, 04, 05, 06, 07, 99');
    if (m.tipo === '99' && !m.otros) add(`${p}.medioPagoOtros`, 'is required when tipoMedioPago is 99');
    if (medios.length > 1 && m.total === undefined)
      add(`${p}.totalMedioPago`, 'is required when there is more than one payment means');
    if (m.total?.lte(0)) add(`${p}.totalMedioPago`, 'must be greater than 0');
  });
  if (medios.length === 0 && !['02', '08', '10'].includes(condicionVenta)) {
    add(
      'resumenFactura.mediosPago',
      'at least one payment means is required unless condicionVenta is 02, 08 or 10',
    );
  }
  if (medios.length === 1 && medios[0]!.total !== undefined) {
    compare(
      'resumenFactura.mediosPago[0].totalMedioPago',
      doc.resumenFactura.mediosPago[0]!.totalMedioPago!,
      summary.totalComprobante,
    );
  } else if (medios.length > 1 && medios.every((m) => m.total !== undefined)) {
    const total = sum(medios.map((m) => m.total!));
    if (!withinTolerance(total, summary.totalComprobante)) {
      add(
        'resumenFactura.mediosPago',
        'the totalMedioPago values must add up to TotalComprobante',
        formatAmount(summary.totalComprobante),
      );
    }
  }

  // Reference (credit notes).
  const ref = doc.informacionReferencia;
  if (tipo === '03' && !ref) add('informacionReferencia', 'is required for a credit note');
  if (ref) {
    if (REFERENCE_NEEDS_CLAVE.has(ref.tipoDocumento)) {
      try {
        Clave.parse(ref.numero);
      } catch (err) {
        add(
          'informacionReferencia.numero',
          `must be the 50-digit clave of the referenced document (${(err as Error).message})`,
        );
      }
    }
    const refDate = parseIsoDateTime(ref.fechaEmision);
    if (!refDate) add('informacionReferencia.fechaEmision', 'is not a valid date-time');
    else {
      const now = options.now ?? new Date();
      const tenYears = new Date(now.getTime());
      tenYears.setUTCFullYear(tenYears.getUTCFullYear() - 10);
      if (refDate < tenYears) add('informacionReferencia.fechaEmision', 'must be at most 10 years old');
      if (fechaEmision && refDate > fechaEmision)
        add('informacionReferencia.fechaEmision', 'must not be after fechaEmision');
    }
    if (ref.tipoDocumento === '99' && !ref.tipoDocumentoOtro)
      add('informacionReferencia.tipoDocumentoOtro', 'is required when tipoDocumento is 99');
    if (ref.codigo === '99' && !ref.codigoOtro)
      add('informacionReferencia.codigoOtro', 'is required when codigo is 99');
    if (ref.codigo === '12' && tipo !== '03')
      add('informacionReferencia.codigo', '12 is only allowed in credit notes');
  }

  if (issues.length > 0) return { ok: false, issues };
  return {
    ok: true,
    value: {
      document: doc,
      tipo,
      fechaEmision: fechaEmision!,
      condicionVenta,
      codigoMoneda,
      tipoCambio,
      lines,
      otrosCargos,
      mediosPago: medios,
      summary,
    },
  };

  function compare(path: string, client: string | number, expected: Dec): void {
    // Fast path: a client value written exactly as we write the amount (5 decimals) or in its shortest
    // form is the same number, so it is within tolerance without parsing it into a decimal.
    // (A string in exponential notation is not a valid amount, so only plain shortest forms qualify.)
    const text = typeof client === 'number' ? String(client) : client;
    if (text === formatAmount(expected)) return;
    const shortest = expected.toString();
    if (text === shortest && (typeof client === 'number' || shortest.indexOf('e') === -1)) return;
    const value = parseDecimal(client);
    if (!value || !withinTolerance(value, expected)) {
      add(path, 'does not match the computed amount (tolerance 0.01)', formatAmount(expected));
    }
  }
}
