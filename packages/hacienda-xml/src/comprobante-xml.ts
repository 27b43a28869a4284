// Builds the unsigned v4.4 FacturaElectronica / NotaCreditoElectronica / TiqueteElectronico as a string,
// in exact XSD element order (REFERENCE §8), in canonical form (no declaration, no self-closing tags, no
// whitespace between elements) so the signer can digest it as is.
import type { TaxAmounts } from './arithmetic';
import type { CheckedDocument, TipoDocumento } from './document-check';
import type { CheckedLine, CheckedTax } from './line-check';
import { formatCostaRicaDateTime, parseIsoDateTime } from './cr-time';
import type { Clave, Consecutivo } from './identifiers';
import type { Issuer } from './issuer';
import { type Dec, formatAmount, toFixedHalfUp } from './money';
import { el, opt } from './xml-text';

const NS_BASE = 'https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/';

export const COMPROBANTE_ROOTS: Record<TipoDocumento, { root: string; namespace: string }> = {
  '01': { root: 'FacturaElectronica', namespace: `${NS_BASE}facturaElectronica` },
  '03': { root: 'NotaCreditoElectronica', namespace: `${NS_BASE}notaCreditoElectronica` },
  '04': { root: 'TiqueteElectronico', namespace: `${NS_BASE}tiqueteElectronico` },
};

const amount = (name: string, value: Dec) => `<${name}>${formatAmount(value)}</${name}>`;

function rate(value: Dec): string {
  return toFixedHalfUp(value, 2);
}

function digitsOnly(value: string): string {
  return value.replace(/\D/g, '');
}

function buildEmisor(issuer: Issuer): string {
  const u = issuer.ubicacion;
  const barrio =
    u.barrio !== undefined && u.barrio.length >= 5 && u.barrio.length <= 50 ? u.barrio : undefined;
  const correos = (
    Array.isArray(issuer.correoElectronico) ? issuer.correoElectronico : [issuer.correoElectronico]
  ).slice(0, 4);
  const tel = issuer.telefono ? digitsOnly(issuer.telefono) : '';
  return (
    '<Emisor>' +
    el('Nombre', issuer.nombre) +
    `<Identificacion>${el('Tipo', issuer.tipoIdentificacion)}${el('Numero', issuer.numeroIdentificacion)}</Identificacion>` +
    opt('NombreComercial', issuer.nombreComercial) +
    `<Ubicacion>${el('Provincia', u.provincia)}${el('Canton', u.canton)}${el('Distrito', u.distrito)}${opt('Barrio', barrio)}${el('OtrasSenas', u.otrasSenas)}</Ubicacion>` +
    (tel.length >= 3 ? `<Telefono><CodigoPais>506</CodigoPais>${el('NumTelefono', tel)}</Telefono>` : '') +
    correos.map((c) => el('CorreoElectronico', c)).join('') +
    '</Emisor>'
  );
}

function buildReceptor(doc: CheckedDocument): string {
  const r = doc.document.receptor;
  if (r === '') return '';
  const tel = r.telefono ? digitsOnly(r.telefono) : '';
  return (
    '<Receptor>' +
    el('Nombre', r.nombre) +
    `<Identificacion>${el('Tipo', r.identificacion.tipo)}${el('Numero', r.identificacion.numero)}</Identificacion>` +
    opt('NombreComercial', r.nombreComercial) +
    opt('OtrasSenasExtranjero', r.otrasSenasExtranjero) +
    (tel.length >= 3 ? `<Telefono><CodigoPais>506</CodigoPais>${el('NumTelefono', tel)}</Telefono>` : '') +
    opt('CorreoElectronico', r.correoElectronico) +
    '</Receptor>'
  );
}

function buildExoneracion(tax: CheckedTax, montoExoneracion: Dec): string {
  const ex = tax.source.exoneracion!;
  const fecha = parseIsoDateTime(ex.fechaEmision);
  return (
    '<Exoneracion>' +
    el('TipoDocumentoEX1', ex.tipoDocumento) +
    (ex.tipoDocumento === '99' ? opt('TipoDocumentoOTRO', ex.tipoDocumentoOtro) : '') +
    el('NumeroDocumento', ex.numeroDocumento) +
    opt('Articulo', ex.articulo) +
    opt('Inciso', ex.inciso === undefined ? undefined : String(ex.inciso)) +
    el('NombreInstitucion', ex.nombreInstitucion) +
    (ex.nombreInstitucion === '99' ? opt('NombreInstitucionOtros', ex.nombreInstitucionOtros) : '') +
    el('FechaEmisionEX', fecha ? formatCostaRicaDateTime(fecha) : ex.fechaEmision) +
    `<TarifaExonerada>${rate(tax.tarifaExonerada!)}</TarifaExonerada>` +
    amount('MontoExoneracion', montoExoneracion) +
    '</Exoneracion>'
  );
}

/** One Impuesto in ImpuestoType order: Codigo, CodigoImpuestoOTRO, CodigoTarifaIVA, Tarifa, FactorCalculoIVA,
 *  DatosImpuestoEspecifico, Monto, Exoneracion. */
function buildImpuesto(tax: CheckedTax, t: TaxAmounts): string {
  const s = tax.source;
  let xml = `<Impuesto>${el('Codigo', s.codigo)}`;
  if (s.codigo === '99') xml += opt('CodigoImpuestoOTRO', s.codigoImpuestoOtro);
  if (s.codigo === '01' || s.codigo === '07') xml += opt('CodigoTarifaIVA', s.codigoTarifa);
  if (tax.tarifa) xml += `<Tarifa>${rate(tax.tarifa)}</Tarifa>`;
  if (tax.factor) xml += `<FactorCalculoIVA>${toFixedHalfUp(tax.factor, 4)}</FactorCalculoIVA>`;
  const e = tax.especifico;
  if (e) {
    xml += `<DatosImpuestoEspecifico><CantidadUnidadMedida>${rate(e.cantidadUnidadMedida)}</CantidadUnidadMedida>`;
    if (e.porcentaje) xml += `<Porcentaje>${rate(e.porcentaje)}</Porcentaje>`;
    if (t.proporcion) xml += `<Proporcion>${formatAmount(t.proporcion)}</Proporcion>`;
    if (e.volumenUnidadConsumo)
      xml += `<VolumenUnidadConsumo>${rate(e.volumenUnidadConsumo)}</VolumenUnidadConsumo>`;
    xml += `${amount('ImpuestoUnidad', e.impuestoUnidad)}</DatosImpuestoEspecifico>`;
  }
  xml += amount('Monto', t.monto);
  if (s.exoneracion && t.montoExoneracion && tax.tarifaExonerada)
    xml += buildExoneracion(tax, t.montoExoneracion);
  return `${xml}</Impuesto>`;
}

function buildDescuentos(l: CheckedLine): string {
  let xml = '';
  l.discountSources.forEach((d, i) => {
    const monto = l.descuentos[i]!;
    // A zero legacy `descuento` never reaches here; a zero entry of `descuentos` is written as sent.
    xml +=
      `<Descuento>${amount('MontoDescuento', monto)}${el('CodigoDescuento', d.codigoDescuento)}` +
      (d.codigoDescuento === '99' ? opt('CodigoDescuentoOTRO', d.codigoDescuentoOtro) : '') +
      `${opt('NaturalezaDescuento', d.naturalezaDescuento)}</Descuento>`;
  });
  return xml;
}

function buildLines(doc: CheckedDocument): string {
  const parts: string[] = ['<DetalleServicio>'];
  for (const l of doc.lines) {
    const s = l.source;
    let xml = `<LineaDetalle><NumeroLinea>${s.numeroLinea}</NumeroLinea>${el('CodigoCABYS', s.codigo)}`;
    for (const c of s.codigoComercial ?? [])
      xml += `<CodigoComercial>${el('Tipo', c.tipo)}${el('Codigo', c.codigo)}</CodigoComercial>`;
    xml += `<Cantidad>${toFixedHalfUp(l.cantidad, 3)}</Cantidad>${el('UnidadMedida', s.unidadMedida)}`;
    if (doc.tipo !== '04') xml += opt('TipoTransaccion', s.tipoTransaccion);
    xml += opt('UnidadMedidaComercial', s.unidadMedidaComercial) + el('Detalle', s.detalle);
    for (const vin of s.numeroVINoSerie ?? []) xml += el('NumeroVINoSerie', vin);
    xml += opt('RegistroMedicamento', s.registroMedicamento) + opt('FormaFarmaceutica', s.formaFarmaceutica);
    xml += amount('PrecioUnitario', l.precioUnitario) + amount('MontoTotal', l.montoTotal);
    xml += buildDescuentos(l);
    xml += amount('SubTotal', l.subTotal) + opt('IVACobradoFabrica', s.ivaCobradoFabrica);
    xml += amount('BaseImponible', l.baseImponible);
    l.impuestos.forEach((t, i) => {
      xml += buildImpuesto(l.checkedTaxes[i]!, t);
    });
    xml += amount('ImpuestoAsumidoEmisorFabrica', l.impuestoAsumidoEmisorFabrica);
    xml += `${amount('ImpuestoNeto', l.impuestoNeto)}${amount('MontoTotalLinea', l.montoTotalLinea)}</LineaDetalle>`;
    parts.push(xml);
  }
  parts.push('</DetalleServicio>');
  return parts.join('');
}

function buildOtrosCargos(doc: CheckedDocument): string {
  return (doc.document.otrosCargos ?? [])
    .map((c, i) => {
      const t = c.identificacionTercero;
      return (
        '<OtrosCargos>' +
        el('TipoDocumentoOC', c.tipoDocumento) +
        (c.tipoDocumento === '99' ? opt('TipoDocumentoOTROS', c.tipoDocumentoOtros) : '') +
        (t
          ? `<IdentificacionTercero>${el('Tipo', t.tipo)}${el('Numero', t.numero)}</IdentificacionTercero>`
          : '') +
        opt('NombreTercero', c.nombreTercero) +
        el('Detalle', c.detalle) +
        el('PorcentajeOC', c.porcentaje) +
        amount('MontoCargo', doc.otrosCargos[i]!) +
        '</OtrosCargos>'
      );
    })
    .join('');
}

function buildResumen(doc: CheckedDocument): string {
  const s = doc.summary;
  let xml = `<ResumenFactura><CodigoTipoMoneda>${el('CodigoMoneda', doc.codigoMoneda)}${amount('TipoCambio', doc.tipoCambio)}</CodigoTipoMoneda>`;
  xml +=
    amount('TotalServGravados', s.totalServGravados) +
    amount('TotalServExentos', s.totalServExentos) +
    amount('TotalServExonerado', s.totalServExonerado) +
    amount('TotalServNoSujeto', s.totalServNoSujeto) +
    amount('TotalMercanciasGravadas', s.totalMercanciasGravadas) +
    amount('TotalMercanciasExentas', s.totalMercanciasExentas) +
    amount('TotalMercExonerada', s.totalMercExonerada) +
    amount('TotalMercNoSujeta', s.totalMercNoSujeta) +
    amount('TotalGravado', s.totalGravado) +
    amount('TotalExento', s.totalExento) +
    amount('TotalExonerado', s.totalExonerado) +
    amount('TotalNoSujeto', s.totalNoSujeto) +
    amount('TotalVenta', s.totalVenta) +
    amount('TotalDescuentos', s.totalDescuentos) +
    amount('TotalVentaNeta', s.totalVentaNeta);
  for (const d of s.totalDesgloseImpuesto) {
    xml += `<TotalDesgloseImpuesto>${el('Codigo', d.codigo)}${opt('CodigoTarifaIVA', d.codigoTarifa)}${amount('TotalMontoImpuesto', d.totalMontoImpuesto)}</TotalDesgloseImpuesto>`;
  }
  xml +=
    amount('TotalImpuesto', s.totalImpuesto) +
    amount('TotalImpAsumEmisorFabrica', s.totalImpAsumEmisorFabrica) +
    amount('TotalIVADevuelto', s.totalIVADevuelto) +
    amount('TotalOtrosCargos', s.totalOtrosCargos);
  for (const m of doc.mediosPago) {
    xml += `<MedioPago>${el('TipoMedioPago', m.tipo)}${m.tipo === '99' ? opt('MedioPagoOtros', m.otros) : ''}${m.total ? amount('TotalMedioPago', m.total) : ''}</MedioPago>`;
  }
  return `${xml}${amount('TotalComprobante', s.totalComprobante)}</ResumenFactura>`;
}

function buildReferencia(doc: CheckedDocument): string {
  const r = doc.document.informacionReferencia;
  if (!r) return '';
  const fecha = parseIsoDateTime(r.fechaEmision);
  return (
    '<InformacionReferencia>' +
    el('TipoDocIR', r.tipoDocumento) +
    (r.tipoDocumento === '99' ? opt('TipoDocRefOTRO', r.tipoDocumentoOtro) : '') +
    el('Numero', r.numero) +
    el('FechaEmisionIR', fecha ? formatCostaRicaDateTime(fecha) : r.fechaEmision) +
    el('Codigo', r.codigo) +
    (r.codigo === '99' ? opt('CodigoReferenciaOTRO', r.codigoOtro) : '') +
    el('Razon', r.razon) +
    '</InformacionReferencia>'
  );
}

export interface ComprobanteXmlParts {
  /** The root start tag, e.g. `<FacturaElectronica xmlns="…">`. */
  open: string;
  /** Everything between the root tags (the signature goes after it). */
  body: string;
  /** The root end tag. */
  close: string;
  namespace: string;
}

/** The unsigned document in canonical form, split so the signature can be appended before the end tag. */
export function buildComprobanteXml(
  doc: CheckedDocument,
  issuer: Issuer,
  clave: Clave,
  consecutivo: Consecutivo,
): ComprobanteXmlParts {
  const { root, namespace } = COMPROBANTE_ROOTS[doc.tipo];
  const d = doc.document;
  const body =
    el('Clave', clave.value) +
    el('ProveedorSistemas', issuer.proveedorSistemas ?? issuer.numeroIdentificacion) +
    el('CodigoActividadEmisor', d.codigoActividad) +
    (doc.tipo !== '04' ? opt('CodigoActividadReceptor', d.codigoActividadReceptor) : '') +
    el('NumeroConsecutivo', consecutivo.value) +
    el('FechaEmision', formatCostaRicaDateTime(doc.fechaEmision)) +
    buildEmisor(issuer) +
    buildReceptor(doc) +
    el('CondicionVenta', doc.condicionVenta) +
    (doc.condicionVenta === '99' ? opt('CondicionVentaOtros', d.condicionVentaOtros) : '') +
    (d.plazoCredito !== undefined ? `<PlazoCredito>${d.plazoCredito}</PlazoCredito>` : '') +
    buildLines(doc) +
    buildOtrosCargos(doc) +
    buildResumen(doc) +
    buildReferencia(doc);
  return { open: `<${root} xmlns="${namespace}">`, body, close: `</${root}>`, namespace };
}
