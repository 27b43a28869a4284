// Line and summary arithmetic of REFERENCE §9: every stored value rounded to 5 decimals half-up, and the
// summary built from the rounded line values so that every identity of §9.2 holds exactly.
import { type Dec, HUNDRED, ZERO, round5, sum } from './money';

export type TaxCategory = 'gravado' | 'exento' | 'noSujeto';

/** What the arithmetic needs of a line; amounts are decimals, rates in percentage points. */
export interface LineInput {
  cabys: string;
  cantidad: Dec;
  precioUnitario: Dec;
  descuento: Dec;
  impuestoCodigo: string;
  codigoTarifa: string;
  tarifa: Dec;
  /** TarifaExonerada in percentage points, when the line carries an exoneration. */
  tarifaExonerada?: Dec;
}

export interface LineAmounts {
  isService: boolean;
  category: TaxCategory;
  montoTotal: Dec;
  descuento: Dec;
  subTotal: Dec;
  baseImponible: Dec;
  monto: Dec;
  montoExoneracion?: Dec;
  impuestoAsumidoEmisorFabrica: Dec;
  impuestoNeto: Dec;
  montoTotalLinea: Dec;
  /** The part of MontoTotal that counts as exonerated in the summary (%exon × MontoTotal). */
  exoneradoPart: Dec;
  /** The part of MontoTotal that counts as gravado, exento or no sujeto (MontoTotal − exoneradoPart). */
  categoryPart: Dec;
}

export interface DesgloseEntry {
  codigo: string;
  codigoTarifa: string;
  totalMontoImpuesto: Dec;
}

export interface SummaryAmounts {
  totalServGravados: Dec;
  totalServExentos: Dec;
  totalServExonerado: Dec;
  totalServNoSujeto: Dec;
  totalMercanciasGravadas: Dec;
  totalMercanciasExentas: Dec;
  totalMercExonerada: Dec;
  totalMercNoSujeta: Dec;
  totalGravado: Dec;
  totalExento: Dec;
  totalExonerado: Dec;
  totalNoSujeto: Dec;
  totalVenta: Dec;
  totalDescuentos: Dec;
  totalVentaNeta: Dec;
  totalDesgloseImpuesto: DesgloseEntry[];
  totalImpuesto: Dec;
  totalImpAsumEmisorFabrica: Dec;
  totalIVADevuelto: Dec;
  totalOtrosCargos: Dec;
  totalComprobante: Dec;
}

/** Gravado: IVA codes 02–09; exento: 10; no sujeto: 01 and 11 (REFERENCE §9.2). */
export function categorize(codigoTarifa: string): TaxCategory {
  if (codigoTarifa === '10') return 'exento';
  if (codigoTarifa === '01' || codigoTarifa === '11') return 'noSujeto';
  return 'gravado';
}

/** A CABYS starting with 5–9 is a service, 0–4 goods. */
export function isServiceCabys(cabys: string): boolean {
  return cabys.charCodeAt(0) >= 53; // '5'
}

export function computeLine(input: LineInput): LineAmounts {
  const category = categorize(input.codigoTarifa);
  const montoTotal = round5(input.cantidad.times(input.precioUnitario));
  const descuento = round5(input.descuento);
  const subTotal = montoTotal.minus(descuento);
  const baseImponible = subTotal;
  const monto = category === 'exento' ? ZERO : round5(input.tarifa.div(HUNDRED).times(baseImponible));
  let montoExoneracion: Dec | undefined;
  if (input.tarifaExonerada !== undefined) {
    const raw = round5(input.tarifaExonerada.div(HUNDRED).times(baseImponible));
    montoExoneracion = raw.gt(monto) ? monto : raw;
  }
  const impuestoAsumidoEmisorFabrica = ZERO;
  const impuestoNeto = monto.minus(montoExoneracion ?? ZERO).minus(impuestoAsumidoEmisorFabrica);
  const montoTotalLinea = subTotal.plus(impuestoNeto);
  // %exon = MontoExoneracion / Monto of the line; its share of MontoTotal moves to the exonerated bucket.
  const exoneradoPart =
    montoExoneracion !== undefined && monto.gt(0)
      ? round5(montoTotal.times(montoExoneracion).div(monto))
      : ZERO;
  return {
    isService: isServiceCabys(input.cabys),
    category,
    montoTotal,
    descuento,
    subTotal,
    baseImponible,
    monto,
    ...(montoExoneracion !== undefined ? { montoExoneracion } : {}),
    impuestoAsumidoEmisorFabrica,
    impuestoNeto,
    montoTotalLinea,
    exoneradoPart,
    categoryPart: montoTotal.minus(exoneradoPart),
  };
}

export function computeSummary(
  lines: ReadonlyArray<LineAmounts & { impuestoCodigo: string; codigoTarifa: string }>,
  otrosCargos: ReadonlyArray<Dec>,
): SummaryAmounts {
  const bucket = {
    servG: ZERO,
    servE: ZERO,
    servX: ZERO,
    servN: ZERO,
    mercG: ZERO,
    mercE: ZERO,
    mercX: ZERO,
    mercN: ZERO,
  };
  const desglose = new Map<string, DesgloseEntry>();
  for (const l of lines) {
    if (l.isService) {
      if (l.category === 'gravado') bucket.servG = bucket.servG.plus(l.categoryPart);
      else if (l.category === 'exento') bucket.servE = bucket.servE.plus(l.categoryPart);
      else bucket.servN = bucket.servN.plus(l.categoryPart);
      bucket.servX = bucket.servX.plus(l.exoneradoPart);
    } else {
      if (l.category === 'gravado') bucket.mercG = bucket.mercG.plus(l.categoryPart);
      else if (l.category === 'exento') bucket.mercE = bucket.mercE.plus(l.categoryPart);
      else bucket.mercN = bucket.mercN.plus(l.categoryPart);
      bucket.mercX = bucket.mercX.plus(l.exoneradoPart);
    }
    const key = `${l.impuestoCodigo}|${l.codigoTarifa}`;
    const entry = desglose.get(key);
    if (entry) entry.totalMontoImpuesto = entry.totalMontoImpuesto.plus(l.impuestoNeto);
    else
      desglose.set(key, {
        codigo: l.impuestoCodigo,
        codigoTarifa: l.codigoTarifa,
        totalMontoImpuesto: l.impuestoNeto,
      });
  }
  const totalGravado = bucket.servG.plus(bucket.mercG);
  const totalExento = bucket.servE.plus(bucket.mercE);
  const totalExonerado = bucket.servX.plus(bucket.mercX);
  const totalNoSujeto = bucket.servN.plus(bucket.mercN);
  const totalVenta = totalGravado.plus(totalExento).plus(totalExonerado).plus(totalNoSujeto);
  const totalDescuentos = sum(lines.map((l) => l.descuento));
  const totalVentaNeta = totalVenta.minus(totalDescuentos);
  const totalImpuesto = sum(lines.map((l) => l.impuestoNeto));
  const totalImpAsumEmisorFabrica = sum(lines.map((l) => l.impuestoAsumidoEmisorFabrica));
  const totalIVADevuelto = ZERO;
  const totalOtrosCargos = round5(sum(otrosCargos));
  const totalComprobante = totalVentaNeta.plus(totalImpuesto).plus(totalOtrosCargos).minus(totalIVADevuelto);
  return {
    totalServGravados: bucket.servG,
    totalServExentos: bucket.servE,
    totalServExonerado: bucket.servX,
    totalServNoSujeto: bucket.servN,
    totalMercanciasGravadas: bucket.mercG,
    totalMercanciasExentas: bucket.mercE,
    totalMercExonerada: bucket.mercX,
    totalMercNoSujeta: bucket.mercN,
    totalGravado,
    totalExento,
    totalExonerado,
    totalNoSujeto,
    totalVenta,
    totalDescuentos,
    totalVentaNeta,
    totalDesgloseImpuesto: [...desglose.values()],
    totalImpuesto,
    totalImpAsumEmisorFabrica,
    totalIVADevuelto,
    totalOtrosCargos,
    totalComprobante,
  };
}
