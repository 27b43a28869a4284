// The wording of each block, shared by the letter and the ticket layouts.
import {
  CODIGOS_REFERENCIA,
  CONDICIONES_VENTA,
  DESCUENTOS,
  IMPUESTOS,
  IMPUESTOS_CORTOS,
  INSTITUCIONES,
  MEDIOS_PAGO,
  TIPOS_DOC_REFERENCIA,
  TIPOS_EXONERACION,
  TARIFAS_IVA,
  TIPOS_IDENTIFICACION,
  TOTALES,
  label,
} from './catalogs';
import { formatDateTime, formatIdentificacion, formatMoney, formatPrice, formatRate } from './format';
import type {
  ComponenteSurtido,
  ComprobanteView,
  Exoneracion,
  Impuesto,
  Linea,
  Party,
  Referencia,
} from './model';

/**
 * The headings over the two parties. On a purchase invoice (FEC) the XML's Emisor is the supplier who
 * sold (and issued nothing: our tenant issues on its behalf) and the Receptor is our tenant, the buyer.
 */
export function partyTitles(v: Pick<ComprobanteView, 'kind'>): { emisor: string; receptor: string } {
  return v.kind === 'FEC'
    ? { emisor: 'Proveedor (vendedor)', receptor: 'Receptor (comprador)' }
    : { emisor: 'Emisor', receptor: 'Receptor' };
}

/** The lines under a party's name: identification, phone, e-mail, address. */
export function partyLines(p: Party): string[] {
  const out: string[] = [];
  if (p.nombreComercial) out.push(p.nombreComercial);
  if (p.identificacion) {
    const tipo = label(TIPOS_IDENTIFICACION, p.identificacion.tipo) || 'Identificación';
    out.push(`${tipo}: ${formatIdentificacion(p.identificacion.tipo, p.identificacion.numero)}`);
  }
  if (p.telefono) out.push(`Teléfono: ${p.telefono}`);
  if (p.correos.length > 0) out.push(`Correo: ${p.correos.join(', ')}`);
  if (p.ubicacion) {
    const u = p.ubicacion;
    const code = `${u.provincia}-${u.canton}-${u.distrito}`;
    out.push(
      `Ubicación: ${code}${u.barrio ? `, ${u.barrio}` : ''}${u.otrasSenas ? `, ${u.otrasSenas}` : ''}`,
    );
  }
  if (p.otrasSenasExtranjero) out.push(`Dirección: ${p.otrasSenasExtranjero}`);
  return out;
}

export function exoneracionText(e: Exoneracion, moneda: string): string {
  const tipo = label(TIPOS_EXONERACION, e.tipoDocumento, e.tipoDocumentoOtro);
  const inst = label(INSTITUCIONES, e.nombreInstitucion, e.nombreInstitucionOtros);
  const ley = e.articulo ? `, art. ${e.articulo}${e.inciso ? ` inc. ${e.inciso}` : ''}` : '';
  return (
    `Exoneración: ${tipo}, documento ${e.numeroDocumento}${ley}, ${inst}, ` +
    `emitido ${formatDateTime(e.fechaEmision)}; tarifa exonerada ${formatRate(e.tarifaExonerada)}, ` +
    `monto exonerado ${formatMoney(e.montoExoneracion, moneda)}`
  );
}

type ImpuestoTarifa = Pick<Impuesto, 'codigo' | 'codigoTarifa' | 'tarifa'>;

/** `IVA 13 %` for the tax column (a line's tax or a surtido component's); `IVA exenta` at 0 %. */
export function impuestoShort(i: ImpuestoTarifa & Pick<Impuesto, 'codigoOtro'>): string {
  return withTarifa(i.codigo === '01' ? 'IVA' : label(IMPUESTOS, i.codigo, i.codigoOtro), i);
}

/** `Selectivo 10 %`: the short name, for a surtido component's narrow tax column. */
export function impuestoCorto(i: ImpuestoTarifa): string {
  return withTarifa(label(IMPUESTOS_CORTOS, i.codigo), i);
}

/**
 * A tax's name with its rate. At 0 % an IVA rate code says which: exempt (10), zero-rated with credit (01),
 * without (11) or transitory (05) all read "0 %", so the code's name is printed instead, as the tax
 * breakdown names it (`IVA exenta`, `IVA tarifa 0 % sin derecho a crédito`): the line and its row agree.
 */
function withTarifa(name: string, i: ImpuestoTarifa): string {
  if (i.codigoTarifa && (i.tarifa === undefined || /^0*(\.0*)?$/.test(i.tarifa)))
    return `${name} ${tarifaIvaName(i.codigoTarifa)}`;
  return i.tarifa !== undefined ? `${name} ${formatRate(i.tarifa)}` : name;
}

/** `tarifa general 13 %`, `exenta`: a CodigoTarifaIVA's name after the tax's, the % kept with its number. */
function tarifaIvaName(codigoTarifa: string): string {
  return label(TARIFAS_IVA, codigoTarifa).toLowerCase().replace(/ %/g, '\u00a0%');
}

/**
 * Extra lines under a document line: commercial codes, discounts' nature, other taxes, the amount of a tax
 * recorded for an export (informational: in no total), exonerations.
 */
export function lineNotes(l: Linea, moneda: string): string[] {
  const out: string[] = [];
  if (l.partidaArancelaria) out.push(`Partida arancelaria: ${l.partidaArancelaria}`);
  if (l.unidadMedidaComercial) out.push(`Unidad comercial: ${l.unidadMedidaComercial}`);
  if (l.codigosComerciales.length > 0) out.push(`Código comercial: ${l.codigosComerciales.join(', ')}`);
  // The table shows the discounts' sum; each one, with its kind, is here.
  for (const d of l.descuentos) {
    const kind = label(DESCUENTOS, d.codigo, d.codigoOtro);
    const what = [kind, d.naturaleza && `(${d.naturaleza})`].filter(Boolean).join(' ');
    out.push(`Descuento: ${what ? `${what} — ` : ''}${formatMoney(d.monto, moneda)}`);
  }
  if (l.impuestos.length > 1) {
    out.push(
      `Impuestos: ${l.impuestos.map((i) => `${impuestoShort(i)} ${formatMoney(i.monto, moneda)}`).join('; ')}`,
    );
  }
  for (const i of l.impuestos)
    if (i.montoExportacion !== undefined)
      out.push(
        `${impuestoShort(i)}: monto de exportación ${formatMoney(i.montoExportacion, moneda)} (informativo)`,
      );
  for (const i of l.impuestos) if (i.exoneracion) out.push(exoneracionText(i.exoneracion, moneda));
  return out;
}

/** The title over a surtido line's components: their amounts are those of one unit of the line. */
export const SURTIDO_TITLE = 'Contenido de cada unidad';

/** A component's unit (`Unid`, `Unid (lata)`) and its description with its commercial codes. */
export function componenteUnidad(c: ComponenteSurtido): string {
  return c.unidadMedidaComercial ? `${c.unidadMedida} (${c.unidadMedidaComercial})` : c.unidadMedida;
}
export function componenteDetalle(c: ComponenteSurtido): string {
  return c.codigosComerciales.length > 0
    ? `${c.detalle}\nCódigo comercial: ${c.codigosComerciales.join(', ')}`
    : c.detalle;
}

/**
 * The summary row of the IVA returned (health services paid by card), printed after the taxes and other
 * charges with a minus sign: venta neta + impuesto + otros cargos − IVA devuelto = total. None when zero.
 */
export function ivaDevueltoRow(v: ComprobanteView): [string, string] | undefined {
  const monto = v.resumen.totalIVADevuelto;
  if (monto === undefined || /^0*(\.0*)?$/.test(monto)) return undefined;
  return [label(TOTALES, 'TotalIVADevuelto'), `-${formatMoney(monto, v.resumen.codigoMoneda)}`];
}

export function condicionText(v: ComprobanteView): string | undefined {
  if (!v.condicionVenta) return undefined;
  const name = label(CONDICIONES_VENTA, v.condicionVenta, v.condicionVentaOtros);
  return v.plazoCredito ? `${name}, plazo ${v.plazoCredito} días` : name;
}

export function mediosPagoLines(v: ComprobanteView): string[] {
  return v.resumen.mediosPago.map((m) => {
    const name = label(MEDIOS_PAGO, m.tipo, m.otros);
    return m.total ? `${name}: ${formatMoney(m.total, v.resumen.codigoMoneda)}` : name;
  });
}

export function referenciaText(r: Referencia): string {
  const tipo = label(TIPOS_DOC_REFERENCIA, r.tipoDoc, r.tipoDocOtro);
  const codigo = label(CODIGOS_REFERENCIA, r.codigo, r.codigoOtro);
  return (
    `${tipo}${r.numero ? ` ${r.numero}` : ''} del ${formatDateTime(r.fechaEmision)}` +
    `${codigo ? `. ${codigo}` : ''}${r.razon ? `: ${r.razon}` : ''}`
  );
}

export function monedaText(v: ComprobanteView): string {
  const r = v.resumen;
  if (r.codigoMoneda === 'CRC' || !r.tipoCambio) return r.codigoMoneda;
  return `${r.codigoMoneda}, tipo de cambio ${formatPrice(r.tipoCambio)}`;
}

/** The tax breakdown rows: `IVA 13 %` → amount. */
export function desgloseRows(v: ComprobanteView): [string, string][] {
  return v.resumen.desglose.map((d) => {
    const name = d.codigo === '01' || d.codigo === '07' ? 'IVA' : label(IMPUESTOS, d.codigo);
    const tarifa = d.codigoTarifa ? ` ${tarifaIvaName(d.codigoTarifa)}` : '';
    return [`${name}${tarifa}`, formatMoney(d.monto, v.resumen.codigoMoneda)];
  });
}
