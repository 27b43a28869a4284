// Reads the amounts of a v4.4 comprobante of any of the seven kinds (the line and summary element names are
// shared): every line with all its discounts and taxes (specific-tax data, factor, exoneration), the
// ResumenFactura totals, the tax breakdown, other charges and payment means. Values stay strings as
// written; verifyComprobanteArithmetic turns them into decimals. Used by the sandbox's verdict, the
// tenant-api's inbox and parseComprobante.
import type { Element } from '@xmldom/xmldom';

export interface AmountTax {
  codigo?: string;
  codigoTarifaIVA?: string;
  tarifa?: string;
  factorCalculoIVA?: string;
  cantidadUnidadMedida?: string;
  porcentaje?: string;
  proporcion?: string;
  volumenUnidadConsumo?: string;
  impuestoUnidad?: string;
  monto?: string;
  /** The exoneration's TipoDocumentoEX1 (its type: who may carry it depends on the kind). */
  tipoDocumentoEX1?: string;
  tarifaExonerada?: string;
  montoExoneracion?: string;
}

/** One LineaDetalleSurtido: a surtido component's amounts for one package. */
export interface AmountComponent {
  cabys?: string;
  cantidad?: string;
  precioUnitario?: string;
  montoTotal?: string;
  descuentos: Array<{ monto?: string; codigo?: string }>;
  subTotal?: string;
  baseImponible?: string;
  impuestos: AmountTax[];
}

export interface AmountLine {
  numeroLinea?: string;
  cabys?: string;
  cantidad?: string;
  precioUnitario?: string;
  montoTotal?: string;
  descuentos: Array<{ monto?: string; codigo?: string }>;
  subTotal?: string;
  ivaCobradoFabrica?: string;
  baseImponible?: string;
  impuestos: AmountTax[];
  impuestoAsumidoEmisorFabrica?: string;
  impuestoNeto?: string;
  montoTotalLinea?: string;
  /** DetalleSurtido's components, when the line is a surtido. */
  surtido?: AmountComponent[];
}

export interface ComprobanteAmounts {
  rootName: string;
  lines: AmountLine[];
  /** ResumenFactura's simple children by name (first occurrence). */
  resumen: Record<string, string>;
  desglose: Array<{ codigo?: string; codigoTarifaIVA?: string; totalMontoImpuesto?: string }>;
  otrosCargos: string[];
  mediosPago: Array<{ tipo?: string; total?: string; otros?: string }>;
}

export function childElements(el: Element | undefined, name: string): Element[] {
  const out: Element[] = [];
  if (!el) return out;
  for (let n = el.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 1 && (n as Element).localName === name) out.push(n as Element);
  }
  return out;
}

export function childText(el: Element | undefined, name: string): string | undefined {
  const t = childElements(el, name)[0]?.textContent;
  return t == null ? undefined : t.trim();
}

function readTax(i: Element): AmountTax {
  const datos = childElements(i, 'DatosImpuestoEspecifico')[0];
  const ex = childElements(i, 'Exoneracion')[0];
  const out: AmountTax = {};
  const set = (key: keyof AmountTax, value: string | undefined) => {
    if (value !== undefined) out[key] = value;
  };
  set('codigo', childText(i, 'Codigo'));
  set('codigoTarifaIVA', childText(i, 'CodigoTarifaIVA'));
  set('tarifa', childText(i, 'Tarifa'));
  set('factorCalculoIVA', childText(i, 'FactorCalculoIVA'));
  set('cantidadUnidadMedida', childText(datos, 'CantidadUnidadMedida'));
  set('porcentaje', childText(datos, 'Porcentaje'));
  set('proporcion', childText(datos, 'Proporcion'));
  set('volumenUnidadConsumo', childText(datos, 'VolumenUnidadConsumo'));
  set('impuestoUnidad', childText(datos, 'ImpuestoUnidad'));
  set('monto', childText(i, 'Monto'));
  set('tipoDocumentoEX1', childText(ex, 'TipoDocumentoEX1'));
  set('tarifaExonerada', childText(ex, 'TarifaExonerada'));
  set('montoExoneracion', childText(ex, 'MontoExoneracion'));
  return out;
}

/** ImpuestoSurtido read into the line tax shape (its elements carry a Surtido suffix). */
function readComponentTax(i: Element): AmountTax {
  const datos = childElements(i, 'DatosImpuestoEspecificoSurtido')[0];
  const out: AmountTax = {};
  const pairs: Array<[keyof AmountTax, Element | undefined, string]> = [
    ['codigo', i, 'CodigoImpuestoSurtido'],
    ['codigoTarifaIVA', i, 'CodigoTarifaIVASurtido'],
    ['tarifa', i, 'TarifaSurtido'],
    ['cantidadUnidadMedida', datos, 'CantidadUnidadMedidaSurtido'],
    ['porcentaje', datos, 'PorcentajeSurtido'],
    ['proporcion', datos, 'ProporcionSurtido'],
    ['volumenUnidadConsumo', datos, 'VolumenUnidadConsumoSurtido'],
    ['impuestoUnidad', datos, 'ImpuestoUnidadSurtido'],
    ['monto', i, 'MontoImpuestoSurtido'],
  ];
  for (const [key, parent, name] of pairs) {
    const value = childText(parent, name);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

function readComponent(c: Element): AmountComponent {
  const out: AmountComponent = {
    descuentos: childElements(c, 'DescuentoSurtido').map((d) => ({
      monto: childText(d, 'MontoDescuentoSurtido'),
      codigo: childText(d, 'CodigoDescuentoSurtido'),
    })),
    impuestos: childElements(c, 'ImpuestoSurtido').map(readComponentTax),
  };
  const fields = [
    ['cabys', 'CodigoCABYSSurtido'],
    ['cantidad', 'CantidadSurtido'],
    ['precioUnitario', 'PrecioUnitarioSurtido'],
    ['montoTotal', 'MontoTotalSurtido'],
    ['subTotal', 'SubTotalSurtido'],
    ['baseImponible', 'BaseImponibleSurtido'],
  ] as const;
  for (const [key, element] of fields) {
    const value = childText(c, element);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

function readLine(l: Element): AmountLine {
  const line: AmountLine = {
    descuentos: childElements(l, 'Descuento').map((d) => ({
      monto: childText(d, 'MontoDescuento'),
      codigo: childText(d, 'CodigoDescuento'),
    })),
    impuestos: childElements(l, 'Impuesto').map(readTax),
  };
  const fields = [
    ['numeroLinea', 'NumeroLinea'],
    ['cabys', 'CodigoCABYS'],
    ['cantidad', 'Cantidad'],
    ['precioUnitario', 'PrecioUnitario'],
    ['montoTotal', 'MontoTotal'],
    ['subTotal', 'SubTotal'],
    ['ivaCobradoFabrica', 'IVACobradoFabrica'],
    ['baseImponible', 'BaseImponible'],
    ['impuestoAsumidoEmisorFabrica', 'ImpuestoAsumidoEmisorFabrica'],
    ['impuestoNeto', 'ImpuestoNeto'],
    ['montoTotalLinea', 'MontoTotalLinea'],
  ] as const;
  for (const [key, element] of fields) {
    const value = childText(l, element);
    if (value !== undefined) line[key] = value;
  }
  const surtido = childElements(l, 'DetalleSurtido')[0];
  if (surtido) line.surtido = childElements(surtido, 'LineaDetalleSurtido').map(readComponent);
  return line;
}

/** The amounts under a comprobante's root element. */
export function readComprobanteAmounts(root: Element): ComprobanteAmounts {
  const resumenEl = childElements(root, 'ResumenFactura')[0];
  const resumen: Record<string, string> = {};
  if (resumenEl) {
    for (let n = resumenEl.firstChild; n; n = n.nextSibling) {
      if (n.nodeType !== 1) continue;
      const e = n as Element;
      const name = e.localName ?? e.nodeName;
      if (!(name in resumen) && !hasElementChild(e)) resumen[name] = (e.textContent ?? '').trim();
    }
  }
  return {
    rootName: root.localName ?? root.nodeName,
    lines: childElements(childElements(root, 'DetalleServicio')[0], 'LineaDetalle').map(readLine),
    resumen,
    desglose: childElements(resumenEl, 'TotalDesgloseImpuesto').map((d) => ({
      codigo: childText(d, 'Codigo'),
      codigoTarifaIVA: childText(d, 'CodigoTarifaIVA'),
      totalMontoImpuesto: childText(d, 'TotalMontoImpuesto'),
    })),
    otrosCargos: childElements(root, 'OtrosCargos').map((o) => childText(o, 'MontoCargo') ?? ''),
    mediosPago: childElements(resumenEl, 'MedioPago').map((m) => ({
      tipo: childText(m, 'TipoMedioPago'),
      total: childText(m, 'TotalMedioPago'),
      otros: childText(m, 'MedioPagoOtros'),
    })),
  };
}

function hasElementChild(el: Element): boolean {
  for (let n = el.firstChild; n; n = n.nextSibling) if (n.nodeType === 1) return true;
  return false;
}
