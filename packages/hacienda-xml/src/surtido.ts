// A surtido (package, combo) line: the components of DetalleSurtido, each computed like a line of its own
// (discounts, every tax its ImpuestoSurtido can carry, BaseImponibleSurtido), and the line's amounts as
// the components' times the line's quantity (ADR 0024): PrecioUnitario = Σ SubTotalSurtido, no discount of
// the line's own, SubTotal = MontoTotal, one Impuesto per tax code with Monto = Σ Cantidad × the
// components' MontoImpuestoSurtido (and no rate: "la validación … se hará sobre las líneas individuales").
// The summary's buckets and TotalDesgloseImpuesto come from the components (REFERENCE §9.2).
import type {
  DocumentComponenteSurtido,
  DocumentDescuentoSurtido,
  DocumentImpuesto,
  DocumentLinea,
} from '@cr/contracts';
import {
  IN_IVA_BASE_CODES,
  IVA_CODES,
  type LineAmounts,
  type TaxAmounts,
  type TaxInput,
  computeLine,
  isHealthServiceCabys,
  isServiceCabys,
  lineCategory,
} from './arithmetic';
import { articled } from './kind-rules';
import type { CheckedTax, LineCheckContext } from './line-check';
import { Dec, ZERO, round5, sum } from './money';

/** "Combinación de más de dos productos con diferentes códigos de producto/servicio" (the XSD): ≥ 3. */
export const MIN_SURTIDO_CODES = 3;

export interface CheckedComponent extends LineAmounts {
  source: DocumentComponenteSurtido;
  cantidad: Dec;
  precioUnitario: Dec;
  discountSources: DocumentDescuentoSurtido[];
  checkedTaxes: CheckedTax[];
}

export interface CheckedSurtido {
  components: CheckedComponent[];
  /** CodigoImpuestoOTRO of each of the line's Impuesto entries (99 only), aligned with the line's impuestos. */
  otros: Array<string | undefined>;
}

type CheckTax = (tax: DocumentImpuesto, path: string, ctx: LineCheckContext) => CheckedTax;

function checkComponent(
  c: DocumentComponenteSurtido,
  cp: string,
  ctx: LineCheckContext,
  checkTax: CheckTax,
): CheckedComponent {
  const { add, compare } = ctx;
  const cantidad = new Dec(String(c.cantidad));
  if (cantidad.decimalPlaces() > 3) add(`${cp}.cantidad`, 'must have at most 3 decimals');
  const precioUnitario = new Dec(c.precioUnitario);
  (c.descuentos ?? []).forEach((d, j) => {
    if (d.codigoDescuento === '99' && !d.descuentoOtros)
      add(`${cp}.descuentos[${j}].descuentoOtros`, 'is required when codigoDescuento is 99');
    if (d.codigoDescuento !== '99' && d.descuentoOtros !== undefined)
      add(`${cp}.descuentos[${j}].descuentoOtros`, 'is only allowed when codigoDescuento is 99');
  });
  const checkedTaxes = c.impuestos.map((t, k) => checkTax(t, `${cp}.impuestos[${k}]`, ctx));
  if (c.impuestos.filter((t) => IVA_CODES.has(t.codigo)).length > 1)
    add(`${cp}.impuestos`, 'a component carries at most one IVA tax (01)');
  const seen = new Set<string>();
  c.impuestos.forEach((t, k) => {
    if (t.codigo !== '99' && seen.has(t.codigo))
      add(`${cp}.impuestos[${k}].codigo`, `tax code ${t.codigo} appears twice on the component`);
    seen.add(t.codigo);
    if (t.datosImpuestoEspecifico !== undefined && ctx.rules.lines !== 'full')
      add(`${cp}.impuestos[${k}].datosImpuestoEspecifico`, `is not allowed in ${articled(ctx.rules.name)}`);
  });
  const taxInputs: TaxInput[] = checkedTaxes.map((t) => ({
    codigo: t.source.codigo,
    ...(t.source.codigoTarifa !== undefined ? { codigoTarifa: t.source.codigoTarifa } : {}),
    ...(t.tarifa !== undefined ? { tarifa: t.tarifa } : {}),
    ...(t.especifico !== undefined ? { especifico: t.especifico } : {}),
  }));
  const amounts = computeLine({
    cabys: c.codigo,
    cantidad,
    precioUnitario,
    descuentos: (c.descuentos ?? []).map((d) => ({
      monto: new Dec(d.montoDescuento),
      codigo: d.codigoDescuento,
    })),
    impuestos: taxInputs,
  });
  let running = ZERO;
  amounts.descuentos.forEach((d, j) => {
    running = running.plus(d);
    if (running.gt(amounts.montoTotal))
      add(`${cp}.descuentos[${j}].montoDescuento`, 'the discounts must not exceed cantidad × precioUnitario');
  });
  if (c.montoTotal !== undefined) compare(`${cp}.montoTotal`, c.montoTotal, amounts.montoTotal);
  if (c.subTotal !== undefined) compare(`${cp}.subTotal`, c.subTotal, amounts.subTotal);
  if (c.baseImponible !== undefined) compare(`${cp}.baseImponible`, c.baseImponible, amounts.baseImponible);
  amounts.impuestos.forEach((t, k) => {
    const source = checkedTaxes[k]!;
    compare(`${source.path}.monto`, source.source.monto, t.monto);
    const proporcion = source.source.datosImpuestoEspecifico?.proporcion;
    if (proporcion !== undefined && t.proporcion)
      compare(`${source.path}.datosImpuestoEspecifico.proporcion`, proporcion, t.proporcion);
  });
  const checked = amounts as CheckedComponent;
  checked.source = c;
  checked.cantidad = cantidad;
  checked.precioUnitario = precioUnitario;
  checked.discountSources = c.descuentos ?? [];
  checked.checkedTaxes = checkedTaxes;
  return checked;
}

/** Scales one component's tax to the line's quantity (rounded per component and tax, so sums stay exact). */
function scaleTax(t: TaxAmounts, q: Dec): TaxAmounts {
  const monto = round5(t.monto.times(q));
  const asumido = round5(t.asumido.times(q));
  return {
    codigo: t.codigo,
    ...(t.codigoTarifa !== undefined ? { codigoTarifa: t.codigoTarifa } : {}),
    monto,
    asumido,
    neto: monto.minus(asumido),
  };
}

/** Checks and computes a line with detalleSurtido; the line's own client amounts are compared here too. */
export function checkSurtidoLine(
  line: DocumentLinea,
  p: string,
  cantidad: Dec,
  ctx: LineCheckContext,
  checkTax: CheckTax,
): { amounts: LineAmounts; surtido: CheckedSurtido } {
  const { add, compare, rules } = ctx;
  const components = line.detalleSurtido!;
  const sp = `${p}.detalleSurtido`;
  if (!rules.surtido) add(sp, `is not allowed in ${articled(rules.name)} (its XSD has no DetalleSurtido)`);
  const codes = new Set(components.map((c) => c.codigo));
  if (components.length < MIN_SURTIDO_CODES || codes.size < MIN_SURTIDO_CODES)
    add(
      sp,
      `a surtido combines more than two products with different CABYS codes: at least ${MIN_SURTIDO_CODES} components with ${MIN_SURTIDO_CODES} different codes`,
    );
  // The line's own fields that the components replace.
  if (line.impuesto !== undefined)
    add(`${p}.impuesto`, 'a surtido line has no taxes of its own: give each component its impuestos');
  if (line.descuentos !== undefined && line.descuentos.length > 0)
    add(`${p}.descuentos`, 'a surtido line has no discounts of its own: give them per component');
  if (line.descuento !== undefined && new Dec(line.descuento).gt(0))
    add(`${p}.descuento`, 'a surtido line has no discounts of its own: give them per component');
  if (line.ivaCobradoFabrica !== undefined)
    add(`${p}.ivaCobradoFabrica`, 'is not supported on a surtido line (ADR 0024)');
  // "Se debe seleccionar el código 03 … e incluir … el respectivo código SKU, GTIN" (CodigoType, the XSD).
  if (!(line.codigoComercial ?? []).some((c) => c.tipo === '03'))
    add(
      `${p}.codigoComercial`,
      'a surtido line needs a codigoComercial of tipo 03 (the package’s industry code: SKU, GTIN)',
    );

  const checked = components.map((c, k) => checkComponent(c, `${sp}[${k}]`, ctx, checkTax));
  const precioUnitario = sum(checked.map((c) => c.subTotal));
  compare(`${p}.precioUnitario`, line.precioUnitario, precioUnitario);
  const montoTotal = round5(cantidad.times(precioUnitario));

  // Each component's taxes at the line's quantity; the line's Impuesto entries group them by code (and
  // by CodigoImpuestoOTRO for 99), TotalDesgloseImpuesto by code and rate.
  const scaled = checked.map((c) => c.impuestos.map((t) => scaleTax(t, cantidad)));
  const groups = new Map<string, { tax: TaxAmounts; otro?: string }>();
  checked.forEach((c, k) => {
    c.impuestos.forEach((_t, m) => {
      const s = scaled[k]![m]!;
      const otro = c.source.impuestos[m]!.codigoImpuestoOtro;
      const key = s.codigo === '99' ? `99|${otro ?? ''}` : s.codigo;
      const g = groups.get(key);
      if (g) {
        g.tax.monto = g.tax.monto.plus(s.monto);
        g.tax.asumido = g.tax.asumido.plus(s.asumido);
        g.tax.neto = g.tax.neto.plus(s.neto);
      } else
        groups.set(key, {
          tax: { codigo: s.codigo, monto: s.monto, asumido: s.asumido, neto: s.neto },
          ...(otro !== undefined ? { otro } : {}),
        });
    });
  });
  const impuestos = [...groups.values()].map((g) => g.tax);
  const inBase = sum(impuestos.filter((t) => IN_IVA_BASE_CODES.has(t.codigo)).map((t) => t.monto));
  const impuestoNeto = sum(impuestos.map((t) => t.neto));
  const impuestoAsumidoEmisorFabrica = sum(impuestos.map((t) => t.asumido));

  // The buckets: each component's share of MontoTotal by its own CABYS and IVA class; the last takes
  // the rounding remainder so that the shares add up to MontoTotal exactly.
  let given = ZERO;
  const parts = checked.map((c, k) => {
    const amount = k === checked.length - 1 ? montoTotal.minus(given) : round5(c.subTotal.times(cantidad));
    given = given.plus(amount);
    return {
      isService: isServiceCabys(c.source.codigo),
      category: lineCategory(c.impuestos),
      amount,
    };
  });
  const ivaDevolvible = sum(
    checked.flatMap((c, k) =>
      isHealthServiceCabys(c.source.codigo)
        ? scaled[k]!.filter((t) => IVA_CODES.has(t.codigo)).map((t) => t.neto)
        : [],
    ),
  );
  const amounts: LineAmounts = {
    isService: isServiceCabys(line.codigo ?? ''),
    category: parts.length > 0 ? parts[0]!.category : 'noSujeto',
    montoTotal,
    descuentos: [],
    descuento: ZERO,
    subTotal: montoTotal,
    baseImponible: montoTotal.plus(inBase),
    impuestos,
    impuestoAsumidoEmisorFabrica,
    asumidoFabricaUnplaced: ZERO,
    impuestoNeto,
    montoTotalLinea: montoTotal.plus(impuestoNeto),
    exoneradoPart: ZERO,
    categoryPart: montoTotal,
    ivaDevolvible,
    parts,
    desgloseTaxes: scaled.flat(),
  };
  return {
    amounts,
    surtido: { components: checked, otros: [...groups.values()].map((g) => g.otro) },
  };
}
