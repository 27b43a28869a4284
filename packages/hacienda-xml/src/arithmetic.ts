// Line and summary arithmetic of REFERENCE §9: every stored value rounded to 5 decimals half-up, and the
// summary built from the rounded line values so that every identity of §9.2 holds exactly. How the taxes
// of one line compose (which base each one uses, what counts as asumido) is ADR 0009.
import { type Dec, HUNDRED, ZERO, round5, sum } from './money';

export type TaxCategory = 'gravado' | 'exento' | 'noSujeto';

/** The inputs of a specific (non-rate) tax, codes 03–06. */
export interface EspecificoInput {
  cantidadUnidadMedida: Dec;
  porcentaje?: Dec;
  volumenUnidadConsumo?: Dec;
  impuestoUnidad: Dec;
}

/** One tax of a line; rates in percentage points. */
export interface TaxInput {
  codigo: string;
  /** CodigoTarifaIVA, for 01 and 07. */
  codigoTarifa?: string;
  /** Tarifa of 01, 07, 02, 12 and 99. */
  tarifa?: Dec;
  /** FactorCalculoIVA of 08. */
  factor?: Dec;
  especifico?: EspecificoInput;
  /** Code 05 has two formulas (beverages, soaps) that the XML cannot tell apart; default beverages. */
  jabon?: boolean;
  /** TarifaExonerada in percentage points, when the tax carries an exoneration. */
  tarifaExonerada?: Dec;
}

export interface DiscountInput {
  monto: Dec;
  codigo: string;
}

/** What the arithmetic needs of a line; amounts are decimals. */
export interface LineInput {
  cabys: string;
  cantidad: Dec;
  precioUnitario: Dec;
  descuentos: readonly DiscountInput[];
  impuestos: readonly TaxInput[];
  ivaCobradoFabrica?: string;
  /** An edited BaseImponible: only with IVACobradoFabrica 01 or a 07 tax (REFERENCE §9.1 item 4). */
  baseImponible?: Dec;
  /** Tax charged at factory level that the issuer declares as asumido (IVACobradoFabrica 01). */
  asumidoFabrica?: Dec;
}

export interface TaxAmounts {
  codigo: string;
  codigoTarifa?: string;
  monto: Dec;
  /** Proporcion of an alcohol tax (04): CantidadUnidadMedida × Porcentaje. */
  proporcion?: Dec;
  montoExoneracion?: Dec;
  /** The part of this tax the issuer absorbs (regalías, factory level). */
  asumido: Dec;
  /** Monto − MontoExoneracion − asumido: what this tax adds to ImpuestoNeto and TotalDesgloseImpuesto. */
  neto: Dec;
}

export interface LineAmounts {
  isService: boolean;
  category: TaxCategory;
  montoTotal: Dec;
  descuentos: Dec[];
  /** Σ descuentos. */
  descuento: Dec;
  subTotal: Dec;
  baseImponible: Dec;
  impuestos: TaxAmounts[];
  impuestoAsumidoEmisorFabrica: Dec;
  /** What of the declared factory-level asumido found no tax left to absorb it (must be 0). */
  asumidoFabricaUnplaced: Dec;
  impuestoNeto: Dec;
  montoTotalLinea: Dec;
  /** The part of MontoTotal that counts as exonerated in the summary (%exon × MontoTotal). */
  exoneradoPart: Dec;
  /** The part of MontoTotal that counts as gravado, exento or no sujeto (MontoTotal − exoneradoPart). */
  categoryPart: Dec;
  /** The IVA (net) of a health-service line, returned to the buyer when paid by card (TotalIVADevuelto). */
  ivaDevolvible: Dec;
  /** A surtido line's share of MontoTotal per component (its CABYS and IVA class), instead of the line's. */
  parts?: Array<{ isService: boolean; category: TaxCategory; amount: Dec }>;
  /** The taxes TotalDesgloseImpuesto counts when not the line's own (a surtido's components, scaled). */
  desgloseTaxes?: TaxAmounts[];
}

export interface DesgloseEntry {
  codigo: string;
  codigoTarifa?: string;
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

/** The IVA taxes: 01 and 07 by rate code, 08 by factor. A line carries at most one of them. */
export const IVA_CODES: ReadonlySet<string> = new Set(['01', '07', '08']);
/** Taxes computed as Tarifa × SubTotal. */
export const RATE_ON_SUBTOTAL_CODES: ReadonlySet<string> = new Set(['02', '12', '99']);
/** Taxes whose amount is computed from DatosImpuestoEspecifico. */
export const ESPECIFICO_CODES: ReadonlySet<string> = new Set(['03', '04', '05', '06']);
/** Taxes that are part of the IVA base: BaseImponible = SubTotal + these (REFERENCE §9.1 item 4). */
export const IN_IVA_BASE_CODES: ReadonlySet<string> = new Set(['02', '04', '05', '12']);
/** Discounts (regalías, bonificaciones) that do not reduce the IVA base; of those the issuer absorbs 01 and 03. */
const GIFT_DISCOUNTS = new Set(['01', '02', '03']);
const ABSORBED_GIFT_DISCOUNTS = new Set(['01', '03']);

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

/**
 * CABYS 931…: human health services (CPC 93.1). Their IVA, when the buyer pays by card, is returned to
 * the buyer and shown as TotalIVADevuelto (REFERENCE §9.2, ADR 0024).
 */
export function isHealthServiceCabys(cabys: string): boolean {
  return cabys.startsWith('931');
}

/** The IVA classification of a line: by its IVA tax; exento with IVACobradoFabrica 02; no IVA tax = no sujeto. */
export function lineCategory(
  impuestos: ReadonlyArray<{ codigo: string; codigoTarifa?: string }>,
  ivaCobradoFabrica?: string,
): TaxCategory {
  if (ivaCobradoFabrica === '02') return 'exento';
  const iva = impuestos.find((t) => IVA_CODES.has(t.codigo));
  if (!iva) return 'noSujeto';
  return iva.codigo === '08' ? 'gravado' : categorize(iva.codigoTarifa ?? '08');
}

/** Monto of a specific tax (REFERENCE §9.1 item 5), before rounding. */
export function especificoMonto(codigo: string, cantidad: Dec, e: EspecificoInput, jabon = false): Dec {
  switch (codigo) {
    case '03':
      return e.cantidadUnidadMedida.times(e.impuestoUnidad);
    case '04':
      return cantidad.times(proporcionOf(e)).times(e.impuestoUnidad);
    case '05': {
      const volumen = e.volumenUnidadConsumo ?? ZERO;
      if (jabon) return cantidad.times(volumen).times(e.impuestoUnidad);
      return volumen.isZero()
        ? ZERO
        : cantidad.times(e.cantidadUnidadMedida).times(e.impuestoUnidad).div(volumen);
    }
    default:
      return cantidad.times(e.cantidadUnidadMedida).times(e.impuestoUnidad);
  }
}

/** Proporcion of the alcohol tax: CantidadUnidadMedida × Porcentaje, at the XSD's 5 decimals. */
export function proporcionOf(e: EspecificoInput): Dec {
  return round5(e.cantidadUnidadMedida.times(e.porcentaje ?? ZERO));
}

export function computeLine(input: LineInput): LineAmounts {
  const category = lineCategory(input.impuestos, input.ivaCobradoFabrica);
  const montoTotal = round5(input.cantidad.times(input.precioUnitario));
  const descuentos = input.descuentos.map((d) => round5(d.monto));
  const descuento = sum(descuentos);
  const subTotal = montoTotal.minus(descuento);
  let gifts = ZERO;
  let absorbedGifts = ZERO;
  input.descuentos.forEach((d, i) => {
    if (GIFT_DISCOUNTS.has(d.codigo)) gifts = gifts.plus(descuentos[i]!);
    if (ABSORBED_GIFT_DISCOUNTS.has(d.codigo)) absorbedGifts = absorbedGifts.plus(descuentos[i]!);
  });

  // Taxes outside IVA first: some of them are part of the IVA base.
  const taxes: TaxAmounts[] = input.impuestos.map((t) => ({
    codigo: t.codigo,
    ...(t.codigoTarifa !== undefined ? { codigoTarifa: t.codigoTarifa } : {}),
    monto: ZERO,
    asumido: ZERO,
    neto: ZERO,
  }));
  const bases: Dec[] = input.impuestos.map(() => subTotal);
  let inBase = ZERO;
  input.impuestos.forEach((t, i) => {
    const out = taxes[i]!;
    if (RATE_ON_SUBTOTAL_CODES.has(t.codigo)) {
      out.monto = round5((t.tarifa ?? ZERO).div(HUNDRED).times(subTotal));
    } else if (ESPECIFICO_CODES.has(t.codigo) && t.especifico) {
      out.monto = round5(especificoMonto(t.codigo, input.cantidad, t.especifico, t.jabon));
      if (t.codigo === '04') out.proporcion = proporcionOf(t.especifico);
    }
    if (IN_IVA_BASE_CODES.has(t.codigo)) inBase = inBase.plus(out.monto);
  });
  const baseImponible = input.baseImponible ?? subTotal.plus(inBase);

  input.impuestos.forEach((t, i) => {
    const out = taxes[i]!;
    const rate = (t.tarifa ?? ZERO).div(HUNDRED);
    if (t.codigo === '01') {
      // Regalías and bonificaciones keep their IVA: it is charged on the gifted part too (§9.1 item 5).
      bases[i] = baseImponible.plus(gifts);
      out.monto = t.codigoTarifa === '10' ? ZERO : round5(rate.times(bases[i]!));
      if (!absorbedGifts.isZero()) out.asumido = round5(rate.times(absorbedGifts));
    } else if (t.codigo === '07') {
      bases[i] = baseImponible;
      out.monto = t.codigoTarifa === '10' ? ZERO : round5(rate.times(baseImponible));
    } else if (t.codigo === '08') {
      out.monto = round5((t.factor ?? ZERO).times(subTotal));
    }
  });

  // Exonerations (taxes with a rate), then the factory-level asumido, each capped by what is left.
  let factoryLeft = input.asumidoFabrica ?? ZERO;
  input.impuestos.forEach((t, i) => {
    const out = taxes[i]!;
    if (t.tarifaExonerada !== undefined) {
      // On BaseImponible (§9.1 item 6), not on IVA's base with the gifts: their IVA is the issuer's asumido.
      const exonerationBase = t.codigo === '01' ? baseImponible : bases[i]!;
      const raw = round5(t.tarifaExonerada.div(HUNDRED).times(exonerationBase));
      out.montoExoneracion = raw.gt(out.monto) ? out.monto : raw;
    }
    let left = out.monto.minus(out.montoExoneracion ?? ZERO);
    if (out.asumido.gt(left)) out.asumido = left;
    left = left.minus(out.asumido);
    if (factoryLeft.gt(0) && left.gt(0)) {
      const take = factoryLeft.gt(left) ? left : factoryLeft;
      out.asumido = out.asumido.plus(take);
      factoryLeft = factoryLeft.minus(take);
    }
    out.neto = out.monto.minus(out.montoExoneracion ?? ZERO).minus(out.asumido);
  });

  const impuestoAsumidoEmisorFabrica = sum(taxes.map((t) => t.asumido));
  const impuestoNeto = sum(taxes.map((t) => t.neto));
  const montoTotalLinea = subTotal.plus(impuestoNeto);
  // %exon = MontoExoneracion / Monto of the line's IVA; its share of MontoTotal moves to the exonerated bucket.
  const iva = taxes.find((t) => IVA_CODES.has(t.codigo));
  const exoneradoPart =
    iva?.montoExoneracion !== undefined && iva.monto.gt(0)
      ? round5(montoTotal.times(iva.montoExoneracion).div(iva.monto))
      : ZERO;
  return {
    isService: isServiceCabys(input.cabys),
    ivaDevolvible: iva && isHealthServiceCabys(input.cabys) ? iva.neto : ZERO,
    category,
    montoTotal,
    descuentos,
    descuento,
    subTotal,
    baseImponible,
    impuestos: taxes,
    impuestoAsumidoEmisorFabrica,
    asumidoFabricaUnplaced: factoryLeft,
    impuestoNeto,
    montoTotalLinea,
    exoneradoPart,
    categoryPart: montoTotal.minus(exoneradoPart),
  };
}

/** The TotalDesgloseImpuesto key of a tax: by code, and by rate code for the rate-coded IVA (01, 07). */
export function desgloseKey(codigo: string, codigoTarifa?: string): string {
  return codigo === '01' || codigo === '07' ? `${codigo}|${codigoTarifa ?? ''}` : codigo;
}

/**
 * `ivaDevuelto`: the document is paid by card alone (every MedioPago 02) and its kind has TotalIVADevuelto
 * (FE, TE, NC, ND); then the IVA of its health-service lines is returned (ADR 0024).
 */
export function computeSummary(
  lines: ReadonlyArray<LineAmounts>,
  otrosCargos: ReadonlyArray<Dec>,
  options: { ivaDevuelto?: boolean } = {},
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
    if (l.parts) {
      for (const part of l.parts) {
        if (part.isService) {
          if (part.category === 'gravado') bucket.servG = bucket.servG.plus(part.amount);
          else if (part.category === 'exento') bucket.servE = bucket.servE.plus(part.amount);
          else bucket.servN = bucket.servN.plus(part.amount);
        } else if (part.category === 'gravado') bucket.mercG = bucket.mercG.plus(part.amount);
        else if (part.category === 'exento') bucket.mercE = bucket.mercE.plus(part.amount);
        else bucket.mercN = bucket.mercN.plus(part.amount);
      }
    } else if (l.isService) {
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
    for (const t of l.desgloseTaxes ?? l.impuestos) {
      const rated = t.codigo === '01' || t.codigo === '07';
      const key = desgloseKey(t.codigo, t.codigoTarifa);
      const entry = desglose.get(key);
      if (entry) entry.totalMontoImpuesto = entry.totalMontoImpuesto.plus(t.neto);
      else
        desglose.set(key, {
          codigo: t.codigo,
          ...(rated && t.codigoTarifa !== undefined ? { codigoTarifa: t.codigoTarifa } : {}),
          totalMontoImpuesto: t.neto,
        });
    }
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
  const totalIVADevuelto = options.ivaDevuelto ? sum(lines.map((l) => l.ivaDevolvible)) : ZERO;
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
