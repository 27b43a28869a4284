// Builds the unsigned v4.4 comprobante (FE, ND, NC, TE, FEC, FEE, REP) as a string, in exact XSD element
// order (REFERENCE §8), in canonical form (no declaration, no self-closing tags, no whitespace between
// elements) so the signer can digest it as is. Which optional elements a kind has comes from its row of
// KIND_RULES (header, parties, line and summary shape).
import { type DocumentProveedor, UNIDAD_MEDIDA_ALIASES } from '@cr/contracts';
import type { TaxAmounts } from './arithmetic';
import { V44_NAMESPACE_BASE } from './comprobante-kinds';
import { type CheckedDocument, tipoDocumentoOtrosOf } from './document-check';
import type { CheckedLine, CheckedTax } from './line-check';
import type { CheckedSurtido } from './surtido';
import { formatCostaRicaDateTime, parseIsoDateOrDateTime, parseIsoDateTime } from './cr-time';
import type { Clave, Consecutivo } from './identifiers';
import type { Issuer } from './issuer';
import { Dec, formatAmount, toFixedHalfUp } from './money';
import { el, opt } from './xml-text';

const amount = (name: string, value: Dec) => `<${name}>${formatAmount(value)}</${name}>`;

/** The XSD's spelling of a unit the request may spell otherwise (the two omegas). */
const xsdUnidad = (unidad: string): string => UNIDAD_MEDIDA_ALIASES[unidad] ?? unidad;

function rate(value: Dec): string {
  return toFixedHalfUp(value, 2);
}

function digitsOnly(value: string): string {
  return value.replace(/\D/g, '');
}

function ubicacion(u: Issuer['ubicacion']): string {
  const barrio =
    u.barrio !== undefined && u.barrio.length >= 5 && u.barrio.length <= 50 ? u.barrio : undefined;
  return `<Ubicacion>${el('Provincia', u.provincia)}${el('Canton', u.canton)}${el('Distrito', u.distrito)}${opt('Barrio', barrio)}${el('OtrasSenas', u.otrasSenas)}</Ubicacion>`;
}

/** The issuer's NombreComercial when it fits the XSD's 3 to 80 characters (registration allows 1). */
function fitsNombreComercial(value: string | undefined): string | undefined {
  return value !== undefined && [...value].length >= 3 && [...value].length <= 80 ? value : undefined;
}

/** NumTelefono's minimum: 100, or 10000000 in FEC and FEE (their XSDs). */
function minTelefono(doc: CheckedDocument): number {
  return doc.rules.tipoDoc === '8' || doc.rules.tipoDoc === '9' ? 10_000_000 : 100;
}

/**
 * The issuer's registered telephone, or nothing when its digits are not a NumTelefono of this kind (the
 * element is optional, and the issuer cannot fix stored data per document; request telephones are refused
 * instead by the contract and kind-check).
 */
function telefono(value: string | undefined, min: number): string {
  const tel = value ? digitsOnly(value) : '';
  return tel.length >= 3 && tel.length <= 20 && Number(tel) >= min
    ? `<Telefono><CodigoPais>506</CodigoPais>${el('NumTelefono', tel)}</Telefono>`
    : '';
}

function identificacion(tipo: string, numero: string): string {
  return `<Identificacion>${el('Tipo', tipo)}${el('Numero', numero)}</Identificacion>`;
}

function correosOf(issuer: Issuer): string[] {
  return (
    Array.isArray(issuer.correoElectronico) ? issuer.correoElectronico : [issuer.correoElectronico]
  ).slice(0, 4);
}

/**
 * Our issuer as a party: the Emisor of every kind but FEC, where it is the buyer and so the Receptor. The two
 * XSD types differ only in how many CorreoElectronico they take (EmisorType up to 4, ReceptorType 1).
 */
function buildIssuerParty(issuer: Issuer, tag: 'Emisor' | 'Receptor', minTel: number): string {
  const correos = correosOf(issuer).slice(0, tag === 'Emisor' ? 4 : 1);
  return (
    `<${tag}>` +
    el('Nombre', issuer.nombre) +
    identificacion(issuer.tipoIdentificacion, issuer.numeroIdentificacion) +
    opt('NombreComercial', fitsNombreComercial(issuer.nombreComercial)) +
    ubicacion(issuer.ubicacion) +
    telefono(issuer.telefono, minTel) +
    correos.map((c) => el('CorreoElectronico', c)).join('') +
    `</${tag}>`
  );
}

/** FEC: the supplier is the Emisor (REFERENCE §1.1, FacturaElectronicaCompra EmisorType). */
function buildProveedorAsEmisor(p: DocumentProveedor, minTel: number): string {
  return (
    '<Emisor>' +
    el('Nombre', p.nombre) +
    identificacion(p.identificacion.tipo, p.identificacion.numero) +
    opt('NombreComercial', p.nombreComercial) +
    (p.ubicacion ? ubicacion(p.ubicacion) : '') +
    opt('OtrasSenasExtranjero', p.otrasSenasExtranjero) +
    telefono(p.telefono, minTel) +
    opt('CorreoElectronico', p.correoElectronico) +
    '</Emisor>'
  );
}

/** REP: the parties carry only name, identification and e-mail. */
function buildPaymentParties(doc: CheckedDocument, issuer: Issuer): string {
  const r = doc.document.receptor;
  const receptor =
    r === undefined || r === ''
      ? ''
      : `<Receptor>${el('Nombre', r.nombre)}${identificacion(r.identificacion.tipo, r.identificacion.numero)}${opt('CorreoElectronico', r.correoElectronico)}</Receptor>`;
  return (
    `<Emisor>${el('Nombre', issuer.nombre)}${identificacion(issuer.tipoIdentificacion, issuer.numeroIdentificacion)}` +
    `${correosOf(issuer)
      .map((c) => el('CorreoElectronico', c))
      .join('')}</Emisor>${receptor}`
  );
}

function buildParties(doc: CheckedDocument, issuer: Issuer): string {
  const minTel = minTelefono(doc);
  if (doc.rules.receptor === 'issuer')
    return (
      buildProveedorAsEmisor(doc.document.proveedor!, minTel) + buildIssuerParty(issuer, 'Receptor', minTel)
    );
  if (doc.rules.resumen === 'payment') return buildPaymentParties(doc, issuer);
  return buildIssuerParty(issuer, 'Emisor', minTel) + buildReceptor(doc);
}

function buildReceptor(doc: CheckedDocument): string {
  const r = doc.document.receptor;
  if (r === undefined || r === '') return '';
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
  const fecha = parseIsoDateOrDateTime(ex.fechaEmision);
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
/** `especifico`: the kind's ImpuestoType has DatosImpuestoEspecifico (FE, NC, ND, TE; not FEC, FEE, REP). */
/** `exportacion`: the kind's ImpuestoType has MontoExportacion (FEE, NC, ND). */
function buildImpuesto(tax: CheckedTax, t: TaxAmounts, especifico: boolean, exportacion = false): string {
  const s = tax.source;
  let xml = `<Impuesto>${el('Codigo', s.codigo)}`;
  if (s.codigo === '99') xml += opt('CodigoImpuestoOTRO', s.codigoImpuestoOtro);
  if (s.codigo === '01' || s.codigo === '07') xml += opt('CodigoTarifaIVA', s.codigoTarifa);
  if (tax.tarifa) xml += `<Tarifa>${rate(tax.tarifa)}</Tarifa>`;
  if (tax.factor) xml += `<FactorCalculoIVA>${toFixedHalfUp(tax.factor, 4)}</FactorCalculoIVA>`;
  const e = tax.especifico;
  if (e && especifico) {
    xml += `<DatosImpuestoEspecifico><CantidadUnidadMedida>${rate(e.cantidadUnidadMedida)}</CantidadUnidadMedida>`;
    if (e.porcentaje) xml += `<Porcentaje>${rate(e.porcentaje)}</Porcentaje>`;
    if (t.proporcion) xml += `<Proporcion>${formatAmount(t.proporcion)}</Proporcion>`;
    if (e.volumenUnidadConsumo)
      xml += `<VolumenUnidadConsumo>${rate(e.volumenUnidadConsumo)}</VolumenUnidadConsumo>`;
    xml += `${amount('ImpuestoUnidad', e.impuestoUnidad)}</DatosImpuestoEspecifico>`;
  }
  xml += amount('Monto', t.monto);
  if (exportacion && s.montoExportacion !== undefined)
    xml += amount('MontoExportacion', new Dec(s.montoExportacion));
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

/**
 * DetalleSurtido: each component in LineaDetalleSurtido order. FEE components have neither
 * BaseImponibleSurtido nor DatosImpuestoEspecificoSurtido (its XSD); `full` = FE, TE, NC, ND.
 */
function buildDetalleSurtido(s: CheckedSurtido, full: boolean): string {
  let xml = '<DetalleSurtido>';
  for (const c of s.components) {
    const src = c.source;
    xml += `<LineaDetalleSurtido>${el('CodigoCABYSSurtido', src.codigo)}`;
    for (const cc of src.codigoComercial ?? [])
      xml += `<CodigoComercialSurtido>${el('TipoSurtido', cc.tipo)}${el('CodigoSurtido', cc.codigo)}</CodigoComercialSurtido>`;
    xml +=
      `<CantidadSurtido>${toFixedHalfUp(c.cantidad, 3)}</CantidadSurtido>${el('UnidadMedidaSurtido', xsdUnidad(src.unidadMedida))}` +
      opt('UnidadMedidaComercialSurtido', src.unidadMedidaComercial) +
      el('DetalleSurtido', src.detalle) +
      amount('PrecioUnitarioSurtido', c.precioUnitario) +
      amount('MontoTotalSurtido', c.montoTotal);
    c.discountSources.forEach((d, j) => {
      xml +=
        `<DescuentoSurtido>${amount('MontoDescuentoSurtido', c.descuentos[j]!)}${el('CodigoDescuentoSurtido', d.codigoDescuento)}` +
        `${d.codigoDescuento === '99' ? opt('DescuentoSurtidoOtros', d.descuentoOtros) : ''}</DescuentoSurtido>`;
    });
    xml += amount('SubTotalSurtido', c.subTotal);
    if (full) xml += amount('BaseImponibleSurtido', c.baseImponible);
    c.impuestos.forEach((t, k) => {
      const ct = c.checkedTaxes[k]!;
      const ts = ct.source;
      xml += `<ImpuestoSurtido>${el('CodigoImpuestoSurtido', ts.codigo)}`;
      if (ts.codigo === '99') xml += opt('CodigoImpuestoOTROSurtido', ts.codigoImpuestoOtro);
      if (ts.codigo === '01') xml += opt('CodigoTarifaIVASurtido', ts.codigoTarifa);
      if (ct.tarifa) xml += `<TarifaSurtido>${rate(ct.tarifa)}</TarifaSurtido>`;
      const e = ct.especifico;
      if (e && full) {
        xml += `<DatosImpuestoEspecificoSurtido><CantidadUnidadMedidaSurtido>${rate(e.cantidadUnidadMedida)}</CantidadUnidadMedidaSurtido>`;
        if (e.porcentaje) xml += `<PorcentajeSurtido>${rate(e.porcentaje)}</PorcentajeSurtido>`;
        if (t.proporcion) xml += `<ProporcionSurtido>${formatAmount(t.proporcion)}</ProporcionSurtido>`;
        if (e.volumenUnidadConsumo)
          xml += `<VolumenUnidadConsumoSurtido>${rate(e.volumenUnidadConsumo)}</VolumenUnidadConsumoSurtido>`;
        xml += `${amount('ImpuestoUnidadSurtido', e.impuestoUnidad)}</DatosImpuestoEspecificoSurtido>`;
      }
      xml += `${amount('MontoImpuestoSurtido', t.monto)}</ImpuestoSurtido>`;
    });
    xml += '</LineaDetalleSurtido>';
  }
  return `${xml}</DetalleSurtido>`;
}

/** A surtido line's own Impuesto entries: code (and CodigoImpuestoOTRO) and the components' sum, no rate. */
function buildSurtidoImpuestos(l: CheckedLine, s: CheckedSurtido): string {
  return l.impuestos
    .map(
      (t, i) =>
        `<Impuesto>${el('Codigo', t.codigo)}${t.codigo === '99' ? opt('CodigoImpuestoOTRO', s.otros[i]) : ''}${amount('Monto', t.monto)}</Impuesto>`,
    )
    .join('');
}

/** REP lines: the payment registered per original line, with its IVA (ReciboElectronicoPago LineaDetalle). */
function buildPaymentLines(doc: CheckedDocument): string {
  const parts: string[] = ['<DetalleServicio>'];
  for (const l of doc.lines) {
    parts.push(
      `<LineaDetalle><NumeroLinea>${l.source.numeroLinea}</NumeroLinea>${el('Detalle', l.source.detalle)}` +
        amount('MontoTotal', l.montoTotal) +
        amount('SubTotal', l.subTotal) +
        l.impuestos.map((t, i) => buildImpuesto(l.checkedTaxes[i]!, t, false)).join('') +
        amount('ImpuestoNeto', l.impuestoNeto) +
        amount('MontoTotalLinea', l.montoTotalLinea) +
        '</LineaDetalle>',
    );
  }
  parts.push('</DetalleServicio>');
  return parts.join('');
}

function buildLines(doc: CheckedDocument): string {
  const { rules } = doc;
  if (rules.lines === 'payment') return buildPaymentLines(doc);
  // FEE lines have no BaseImponible nor ImpuestoNeto; FEE and FEC none of the factory-tax elements nor
  // DatosImpuestoEspecifico (kind-check refuses the data they could not carry).
  const exportLine = rules.lines === 'export';
  const factoryTax = rules.lines === 'full';
  const parts: string[] = ['<DetalleServicio>'];
  for (const l of doc.lines) {
    const s = l.source;
    let xml = `<LineaDetalle><NumeroLinea>${s.numeroLinea}</NumeroLinea>`;
    if (rules.partidaArancelaria !== 'none') xml += opt('PartidaArancelaria', s.partidaArancelaria);
    xml += el('CodigoCABYS', s.codigo!);
    for (const c of s.codigoComercial ?? [])
      xml += `<CodigoComercial>${el('Tipo', c.tipo)}${el('Codigo', c.codigo)}</CodigoComercial>`;
    xml += `<Cantidad>${toFixedHalfUp(l.cantidad, 3)}</Cantidad>${el('UnidadMedida', xsdUnidad(s.unidadMedida!))}`;
    if (rules.tipoTransaccion) xml += opt('TipoTransaccion', s.tipoTransaccion);
    xml += opt('UnidadMedidaComercial', s.unidadMedidaComercial) + el('Detalle', s.detalle);
    for (const vin of s.numeroVINoSerie ?? []) xml += el('NumeroVINoSerie', vin);
    xml += opt('RegistroMedicamento', s.registroMedicamento) + opt('FormaFarmaceutica', s.formaFarmaceutica);
    if (l.surtido) xml += buildDetalleSurtido(l.surtido, factoryTax);
    xml += amount('PrecioUnitario', l.precioUnitario) + amount('MontoTotal', l.montoTotal);
    xml += buildDescuentos(l);
    xml += amount('SubTotal', l.subTotal);
    if (factoryTax) xml += opt('IVACobradoFabrica', s.ivaCobradoFabrica);
    if (!exportLine) xml += amount('BaseImponible', l.baseImponible);
    if (l.surtido) xml += buildSurtidoImpuestos(l, l.surtido);
    else
      l.impuestos.forEach((t, i) => {
        xml += buildImpuesto(l.checkedTaxes[i]!, t, factoryTax, rules.montoExportacion);
      });
    if (factoryTax) xml += amount('ImpuestoAsumidoEmisorFabrica', l.impuestoAsumidoEmisorFabrica);
    if (!exportLine) xml += amount('ImpuestoNeto', l.impuestoNeto);
    xml += `${amount('MontoTotalLinea', l.montoTotalLinea)}</LineaDetalle>`;
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
        (c.tipoDocumento === '99' ? opt('TipoDocumentoOTROS', tipoDocumentoOtrosOf(c)) : '') +
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

function buildMediosPago(doc: CheckedDocument): string {
  return doc.mediosPago
    .map(
      (m) =>
        `<MedioPago>${el('TipoMedioPago', m.tipo)}${m.tipo === '99' ? opt('MedioPagoOtros', m.otros) : ''}${m.total ? amount('TotalMedioPago', m.total) : ''}</MedioPago>`,
    )
    .join('');
}

function buildDesglose(doc: CheckedDocument): string {
  return doc.summary.totalDesgloseImpuesto
    .map(
      (d) =>
        `<TotalDesgloseImpuesto>${el('Codigo', d.codigo)}${opt('CodigoTarifaIVA', d.codigoTarifa)}${amount('TotalMontoImpuesto', d.totalMontoImpuesto)}</TotalDesgloseImpuesto>`,
    )
    .join('');
}

/** REP summary: currency, sale, net sale, taxes, payment means and total (ReciboElectronicoPago). */
function buildPaymentResumen(doc: CheckedDocument, moneda: string): string {
  const s = doc.summary;
  return (
    moneda +
    amount('TotalVenta', s.totalVenta) +
    amount('TotalVentaNeta', s.totalVentaNeta) +
    buildDesglose(doc) +
    amount('TotalImpuesto', s.totalImpuesto) +
    buildMediosPago(doc) +
    `${amount('TotalComprobante', s.totalComprobante)}</ResumenFactura>`
  );
}

/**
 * FEE summary: its XSD has neither exonerated nor no-sujeto totals (an export invoice carries no
 * exoneration), so 0 % lines (codigoTarifa 01, the zero rate with credit of exports) count as exentas
 * (docs/decisions/0010).
 */
function buildExportResumen(doc: CheckedDocument, moneda: string): string {
  const s = doc.summary;
  return (
    moneda +
    amount('TotalServGravados', s.totalServGravados) +
    amount('TotalServExentos', s.totalServExentos.plus(s.totalServNoSujeto)) +
    amount('TotalMercanciasGravadas', s.totalMercanciasGravadas) +
    amount('TotalMercanciasExentas', s.totalMercanciasExentas.plus(s.totalMercNoSujeta)) +
    amount('TotalGravado', s.totalGravado) +
    amount('TotalExento', s.totalExento.plus(s.totalNoSujeto)) +
    amount('TotalVenta', s.totalVenta) +
    amount('TotalDescuentos', s.totalDescuentos) +
    amount('TotalVentaNeta', s.totalVentaNeta) +
    buildDesglose(doc) +
    amount('TotalImpuesto', s.totalImpuesto) +
    amount('TotalOtrosCargos', s.totalOtrosCargos) +
    buildMediosPago(doc) +
    `${amount('TotalComprobante', s.totalComprobante)}</ResumenFactura>`
  );
}

function buildResumen(doc: CheckedDocument): string {
  const s = doc.summary;
  const moneda = `<ResumenFactura><CodigoTipoMoneda>${el('CodigoMoneda', doc.codigoMoneda)}${amount('TipoCambio', doc.tipoCambio)}</CodigoTipoMoneda>`;
  if (doc.rules.resumen === 'payment') return buildPaymentResumen(doc, moneda);
  if (doc.rules.resumen === 'export') return buildExportResumen(doc, moneda);
  let xml = moneda;
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
  xml +=
    buildDesglose(doc) +
    amount('TotalImpuesto', s.totalImpuesto) +
    amount('TotalImpAsumEmisorFabrica', s.totalImpAsumEmisorFabrica) +
    // FEC has no TotalIVADevuelto (IVA is returned on sales only).
    (doc.rules.resumen === 'full' ? amount('TotalIVADevuelto', s.totalIVADevuelto) : '') +
    amount('TotalOtrosCargos', s.totalOtrosCargos) +
    buildMediosPago(doc);
  return `${xml}${amount('TotalComprobante', s.totalComprobante)}</ResumenFactura>`;
}

function buildReferencias(doc: CheckedDocument): string {
  return doc.referencias.map(buildReferencia).join('');
}

function buildReferencia(r: CheckedDocument['referencias'][number]): string {
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
  const { rules } = doc;
  const root = rules.root;
  const namespace = V44_NAMESPACE_BASE + rules.kind.ns;
  const d = doc.document;
  const payment = rules.resumen === 'payment';
  const actividadReceptor =
    rules.actividadReceptor === 'issuer'
      ? el('CodigoActividadReceptor', d.codigoActividad)
      : rules.actividadReceptor === 'optional'
        ? opt('CodigoActividadReceptor', d.codigoActividadReceptor)
        : '';
  const body =
    el('Clave', clave.value) +
    el('ProveedorSistemas', issuer.proveedorSistemas ?? issuer.numeroIdentificacion) +
    (rules.actividadEmisor === 'none' ? '' : el('CodigoActividadEmisor', d.codigoActividad)) +
    actividadReceptor +
    el('NumeroConsecutivo', consecutivo.value) +
    el('FechaEmision', formatCostaRicaDateTime(doc.fechaEmision)) +
    buildParties(doc, issuer) +
    el('CondicionVenta', doc.condicionVenta) +
    // REP has neither CondicionVentaOtros nor PlazoCredito.
    (!payment && doc.condicionVenta === '99' ? opt('CondicionVentaOtros', d.condicionVentaOtros) : '') +
    (!payment && d.plazoCredito !== undefined ? `<PlazoCredito>${d.plazoCredito}</PlazoCredito>` : '') +
    buildLines(doc) +
    (rules.otrosCargos ? buildOtrosCargos(doc) : '') +
    buildResumen(doc) +
    buildReferencias(doc);
  return { open: `<${root} xmlns="${namespace}">`, body, close: `</${root}>`, namespace };
}
