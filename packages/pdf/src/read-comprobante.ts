// Reads the printable view out of a signed v4.4 comprobante of any of the seven kinds. It walks the XML
// generically (element names, no schema) and picks what the PDF shows; the document engine's validation
// and arithmetic stay in @cr/hacienda-xml. Pure: string in, view out.
import { COMPROBANTE_KINDS, HaciendaXmlError, parseXml } from '@cr/hacienda-xml';
import type {
  ComponenteSurtido,
  ComprobanteView,
  Exoneracion,
  Impuesto,
  Linea,
  Party,
  Referencia,
  Resumen,
} from './model';

/**
 * Summary totals shown when present, in XSD order (the tax breakdown, TotalIVADevuelto and TotalComprobante
 * apart: the layouts print them after the taxes and other charges, so the rows add up to the total).
 */
const SUMMARY_TOTALS = [
  'TotalServGravados',
  'TotalServExentos',
  'TotalServExonerado',
  'TotalServNoSujeto',
  'TotalMercanciasGravadas',
  'TotalMercanciasExentas',
  'TotalMercExonerada',
  'TotalMercNoSujeta',
  'TotalGravado',
  'TotalExento',
  'TotalExonerado',
  'TotalNoSujeto',
  'TotalVenta',
  'TotalDescuentos',
  'TotalVentaNeta',
  'TotalImpAsumEmisorFabrica',
] as const;

interface Node {
  name: string;
  text: string;
  children: Node[];
}

/** The part of an xmldom element this reader touches. */
interface DomNode {
  nodeType: number;
  nodeName: string;
  localName?: string | null;
  nodeValue?: string | null;
  firstChild: DomNode | null;
  nextSibling: DomNode | null;
}

function toNode(el: DomNode): Node {
  const children: Node[] = [];
  let text = '';
  for (let c = el.firstChild; c; c = c.nextSibling) {
    if (c.nodeType === 1) children.push(toNode(c));
    else if (c.nodeType === 3 || c.nodeType === 4) text += c.nodeValue ?? '';
  }
  return { name: el.localName ?? el.nodeName, text: text.trim(), children };
}

const kids = (n: Node | undefined, name: string): Node[] => n?.children.filter((c) => c.name === name) ?? [];
const kid = (n: Node | undefined, name: string): Node | undefined => n?.children.find((c) => c.name === name);
const txt = (n: Node | undefined, name: string): string | undefined => {
  const found = kid(n, name);
  return found && found.text !== '' ? found.text : undefined;
};
const req = (n: Node | undefined, name: string): string => txt(n, name) ?? '';

/** Spreads `{ key: value }` only when the value is present (the view has no `undefined` members). */
function some<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

function readParty(n: Node | undefined): Party | undefined {
  if (!n) return undefined;
  const id = kid(n, 'Identificacion');
  const tel = kid(n, 'Telefono');
  const ubic = kid(n, 'Ubicacion');
  return {
    nombre: req(n, 'Nombre'),
    ...some('nombreComercial', txt(n, 'NombreComercial')),
    ...(id ? { identificacion: { tipo: req(id, 'Tipo'), numero: req(id, 'Numero') } } : {}),
    ...(tel && txt(tel, 'NumTelefono')
      ? { telefono: `+${req(tel, 'CodigoPais')} ${req(tel, 'NumTelefono')}` }
      : {}),
    correos: kids(n, 'CorreoElectronico').map((c) => c.text),
    ...(ubic
      ? {
          ubicacion: {
            provincia: req(ubic, 'Provincia'),
            canton: req(ubic, 'Canton'),
            distrito: req(ubic, 'Distrito'),
            ...some('barrio', txt(ubic, 'Barrio')),
            ...some('otrasSenas', txt(ubic, 'OtrasSenas')),
          },
        }
      : {}),
    ...some('otrasSenasExtranjero', txt(n, 'OtrasSenasExtranjero')),
  };
}

function readExoneracion(n: Node | undefined): Exoneracion | undefined {
  if (!n) return undefined;
  return {
    tipoDocumento: req(n, 'TipoDocumentoEX1'),
    ...some('tipoDocumentoOtro', txt(n, 'TipoDocumentoOTRO')),
    numeroDocumento: req(n, 'NumeroDocumento'),
    ...some('articulo', txt(n, 'Articulo')),
    ...some('inciso', txt(n, 'Inciso')),
    nombreInstitucion: req(n, 'NombreInstitucion'),
    ...some('nombreInstitucionOtros', txt(n, 'NombreInstitucionOtros')),
    fechaEmision: req(n, 'FechaEmisionEX'),
    tarifaExonerada: req(n, 'TarifaExonerada'),
    montoExoneracion: req(n, 'MontoExoneracion'),
  };
}

/** A LineaDetalleSurtido (its DetalleSurtido child is the component's description). */
function readComponente(n: Node): ComponenteSurtido {
  return {
    cabys: req(n, 'CodigoCABYSSurtido'),
    codigosComerciales: kids(n, 'CodigoComercialSurtido').map((c) => req(c, 'CodigoSurtido')),
    cantidad: req(n, 'CantidadSurtido'),
    unidadMedida: req(n, 'UnidadMedidaSurtido'),
    ...some('unidadMedidaComercial', txt(n, 'UnidadMedidaComercialSurtido')),
    detalle: req(n, 'DetalleSurtido'),
    precioUnitario: req(n, 'PrecioUnitarioSurtido'),
    montoTotal: req(n, 'MontoTotalSurtido'),
    descuentos: kids(n, 'DescuentoSurtido').map((d) => ({
      monto: req(d, 'MontoDescuentoSurtido'),
      ...some('codigo', txt(d, 'CodigoDescuentoSurtido')),
    })),
    subTotal: req(n, 'SubTotalSurtido'),
    impuestos: kids(n, 'ImpuestoSurtido').map((i) => ({
      codigo: req(i, 'CodigoImpuestoSurtido'),
      ...some('codigoTarifa', txt(i, 'CodigoTarifaIVASurtido')),
      ...some('tarifa', txt(i, 'TarifaSurtido')),
      monto: req(i, 'MontoImpuestoSurtido'),
    })),
  };
}

function readLinea(n: Node): Linea {
  const impuestos: Impuesto[] = kids(n, 'Impuesto').map((i) => {
    const exoneracion = readExoneracion(kid(i, 'Exoneracion'));
    return {
      codigo: req(i, 'Codigo'),
      ...some('codigoOtro', txt(i, 'CodigoImpuestoOTRO')),
      ...some('codigoTarifa', txt(i, 'CodigoTarifaIVA')),
      ...some('tarifa', txt(i, 'Tarifa')),
      monto: req(i, 'Monto'),
      ...some('montoExportacion', txt(i, 'MontoExportacion')),
      ...(exoneracion ? { exoneracion } : {}),
    };
  });
  return {
    numero: req(n, 'NumeroLinea'),
    ...some('cabys', txt(n, 'CodigoCABYS')),
    ...some('partidaArancelaria', txt(n, 'PartidaArancelaria')),
    codigosComerciales: kids(n, 'CodigoComercial').map((c) => req(c, 'Codigo')),
    ...some('cantidad', txt(n, 'Cantidad')),
    ...some('unidadMedida', txt(n, 'UnidadMedida')),
    ...some('unidadMedidaComercial', txt(n, 'UnidadMedidaComercial')),
    detalle: req(n, 'Detalle'),
    ...some('precioUnitario', txt(n, 'PrecioUnitario')),
    surtido: kids(kid(n, 'DetalleSurtido'), 'LineaDetalleSurtido').map(readComponente),
    montoTotal: req(n, 'MontoTotal'),
    descuentos: kids(n, 'Descuento').map((d) => ({
      monto: req(d, 'MontoDescuento'),
      ...some('codigo', txt(d, 'CodigoDescuento')),
      ...some('codigoOtro', txt(d, 'CodigoDescuentoOTRO')),
      ...some('naturaleza', txt(d, 'NaturalezaDescuento')),
    })),
    subTotal: req(n, 'SubTotal'),
    impuestos,
    ...some('impuestoNeto', txt(n, 'ImpuestoNeto')),
    montoTotalLinea: req(n, 'MontoTotalLinea'),
  };
}

function readResumen(n: Node | undefined): Resumen {
  const moneda = kid(n, 'CodigoTipoMoneda');
  return {
    codigoMoneda: txt(moneda, 'CodigoMoneda') ?? 'CRC',
    ...some('tipoCambio', txt(moneda, 'TipoCambio')),
    totales: SUMMARY_TOTALS.flatMap((name) => {
      const monto = txt(n, name);
      return monto === undefined ? [] : [{ nombre: name, monto }];
    }),
    desglose: kids(n, 'TotalDesgloseImpuesto').map((d) => ({
      codigo: req(d, 'Codigo'),
      ...some('codigoTarifa', txt(d, 'CodigoTarifaIVA')),
      monto: req(d, 'TotalMontoImpuesto'),
    })),
    ...some('totalImpuesto', txt(n, 'TotalImpuesto')),
    ...some('totalOtrosCargos', txt(n, 'TotalOtrosCargos')),
    ...some('totalIVADevuelto', txt(n, 'TotalIVADevuelto')),
    totalComprobante: req(n, 'TotalComprobante'),
    mediosPago: kids(n, 'MedioPago').map((m) => ({
      tipo: req(m, 'TipoMedioPago'),
      ...some('otros', txt(m, 'MedioPagoOtros')),
      ...some('total', txt(m, 'TotalMedioPago')),
    })),
  };
}

function readReferencia(n: Node): Referencia {
  return {
    tipoDoc: req(n, 'TipoDocIR'),
    ...some('tipoDocOtro', txt(n, 'TipoDocRefOTRO')),
    ...some('numero', txt(n, 'Numero')),
    fechaEmision: req(n, 'FechaEmisionIR'),
    ...some('codigo', txt(n, 'Codigo')),
    ...some('codigoOtro', txt(n, 'CodigoReferenciaOTRO')),
    ...some('razon', txt(n, 'Razon')),
  };
}

/** The view of a signed comprobante; throws HaciendaXmlError('malformed_xml') for anything else. */
export function readComprobanteView(xml: string): ComprobanteView {
  const parsed = parseXml(xml);
  if ('error' in parsed) throw new HaciendaXmlError('malformed_xml', `not well-formed XML: ${parsed.error}`);
  const root = toNode(parsed.doc.documentElement as unknown as DomNode);
  const kind = COMPROBANTE_KINDS[root.name]?.sigla;
  if (!kind) throw new HaciendaXmlError('malformed_xml', `${root.name} is not a v4.4 comprobante`);
  const clave = req(root, 'Clave');
  if (!/^\d{50}$/.test(clave))
    throw new HaciendaXmlError('malformed_xml', 'the document has no 50-digit Clave');
  const receptor = readParty(kid(root, 'Receptor'));
  return {
    kind,
    clave,
    consecutivo: req(root, 'NumeroConsecutivo'),
    fechaEmision: req(root, 'FechaEmision'),
    ...some('codigoActividadEmisor', txt(root, 'CodigoActividadEmisor')),
    ...some('codigoActividadReceptor', txt(root, 'CodigoActividadReceptor')),
    emisor: readParty(kid(root, 'Emisor')) ?? { nombre: '', correos: [] },
    ...(receptor ? { receptor } : {}),
    ...some('condicionVenta', txt(root, 'CondicionVenta')),
    ...some('condicionVentaOtros', txt(root, 'CondicionVentaOtros')),
    ...some('plazoCredito', txt(root, 'PlazoCredito')),
    lineas: kids(kid(root, 'DetalleServicio'), 'LineaDetalle').map(readLinea),
    otrosCargos: kids(root, 'OtrosCargos').map((c) => ({
      tipoDocumento: req(c, 'TipoDocumentoOC'),
      detalle: req(c, 'Detalle'),
      ...some('porcentaje', txt(c, 'PorcentajeOC')),
      ...some('nombreTercero', txt(c, 'NombreTercero')),
      montoCargo: req(c, 'MontoCargo'),
    })),
    resumen: readResumen(kid(root, 'ResumenFactura')),
    referencias: kids(root, 'InformacionReferencia').map(readReferencia),
    otros: kids(kid(root, 'Otros'), 'OtroTexto').map((o) => o.text),
  };
}
