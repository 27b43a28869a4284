// The cross-field rules and the arithmetic of one detail line: its discounts, every tax of Nota 8 with the
// data each one needs, the factory-level fields, and the comparison of the client's amounts with the
// engine's (REFERENCE §7.4, §7.7, §9.1; ADR 0009).
import {
  type DocumentDescuento,
  type DocumentImpuesto,
  type DocumentLinea,
  impuestoPath,
  lineImpuestos,
} from '@cr/contracts';
import {
  type DiscountInput,
  ESPECIFICO_CODES,
  IVA_CODES,
  type LineAmounts,
  RATE_ON_SUBTOTAL_CODES,
  type TaxInput,
  computeLine,
  especificoMonto,
} from './arithmetic';
import { costaRicaDate } from './business-days';
import { parseIsoDateOrDateTime } from './cr-time';
import { EXONERATION_NC_ONLY, type KindRules, TRANSITIONAL_TARIFAS, articled } from './kind-rules';
import { type CheckedSurtido, checkSurtidoLine } from './surtido';
import { Dec, ZERO, parseDecimal, round5, withinTolerance } from './money';

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
const EXONERATION_NEEDS_ARTICLE = new Set(['02', '03', '06', '07', '08']);
/** Codes that carry a Tarifa, and so can be exonerated by a TarifaExonerada. */
const RATED_CODES = new Set(['01', '07', ...RATE_ON_SUBTOTAL_CODES]);

export interface CheckedTax {
  source: DocumentImpuesto;
  /** The request path of this tax (`detalleServicio[i].impuesto[j]`). */
  path: string;
  tarifa?: Dec;
  factor?: Dec;
  tarifaExonerada?: Dec;
  especifico?: TaxInput['especifico'];
}

export interface CheckedLine extends LineAmounts {
  source: DocumentLinea;
  cantidad: Dec;
  precioUnitario: Dec;
  /** The discounts in the request's order, legacy `descuento` included (code 07 unless given). */
  discountSources: DocumentDescuento[];
  checkedTaxes: CheckedTax[];
  /** The components of a surtido line (DetalleSurtido), which its amounts come from. */
  surtido?: CheckedSurtido;
}

export interface LineCheckContext {
  /** The kind's rules (transitional rates, exoneration types, TipoTransaccion). */
  rules: KindRules;
  /** The document's FechaEmision, when it is usable: an exoneration must not be issued after it. */
  fechaEmision?: Date;
  add(path: string, reason: string, expected?: string): void;
  compare(path: string, client: string | number, expected: Dec): void;
}

const dec = (value: string | undefined) => (value === undefined ? undefined : new Dec(value));

/** The line's discounts: the `descuentos` array, or the legacy single `descuento` (code 07 by default). */
function discountsOf(line: DocumentLinea, p: string, ctx: LineCheckContext): DocumentDescuento[] {
  const legacy = line.descuento !== undefined && new Dec(line.descuento).gt(0);
  if (line.descuentos !== undefined) {
    if (legacy) ctx.add(`${p}.descuento`, 'use either descuento or descuentos, not both');
    return line.descuentos;
  }
  if (!legacy) return [];
  return [
    {
      montoDescuento: line.descuento!,
      codigoDescuento: line.codigoDescuento ?? '07',
      ...(line.naturalezaDescuento !== undefined ? { naturalezaDescuento: line.naturalezaDescuento } : {}),
    },
  ];
}

export function checkTax(tax: DocumentImpuesto, tp: string, ctx: LineCheckContext): CheckedTax {
  const out: CheckedTax = { source: tax, path: tp };
  const { add } = ctx;
  const c = tax.codigo;
  if (c === '01' || c === '07') {
    if (tax.codigoTarifa === undefined) add(`${tp}.codigoTarifa`, `is required for tax code ${c}`);
    if (tax.tarifa === undefined) add(`${tp}.tarifa`, `is required for tax code ${c}`);
    if (tax.codigoTarifa !== undefined && tax.tarifa !== undefined) {
      const expected = TARIFA_BY_CODE[tax.codigoTarifa]!;
      if (!new Dec(tax.tarifa).eq(TARIFA_DEC_BY_CODE[tax.codigoTarifa]!)) {
        add(`${tp}.tarifa`, `must be ${expected} for codigoTarifa ${tax.codigoTarifa}`, expected);
      }
      // ND takes the transitional rates like the NC (REFERENCE §7.4).
      if (!ctx.rules.tarifasTransitorias && TRANSITIONAL_TARIFAS.has(tax.codigoTarifa)) {
        add(
          `${tp}.codigoTarifa`,
          `${tax.codigoTarifa} is a transitional rate only allowed in credit notes and debit notes`,
        );
      }
    }
  } else if (tax.codigoTarifa !== undefined) {
    add(`${tp}.codigoTarifa`, 'is only allowed for tax codes 01 and 07');
  }
  if (RATE_ON_SUBTOTAL_CODES.has(c) && tax.tarifa === undefined)
    add(`${tp}.tarifa`, `is required for tax code ${c}`);
  if ((ESPECIFICO_CODES.has(c) || c === '08') && tax.tarifa !== undefined)
    add(`${tp}.tarifa`, `is not used by tax code ${c}`);
  if (tax.tarifa !== undefined) out.tarifa = new Dec(tax.tarifa);
  if (c === '99' && !tax.codigoImpuestoOtro) add(`${tp}.codigoImpuestoOtro`, 'is required when codigo is 99');
  if (c !== '99' && tax.codigoImpuestoOtro !== undefined)
    add(`${tp}.codigoImpuestoOtro`, 'is only allowed when codigo is 99');
  if (c === '08') {
    if (tax.factorCalculoIVA === undefined) add(`${tp}.factorCalculoIVA`, 'is required for tax code 08');
    else if (new Dec(tax.factorCalculoIVA).lte(0)) add(`${tp}.factorCalculoIVA`, 'must be greater than 0');
    else out.factor = new Dec(tax.factorCalculoIVA);
  } else if (tax.factorCalculoIVA !== undefined) {
    add(`${tp}.factorCalculoIVA`, 'is only allowed for tax code 08');
  }
  const d = tax.datosImpuestoEspecifico;
  // The FEC's and the FEE's ImpuestoType list codes 03–06 but have no DatosImpuestoEspecifico, the
  // data their Monto is computed from (REFERENCE §9.1 item 5): one reason, not "required" and "not allowed".
  if (ESPECIFICO_CODES.has(c) && ctx.rules.lines !== 'full') {
    add(
      `${tp}.codigo`,
      `tax code ${c} cannot be used in ${articled(ctx.rules.name)}: its XML has no DatosImpuestoEspecifico to compute it from`,
    );
  } else if (ESPECIFICO_CODES.has(c)) {
    if (!d) add(`${tp}.datosImpuestoEspecifico`, `is required for tax code ${c}`);
    else {
      const dp = `${tp}.datosImpuestoEspecifico`;
      if (c === '04' && d.porcentaje === undefined) add(`${dp}.porcentaje`, 'is required for tax code 04');
      if (c !== '04' && d.porcentaje !== undefined) add(`${dp}.porcentaje`, 'is only used by tax code 04');
      if (c !== '04' && d.proporcion !== undefined) add(`${dp}.proporcion`, 'is only used by tax code 04');
      if (c === '05' && (d.volumenUnidadConsumo === undefined || new Dec(d.volumenUnidadConsumo).lte(0)))
        add(`${dp}.volumenUnidadConsumo`, 'is required for tax code 05 and must be greater than 0');
      if (c !== '05' && d.volumenUnidadConsumo !== undefined)
        add(`${dp}.volumenUnidadConsumo`, 'is only used by tax code 05');
      const porcentaje = dec(d.porcentaje);
      const volumen = dec(d.volumenUnidadConsumo);
      out.especifico = {
        cantidadUnidadMedida: new Dec(d.cantidadUnidadMedida),
        impuestoUnidad: new Dec(d.impuestoUnidad),
        ...(porcentaje !== undefined ? { porcentaje } : {}),
        ...(volumen !== undefined ? { volumenUnidadConsumo: volumen } : {}),
      };
    }
  } else if (d) {
    add(`${tp}.datosImpuestoEspecifico`, 'is only used by tax codes 03, 04, 05 and 06');
  }
  const ex = tax.exoneracion;
  if (ex) {
    const ep = `${tp}.exoneracion`;
    const tarifaExonerada = new Dec(String(ex.porcentajeExoneracion));
    out.tarifaExonerada = tarifaExonerada;
    if (!RATED_CODES.has(c)) add(ep, `tax code ${c} has no tarifa, so it cannot be exonerated by a rate`);
    if (tarifaExonerada.decimalPlaces() > 2)
      add(`${ep}.porcentajeExoneracion`, 'must have at most 2 decimals');
    if (out.tarifa && tarifaExonerada.gt(out.tarifa))
      add(`${ep}.porcentajeExoneracion`, 'must not exceed the line tarifa', out.tarifa.toString());
    if (RATED_CODES.has(c) && (!out.tarifa || out.tarifa.lte(0)))
      add(ep, 'only a taxed line (tarifa > 0) can be exonerated');
    if (ctx.rules.exoneracion === 'none') add(ep, `is not allowed in ${articled(ctx.rules.name)}`);
    else if (EXONERATION_NC_ONLY.has(ex.tipoDocumento) && ctx.rules.exoneracion !== 'all') {
      add(`${ep}.tipoDocumento`, `${ex.tipoDocumento} is only allowed in credit notes and debit notes`);
    }
    if (EXONERATION_NEEDS_ARTICLE.has(ex.tipoDocumento)) {
      if (ex.articulo === undefined)
        add(`${ep}.articulo`, `is required for exoneration type ${ex.tipoDocumento}`);
      if (ex.inciso === undefined)
        add(`${ep}.inciso`, `is required for exoneration type ${ex.tipoDocumento}`);
    }
    if (ex.tipoDocumento === '99' && !ex.tipoDocumentoOtro)
      add(`${ep}.tipoDocumentoOtro`, 'is required when tipoDocumento is 99');
    if (ex.nombreInstitucion === '99' && !ex.nombreInstitucionOtros)
      add(`${ep}.nombreInstitucionOtros`, 'is required when nombreInstitucion is 99');
    const issued = parseIsoDateOrDateTime(ex.fechaEmision);
    if (!issued) add(`${ep}.fechaEmision`, 'is not a valid date or date-time');
    else if (ctx.fechaEmision) {
      // Compared as Costa Rica days: an authorization is dated by its day (Hacienda writes its midnight),
      // so a document of that day, at any hour, may use it; one of an earlier day cannot.
      const documentDay = costaRicaDate(ctx.fechaEmision);
      if (costaRicaDate(issued) > documentDay)
        add(
          `${ep}.fechaEmision`,
          `must not be after the document's fechaEmision (${documentDay} in Costa Rica): an exoneration issued later cannot cover the document`,
        );
    }
  }
  return out;
}

/** Checks and computes line i; every problem goes to ctx.add. */
export function checkLine(line: DocumentLinea, i: number, ctx: LineCheckContext): CheckedLine {
  const p = `detalleServicio[${i}]`;
  const { add, compare } = ctx;
  if (line.numeroLinea !== i + 1) add(`${p}.numeroLinea`, `must be ${i + 1} (consecutive from 1)`);
  const cantidad = new Dec(String(line.cantidad));
  if (cantidad.decimalPlaces() > 3) add(`${p}.cantidad`, 'must have at most 3 decimals');
  const precioUnitario = new Dec(line.precioUnitario);
  if (precioUnitario.lte(0)) add(`${p}.precioUnitario`, 'must be greater than 0');
  if (!ctx.rules.tipoTransaccion && line.tipoTransaccion !== undefined)
    add(`${p}.tipoTransaccion`, `is not allowed in ${articled(ctx.rules.name)}`);
  if (line.detalleSurtido !== undefined) {
    const { amounts, surtido } = checkSurtidoLine(line, p, cantidad, ctx, checkTax);
    compare(`${p}.subTotal`, line.subTotal, amounts.montoTotal);
    compare(`${p}.montoTotal`, line.montoTotal, amounts.subTotal);
    if (line.baseImponible !== undefined)
      compare(`${p}.baseImponible`, line.baseImponible, amounts.baseImponible);
    if (line.impuestoAsumidoEmisorFabrica !== undefined)
      compare(
        `${p}.impuestoAsumidoEmisorFabrica`,
        line.impuestoAsumidoEmisorFabrica,
        amounts.impuestoAsumidoEmisorFabrica,
      );
    compare(`${p}.impuestoNeto`, line.impuestoNeto, amounts.impuestoNeto);
    compare(`${p}.montoTotalLinea`, line.montoTotalLinea, amounts.montoTotalLinea);
    const checked = amounts as CheckedLine;
    checked.source = line;
    checked.cantidad = cantidad;
    checked.precioUnitario = surtido.components.reduce((acc, c) => acc.plus(c.subTotal), ZERO);
    checked.discountSources = [];
    checked.checkedTaxes = [];
    checked.surtido = surtido;
    return checked;
  }
  if (line.impuesto === undefined) add(`${p}.impuesto`, 'is required (unless the line has detalleSurtido)');

  const discountSources = discountsOf(line, p, ctx);
  const discountPath = (j: number) => (line.descuentos !== undefined ? `${p}.descuentos[${j}]` : p);
  discountSources.forEach((d, j) => {
    const dp = discountPath(j);
    // "99 Otros (+ CodigoDescuentoOTRO; NaturalezaDescuento 3–80 required with 99)" (REFERENCE §7.7).
    if (d.codigoDescuento === '99' && !d.codigoDescuentoOtro)
      add(`${dp}.codigoDescuentoOtro`, 'is required when codigoDescuento is 99');
    if (d.codigoDescuento === '99' && !d.naturalezaDescuento)
      add(`${dp}.naturalezaDescuento`, 'is required when codigoDescuento is 99');
    if (d.codigoDescuento !== '99' && d.codigoDescuentoOtro !== undefined)
      add(`${dp}.codigoDescuentoOtro`, 'is only allowed when codigoDescuento is 99');
  });
  const descuentos: DiscountInput[] = discountSources.map((d) => ({
    monto: new Dec(d.montoDescuento),
    codigo: d.codigoDescuento,
  }));

  const sources = lineImpuestos(line);
  const checkedTaxes = sources.map((tax, j) => checkTax(tax, impuestoPath(line, p, j), ctx));
  const ivaTaxes = sources.filter((t) => IVA_CODES.has(t.codigo));
  if (ivaTaxes.length > 1)
    add(`${p}.impuesto`, 'a line carries at most one IVA tax (codes 01, 07 and 08 are all IVA)');
  const seen = new Set<string>();
  sources.forEach((t, j) => {
    if (t.codigo !== '99' && seen.has(t.codigo))
      add(`${impuestoPath(line, p, j)}.codigo`, `tax code ${t.codigo} appears twice on the line`);
    seen.add(t.codigo);
  });

  // IVACobradoFabrica and the editable BaseImponible (REFERENCE §7.7, §9.1 item 4).
  const fabrica = line.ivaCobradoFabrica;
  const baseEditable = fabrica === '01' || sources.some((t) => t.codigo === '07');
  let baseImponible: Dec | undefined;
  if (fabrica === '01') {
    if (line.baseImponible === undefined || new Dec(line.baseImponible).lte(0))
      add(`${p}.baseImponible`, 'is required and must be greater than 0 when ivaCobradoFabrica is 01');
  }
  if (baseEditable && line.baseImponible !== undefined) baseImponible = new Dec(line.baseImponible);
  if (fabrica === '02') {
    sources.forEach((t, j) => {
      if (IVA_CODES.has(t.codigo) && !(t.codigo === '01' && t.codigoTarifa === '10'))
        add(
          `${impuestoPath(line, p, j)}.codigoTarifa`,
          'with ivaCobradoFabrica 02 the IVA was charged at factory level: only IVA 01 with codigoTarifa 10 (exenta) is allowed',
        );
    });
  }
  const asumidoFabrica =
    fabrica === '01' && line.impuestoAsumidoEmisorFabrica !== undefined
      ? new Dec(line.impuestoAsumidoEmisorFabrica)
      : undefined;

  const taxInputs: TaxInput[] = checkedTaxes.map((t) => ({
    codigo: t.source.codigo,
    ...(t.source.codigoTarifa !== undefined ? { codigoTarifa: t.source.codigoTarifa } : {}),
    ...(t.tarifa !== undefined ? { tarifa: t.tarifa } : {}),
    ...(t.factor !== undefined ? { factor: t.factor } : {}),
    ...(t.especifico !== undefined ? { especifico: t.especifico } : {}),
    ...(t.source.codigo === '05' && t.especifico
      ? { jabon: isJabon(t.source.monto, cantidad, t.especifico) }
      : {}),
    ...(t.tarifaExonerada !== undefined ? { tarifaExonerada: t.tarifaExonerada } : {}),
  }));
  const amounts = computeLine({
    cabys: line.codigo ?? '',
    cantidad,
    precioUnitario,
    descuentos,
    impuestos: taxInputs,
    ...(fabrica !== undefined ? { ivaCobradoFabrica: fabrica } : {}),
    ...(baseImponible !== undefined ? { baseImponible } : {}),
    ...(asumidoFabrica !== undefined ? { asumidoFabrica } : {}),
  });

  // Each discount is taken from what the previous ones left (REFERENCE §7.7): the running sum ≤ MontoTotal.
  let running = ZERO;
  amounts.descuentos.forEach((d, j) => {
    running = running.plus(d);
    if (running.gt(amounts.montoTotal)) {
      const path = line.descuentos !== undefined ? `${discountPath(j)}.montoDescuento` : `${p}.descuento`;
      add(path, 'the discounts must not exceed quantity × unit price');
    }
  });
  if (amounts.asumidoFabricaUnplaced.gt(0)) {
    add(`${p}.impuestoAsumidoEmisorFabrica`, 'must not exceed the line’s taxes after exonerations');
  }

  // The spec names the client's fields the other way round from the XML: its `subTotal` is
  // quantity × price (XML MontoTotal) and its `montoTotal` the line total before taxes (XML SubTotal).
  compare(`${p}.subTotal`, line.subTotal, amounts.montoTotal);
  compare(`${p}.montoTotal`, line.montoTotal, amounts.subTotal);
  if (line.baseImponible !== undefined && !baseEditable)
    compare(`${p}.baseImponible`, line.baseImponible, amounts.baseImponible);
  amounts.impuestos.forEach((t, j) => {
    const source = checkedTaxes[j]!;
    compare(`${source.path}.monto`, source.source.monto, t.monto);
    const ex = source.source.exoneracion;
    if (ex?.montoExoneracion !== undefined && t.montoExoneracion)
      compare(`${source.path}.exoneracion.montoExoneracion`, ex.montoExoneracion, t.montoExoneracion);
    const proporcion = source.source.datosImpuestoEspecifico?.proporcion;
    if (proporcion !== undefined && t.proporcion)
      compare(`${source.path}.datosImpuestoEspecifico.proporcion`, proporcion, t.proporcion);
  });
  if (line.impuestoAsumidoEmisorFabrica !== undefined && asumidoFabrica === undefined)
    compare(
      `${p}.impuestoAsumidoEmisorFabrica`,
      line.impuestoAsumidoEmisorFabrica,
      amounts.impuestoAsumidoEmisorFabrica,
    );
  compare(`${p}.impuestoNeto`, line.impuestoNeto, amounts.impuestoNeto);
  compare(`${p}.montoTotalLinea`, line.montoTotalLinea, amounts.montoTotalLinea);

  // computeLine returns a fresh object: extend it in place rather than copy every field of every line.
  const checked = amounts as CheckedLine;
  checked.source = line;
  checked.cantidad = cantidad;
  checked.precioUnitario = precioUnitario;
  checked.discountSources = discountSources;
  checked.checkedTaxes = checkedTaxes;
  return checked;
}

/**
 * Code 05 covers beverages (Cantidad × CantidadUnidadMedida × ImpuestoUnidad / VolumenUnidadConsumo) and
 * toilet soaps (Cantidad × VolumenUnidadConsumo × ImpuestoUnidad), and nothing in the XML says which: the
 * client's Monto chooses, beverages unless it matches only the soap formula (ADR 0009).
 */
function isJabon(clientMonto: string, cantidad: Dec, e: NonNullable<TaxInput['especifico']>): boolean {
  const client = parseDecimal(clientMonto);
  if (!client) return false;
  const bebida = round5(especificoMonto('05', cantidad, e, false));
  const jabon = round5(especificoMonto('05', cantidad, e, true));
  return !withinTolerance(client, bebida) && withinTolerance(client, jabon);
}
