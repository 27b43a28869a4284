// The "Cálculo" identities of REFERENCE §9 checked on a comprobante's own (rounded) values, for every tax of
// Nota 8 and with the composition rules of ADR 0009: what the sandbox judges and what the tenant-api checks
// on a supplier's document. Every comparison allows Hacienda's two-decimal tolerance; a sum over n lines
// allows n times it (each line may have been rounded to 2 decimals). Returns the mismatches, never throws.
import {
  ESPECIFICO_CODES,
  IN_IVA_BASE_CODES,
  IVA_CODES,
  RATE_ON_SUBTOTAL_CODES,
  type TaxCategory,
  desgloseKey,
  especificoMonto,
  isHealthServiceCabys,
  isServiceCabys,
  lineCategory,
} from './arithmetic';
import type { AmountLine, AmountTax, ComprobanteAmounts } from './comprobante-amounts';
import { Dec, HUNDRED, TOLERANCE, ZERO, formatAmount } from './money';

export type ArithmeticKind = 'linea' | 'resumen' | 'servicios' | 'mercancias' | 'desglose' | 'medioPago';

export interface ArithmeticMismatch {
  /** Element path, e.g. `LineaDetalle[2]/Impuesto[1]/Monto` or `ResumenFactura/TotalComprobante`. */
  path: string;
  found: string;
  expected: string;
  kind: ArithmeticKind;
}

const GIFTS = new Set(['01', '02', '03']);
const ABSORBED_GIFTS = new Set(['01', '03']);

function dec(value: string | undefined): Dec | undefined {
  return value !== undefined && /^-?\d+(\.\d+)?$/.test(value) ? new Dec(value) : undefined;
}
const total = (values: Array<Dec | undefined>) => values.reduce<Dec>((acc, v) => acc.plus(v ?? ZERO), ZERO);

interface LineFacts {
  isService: boolean;
  category: TaxCategory;
  montoTotal: Dec;
  exonerado: Dec;
  asumido: Dec;
  /** Σ (Monto − MontoExoneracion) per TotalDesgloseImpuesto key. */
  grossByKey: Map<string, Dec>;
  /** ImpuestoNeto as written, or as computed where the kind's line has none (FEE). */
  neto: Dec;
  /** The net IVA of a health-service line (CABYS 931…): what a card payment returns (TotalIVADevuelto). */
  ivaDevolvible: Dec;
  /** A surtido line's MontoTotal split per component (its CABYS and IVA class), for the buckets. */
  parts?: Array<{ isService: boolean; category: TaxCategory; amount: Dec }>;
}

export function verifyComprobanteArithmetic(a: ComprobanteAmounts): ArithmeticMismatch[] {
  const out: ArithmeticMismatch[] = [];
  const compare = (
    kind: ArithmeticKind,
    path: string,
    found: Dec | undefined,
    expected: Dec,
    tol = TOLERANCE,
  ) => {
    const f = found ?? ZERO;
    if (f.minus(expected).abs().greaterThan(tol))
      out.push({ kind, path, found: formatAmount(f), expected: formatAmount(expected) });
  };
  const facts = a.lines.map((line, i) => checkLine(line, `LineaDetalle[${i + 1}]`, compare));

  const r = (name: string) => dec(a.resumen[name]) ?? ZERO;
  const sumTol = (n: number) => TOLERANCE.times(Math.max(1, n));
  const summary = (name: string, expected: Dec, kind: ArithmeticKind = 'resumen', tol = TOLERANCE) => {
    if (a.resumen[name] === undefined && expected.abs().lte(tol)) return;
    compare(kind, `ResumenFactura/${name}`, dec(a.resumen[name]), expected, tol);
  };
  if (Object.keys(a.resumen).length === 0) return out;

  // An FEE's summary has no no-sujeto (nor exonerated) totals: its 0 % lines count as exentas (ADR 0010).
  const exportDoc = a.rootName === 'FacturaElectronicaExportacion';
  const categoryOf = (f: LineFacts): TaxCategory =>
    exportDoc && f.category === 'noSujeto' ? 'exento' : f.category;
  if (a.rootName !== 'ReciboElectronicoPago' && a.lines.length > 0) {
    // The eight buckets, each from the lines of its kind and IVA class (REFERENCE §9.2).
    const buckets: Array<[string, boolean, TaxCategory | 'exonerado']> = [
      ['TotalServGravados', true, 'gravado'],
      ['TotalServExentos', true, 'exento'],
      ['TotalServExonerado', true, 'exonerado'],
      ['TotalServNoSujeto', true, 'noSujeto'],
      ['TotalMercanciasGravadas', false, 'gravado'],
      ['TotalMercanciasExentas', false, 'exento'],
      ['TotalMercExonerada', false, 'exonerado'],
      ['TotalMercNoSujeta', false, 'noSujeto'],
    ];
    for (const [name, service, cat] of buckets) {
      const lines = facts.filter((f) => f.isService === service || f.parts !== undefined);
      const expected = total(
        lines.map((f) =>
          f.parts
            ? total(
                f.parts.map((p) =>
                  p.isService === service &&
                  cat !== 'exonerado' &&
                  categoryOf({ ...f, category: p.category }) === cat
                    ? p.amount
                    : ZERO,
                ),
              )
            : cat === 'exonerado'
              ? f.exonerado
              : categoryOf(f) === cat
                ? f.montoTotal.minus(f.exonerado)
                : ZERO,
        ),
      );
      summary(name, expected, service ? 'servicios' : 'mercancias', sumTol(lines.length));
    }
    summary('TotalGravado', r('TotalServGravados').plus(r('TotalMercanciasGravadas')));
    summary('TotalExento', r('TotalServExentos').plus(r('TotalMercanciasExentas')));
    summary('TotalExonerado', r('TotalServExonerado').plus(r('TotalMercExonerada')));
    summary('TotalNoSujeto', r('TotalServNoSujeto').plus(r('TotalMercNoSujeta')));
    summary(
      'TotalVenta',
      r('TotalGravado').plus(r('TotalExento')).plus(r('TotalExonerado')).plus(r('TotalNoSujeto')),
    );
  }
  const n = a.lines.length;
  if (n > 0) {
    summary(
      'TotalDescuentos',
      total(a.lines.flatMap((l) => l.descuentos.map((d) => dec(d.monto)))),
      'resumen',
      sumTol(n),
    );
    compare(
      'resumen',
      'ResumenFactura/TotalVentaNeta (Σ SubTotal)',
      r('TotalVentaNeta'),
      total(a.lines.map((l) => dec(l.subTotal))),
      sumTol(n),
    );
    summary('TotalImpuesto', total(facts.map((f) => f.neto)), 'resumen', sumTol(n));
    summary('TotalImpAsumEmisorFabrica', total(facts.map((f) => f.asumido)), 'resumen', sumTol(n));
  }
  summary('TotalVentaNeta', r('TotalVenta').minus(r('TotalDescuentos')));
  checkDesglose(a, facts, r('TotalImpuesto'), out);
  summary('TotalOtrosCargos', total(a.otrosCargos.map(dec)));
  // TotalIVADevuelto: the IVA of health services, returned when paid by card (ADR 0024): all of it when
  // every MedioPago is 02, at most all of it when a card is one of several means, none without a card.
  const devolvible = total(facts.map((f) => f.ivaDevolvible));
  const tipos = a.mediosPago.map((m) => m.tipo);
  if (tipos.length > 0 && tipos.every((t) => t === '02'))
    summary('TotalIVADevuelto', devolvible, 'resumen', sumTol(n));
  else if (!tipos.includes('02')) summary('TotalIVADevuelto', ZERO);
  else if (r('TotalIVADevuelto').gt(devolvible.plus(sumTol(n))))
    compare('resumen', 'ResumenFactura/TotalIVADevuelto', r('TotalIVADevuelto'), devolvible);
  summary(
    'TotalComprobante',
    r('TotalVentaNeta').plus(r('TotalImpuesto')).plus(r('TotalOtrosCargos')).minus(r('TotalIVADevuelto')),
  );
  if (a.mediosPago.length > 1) {
    compare(
      'medioPago',
      'ResumenFactura/MedioPago (Σ TotalMedioPago)',
      total(a.mediosPago.map((m) => dec(m.total))),
      r('TotalComprobante'),
    );
  }
  return out;
}

/** TotalDesgloseImpuesto: mandatory when a line has a tax; one entry per code (and IVA rate); Σ = TotalImpuesto. */
function checkDesglose(
  a: ComprobanteAmounts,
  facts: LineFacts[],
  totalImpuesto: Dec,
  out: ArithmeticMismatch[],
): void {
  const gross = new Map<string, Dec>();
  const lowest = new Map<string, Dec>();
  for (const f of facts) {
    for (const [key, g] of f.grossByKey) {
      gross.set(key, (gross.get(key) ?? ZERO).plus(g));
      // An asumido may come off any of the line's taxes (ADR 0009): the entry lies between gross − asumido and gross.
      lowest.set(key, (lowest.get(key) ?? ZERO).plus(Dec.max(ZERO, g.minus(f.asumido))));
    }
  }
  const taxed = [...gross.values()].some((g) => g.gt(0));
  if (a.desglose.length === 0) {
    if (taxed)
      out.push({
        kind: 'desglose',
        path: 'ResumenFactura/TotalDesgloseImpuesto',
        found: '(ninguno)',
        expected: formatAmount(totalImpuesto),
      });
    return;
  }
  const found = new Map<string, Dec>();
  for (const d of a.desglose) {
    const key = desgloseKey(d.codigo ?? '', d.codigoTarifaIVA);
    found.set(key, (found.get(key) ?? ZERO).plus(dec(d.totalMontoImpuesto) ?? ZERO));
  }
  const tol = TOLERANCE.times(Math.max(1, facts.length));
  for (const [key, g] of gross) {
    const f = found.get(key);
    const low = lowest.get(key)!;
    if (f === undefined) {
      if (g.gt(0))
        out.push({
          kind: 'desglose',
          path: `ResumenFactura/TotalDesgloseImpuesto[${key.replace('|', '/')}]`,
          found: '(ausente)',
          expected: formatAmount(g),
        });
    } else if (f.gt(g.plus(tol)) || f.lt(low.minus(tol))) {
      out.push({
        kind: 'desglose',
        path: `ResumenFactura/TotalDesgloseImpuesto[${key.replace('|', '/')}]`,
        found: formatAmount(f),
        expected: formatAmount(g),
      });
    }
  }
  for (const [key, f] of found) {
    if (!gross.has(key) && f.gt(0))
      out.push({
        kind: 'desglose',
        path: `ResumenFactura/TotalDesgloseImpuesto[${key.replace('|', '/')}]`,
        found: formatAmount(f),
        expected: formatAmount(ZERO),
      });
  }
  const sum = total([...found.values()]);
  if (sum.minus(totalImpuesto).abs().greaterThan(TOLERANCE))
    out.push({
      kind: 'desglose',
      path: 'ResumenFactura/TotalImpuesto (Σ TotalDesgloseImpuesto)',
      found: formatAmount(totalImpuesto),
      expected: formatAmount(sum),
    });
}

type Compare = (kind: ArithmeticKind, path: string, found: Dec | undefined, expected: Dec, tol?: Dec) => void;

/**
 * A surtido line (ADR 0024): each component is checked as a line of its own; the line's PrecioUnitario,
 * SubTotal, each Impuesto's Monto and the asumido are the components' at the line's quantity; the buckets
 * and TotalDesgloseImpuesto take the components' CABYS, IVA class and rate.
 */
function checkSurtidoLine(line: AmountLine, at: string, compare: Compare): LineFacts {
  const comps = line.surtido!;
  const q = dec(line.cantidad) ?? ZERO;
  const tol = TOLERANCE.times(Math.max(1, comps.length));
  const cf = comps.map((c, k) =>
    checkLine(
      { ...c, numeroLinea: String(k + 1) },
      `${at}/DetalleSurtido/LineaDetalleSurtido[${k + 1}]`,
      compare,
      true,
    ),
  );
  const compSub = comps.map((c) => dec(c.subTotal) ?? ZERO);
  const subTotal = dec(line.subTotal) ?? ZERO;
  compare('linea', `${at}/MontoTotal`, dec(line.montoTotal), q.times(dec(line.precioUnitario) ?? ZERO));
  compare('linea', `${at}/PrecioUnitario (Σ SubTotalSurtido)`, dec(line.precioUnitario), total(compSub), tol);
  compare(
    'linea',
    `${at}/SubTotal`,
    dec(line.subTotal),
    (dec(line.montoTotal) ?? ZERO).minus(total(line.descuentos.map((d) => dec(d.monto)))),
  );
  // Each line Impuesto: the components' Monto of that code at the line's quantity.
  const byCode = new Map<string, Dec>();
  for (const t of comps.flatMap((c) => c.impuestos)) {
    const code = t.codigo ?? '';
    byCode.set(code, (byCode.get(code) ?? ZERO).plus((dec(t.monto) ?? ZERO).times(q)));
  }
  const foundByCode = new Map<string, Dec>();
  line.impuestos.forEach((t) => {
    const code = t.codigo ?? '';
    foundByCode.set(code, (foundByCode.get(code) ?? ZERO).plus(dec(t.monto) ?? ZERO));
  });
  for (const [code, expected] of byCode)
    compare(
      'linea',
      `${at}/Impuesto[${code}]/Monto (Σ MontoImpuestoSurtido × Cantidad)`,
      foundByCode.get(code),
      expected,
      tol,
    );
  for (const [code, found] of foundByCode)
    if (!byCode.has(code)) compare('linea', `${at}/Impuesto[${code}]/Monto`, found, ZERO);
  const gross = total(line.impuestos.map((t) => dec(t.monto)));
  const inBase = total(
    line.impuestos.map((t) => (IN_IVA_BASE_CODES.has(t.codigo ?? '') ? dec(t.monto) : ZERO)),
  );
  if (line.baseImponible !== undefined)
    compare('linea', `${at}/BaseImponible`, dec(line.baseImponible), subTotal.plus(inBase));
  const asumido = dec(line.impuestoAsumidoEmisorFabrica) ?? ZERO;
  compare(
    'linea',
    `${at}/ImpuestoAsumidoEmisorFabrica`,
    asumido,
    total(cf.map((f) => f.asumido.times(q))),
    tol,
  );
  const neto = dec(line.impuestoNeto) ?? (line.impuestoNeto === undefined ? gross.minus(asumido) : ZERO);
  if (line.impuestoNeto !== undefined)
    compare('linea', `${at}/ImpuestoNeto`, dec(line.impuestoNeto), gross.minus(asumido));
  compare('linea', `${at}/MontoTotalLinea`, dec(line.montoTotalLinea), subTotal.plus(neto));

  const grossByKey = new Map<string, Dec>();
  cf.forEach((f) => {
    for (const [key, g] of f.grossByKey) grossByKey.set(key, (grossByKey.get(key) ?? ZERO).plus(g.times(q)));
  });
  const montoTotal = dec(line.montoTotal) ?? ZERO;
  return {
    isService: line.cabys !== undefined && isServiceCabys(line.cabys),
    category: cf[0]?.category ?? 'noSujeto',
    montoTotal,
    exonerado: ZERO,
    asumido,
    grossByKey,
    neto,
    ivaDevolvible: total(cf.map((f) => f.ivaDevolvible.times(q))),
    parts: cf.map((f, k) => ({ isService: f.isService, category: f.category, amount: compSub[k]!.times(q) })),
  };
}

/** `component`: a surtido's LineaDetalleSurtido, which has no asumido, ImpuestoNeto nor MontoTotalLinea. */
function checkLine(line: AmountLine, at: string, compare: Compare, component = false): LineFacts {
  if (!component && line.surtido && line.surtido.length > 0) return checkSurtidoLine(line, at, compare);
  const cantidad = dec(line.cantidad);
  const precio = dec(line.precioUnitario);
  const montoTotal = dec(line.montoTotal) ?? ZERO;
  if (cantidad && precio) compare('linea', `${at}/MontoTotal`, dec(line.montoTotal), cantidad.times(precio));
  const descuentos = line.descuentos.map((d) => dec(d.monto) ?? ZERO);
  const subTotal = dec(line.subTotal) ?? ZERO;
  compare('linea', `${at}/SubTotal`, dec(line.subTotal), montoTotal.minus(total(descuentos)));
  let gifts = ZERO;
  let absorbed = ZERO;
  line.descuentos.forEach((d, i) => {
    if (GIFTS.has(d.codigo ?? '')) gifts = gifts.plus(descuentos[i]!);
    if (ABSORBED_GIFTS.has(d.codigo ?? '')) absorbed = absorbed.plus(descuentos[i]!);
  });
  const q = cantidad ?? ZERO;
  const taxes = line.impuestos;
  const montos = taxes.map((t) => dec(t.monto) ?? ZERO);
  const baseEditable = line.ivaCobradoFabrica === '01' || taxes.some((t) => t.codigo === '07');
  const inBase = total(taxes.map((t, j) => (IN_IVA_BASE_CODES.has(t.codigo ?? '') ? montos[j] : ZERO)));
  // FEE and REP lines have no BaseImponible element (their XSDs): nothing to compare then.
  if (taxes.length > 0 && !baseEditable && line.baseImponible !== undefined)
    compare('linea', `${at}/BaseImponible`, dec(line.baseImponible), subTotal.plus(inBase));
  const base = dec(line.baseImponible) ?? subTotal.plus(inBase);

  let regaliaAsumido = ZERO;
  const grossByKey = new Map<string, Dec>();
  taxes.forEach((t, j) => {
    const tp = `${at}/Impuesto[${j + 1}]`;
    const c = t.codigo ?? '';
    const rate = (dec(t.tarifa) ?? ZERO).div(HUNDRED);
    let expected: Dec | undefined;
    let taxBase = subTotal;
    if (c === '01') {
      taxBase = base.plus(gifts);
      expected = t.codigoTarifaIVA === '10' ? ZERO : rate.times(taxBase);
    } else if (c === '07') {
      taxBase = base;
      expected = t.codigoTarifaIVA === '10' ? ZERO : rate.times(base);
    } else if (c === '08') expected = (dec(t.factorCalculoIVA) ?? ZERO).times(subTotal);
    else if (RATE_ON_SUBTOTAL_CODES.has(c)) expected = rate.times(subTotal);
    else if (ESPECIFICO_CODES.has(c)) expected = especificoExpected(c, q, t, tp, compare);
    if (expected !== undefined) compare('linea', `${tp}/Monto`, dec(t.monto), expected);
    const exon = dec(t.montoExoneracion);
    const tarifaExonerada = dec(t.tarifaExonerada);
    if (exon) {
      if (exon.gt(montos[j]!.plus(TOLERANCE)))
        compare('linea', `${tp}/Exoneracion/MontoExoneracion`, exon, montos[j]!);
      else if (tarifaExonerada && (IVA_CODES.has(c) || RATE_ON_SUBTOTAL_CODES.has(c)) && c !== '08')
        compare(
          'linea',
          `${tp}/Exoneracion/MontoExoneracion`,
          exon,
          Dec.min(montos[j]!, tarifaExonerada.div(HUNDRED).times(c === '01' ? base : taxBase)),
        );
    }
    // The IVA of gifted units (discounts 01, 03) is the issuer's, up to what the exoneration left (ADR 0009).
    if (c === '01')
      regaliaAsumido = regaliaAsumido.plus(Dec.min(rate.times(absorbed), montos[j]!.minus(exon ?? ZERO)));
    const key = desgloseKey(c, t.codigoTarifaIVA);
    grossByKey.set(key, (grossByKey.get(key) ?? ZERO).plus(montos[j]!.minus(exon ?? ZERO)));
  });
  const gross = total([...grossByKey.values()]);
  const asumido = component
    ? Dec.min(regaliaAsumido, gross)
    : (dec(line.impuestoAsumidoEmisorFabrica) ?? ZERO);
  if (component) {
    // nothing more on a component: its asumido and net tax are the line's business.
  } else if (asumido.gt(gross.plus(TOLERANCE)))
    compare('linea', `${at}/ImpuestoAsumidoEmisorFabrica`, asumido, gross);
  else if (line.ivaCobradoFabrica === undefined)
    compare('linea', `${at}/ImpuestoAsumidoEmisorFabrica`, asumido, Dec.min(regaliaAsumido, gross));
  // An FEE line has no ImpuestoNeto element: its net tax is then the computed one.
  const neto = dec(line.impuestoNeto) ?? (line.impuestoNeto === undefined ? gross.minus(asumido) : ZERO);
  if (taxes.length > 0 && line.impuestoNeto !== undefined)
    compare('linea', `${at}/ImpuestoNeto`, dec(line.impuestoNeto), gross.minus(asumido));
  if (!component) compare('linea', `${at}/MontoTotalLinea`, dec(line.montoTotalLinea), subTotal.plus(neto));

  const category = lineCategory(
    taxes.map((t) => ({
      codigo: t.codigo ?? '',
      ...(t.codigoTarifaIVA ? { codigoTarifa: t.codigoTarifaIVA } : {}),
    })),
    line.ivaCobradoFabrica,
  );
  const ivaIndex = taxes.findIndex((t) => IVA_CODES.has(t.codigo ?? ''));
  const ivaExon = ivaIndex >= 0 ? dec(taxes[ivaIndex]!.montoExoneracion) : undefined;
  const ivaMonto = ivaIndex >= 0 ? montos[ivaIndex]! : ZERO;
  const exonerado =
    ivaExon && ivaMonto.gt(0) ? montoTotal.times(Dec.min(ivaExon, ivaMonto)).div(ivaMonto) : ZERO;
  const ivaNet = Dec.max(ZERO, ivaMonto.minus(ivaExon ?? ZERO).minus(asumido));
  return {
    isService: line.cabys !== undefined && isServiceCabys(line.cabys),
    ivaDevolvible: line.cabys !== undefined && isHealthServiceCabys(line.cabys) ? ivaNet : ZERO,
    category,
    montoTotal,
    exonerado,
    asumido,
    grossByKey,
    neto,
  };
}

/** The specific taxes' Monto; for code 05 the soap formula when Monto matches it, else beverages (ADR 0009). */
function especificoExpected(c: string, q: Dec, t: AmountTax, tp: string, compare: Compare): Dec | undefined {
  const cum = dec(t.cantidadUnidadMedida);
  const iu = dec(t.impuestoUnidad);
  if (!cum || !iu) return undefined;
  const porcentaje = dec(t.porcentaje);
  const volumen = dec(t.volumenUnidadConsumo);
  const e = {
    cantidadUnidadMedida: cum,
    impuestoUnidad: iu,
    ...(porcentaje ? { porcentaje } : {}),
    ...(volumen ? { volumenUnidadConsumo: volumen } : {}),
  };
  if (c === '04' && porcentaje)
    compare('linea', `${tp}/DatosImpuestoEspecifico/Proporcion`, dec(t.proporcion), cum.times(porcentaje));
  if (c !== '05') return especificoMonto(c, q, e);
  const monto = dec(t.monto) ?? ZERO;
  const bebida = especificoMonto('05', q, e, false);
  const jabon = especificoMonto('05', q, e, true);
  return monto.minus(jabon).abs().lte(TOLERANCE) ? jabon : bebida;
}
