// Test-only builders ("mothers") for documents and issuers.
import type { DocumentImpuesto, DocumentLinea, DocumentRequest } from '@cr/contracts';
import type { Issuer } from '../issuer';

export const ISSUER: Issuer = {
  nombre: 'EMPRESA DE PRUEBA SOCIEDAD ANONIMA',
  tipoIdentificacion: '02',
  numeroIdentificacion: '3101123456',
  nombreComercial: 'PRUEBA & HIJOS <CR>',
  sucursal: 1,
  ubicacion: {
    provincia: '1',
    canton: '01',
    distrito: '01',
    barrio: 'Barrio Amón',
    otrasSenas: '200 m norte del parque',
  },
  telefono: '2222-3333',
  correoElectronico: 'facturas@prueba.cr',
};

/** A line whose client amounts are computed with the same formulas (2-decimal inputs). */
export function line(
  n: number,
  options: {
    cabys?: string;
    cantidad?: number;
    precio?: string;
    descuento?: string;
    codigoTarifa?: string;
    tarifa?: string;
    exoneracion?: { porcentaje: number; tipo?: string; articulo?: string; inciso?: number };
  } = {},
): DocumentLinea & { impuesto: DocumentImpuesto[] } {
  const cantidad = options.cantidad ?? 1;
  const precio = options.precio ?? '1000.00';
  const descuento = options.descuento ?? '0.00';
  const codigoTarifa = options.codigoTarifa ?? '08';
  const tarifa = options.tarifa ?? '13';
  const bruto = Math.round(cantidad * Number(precio) * 100000) / 100000;
  const neto = bruto - Number(descuento);
  const monto = codigoTarifa === '10' ? 0 : Math.round(neto * Number(tarifa) * 1000) / 100000;
  const exon = options.exoneracion
    ? Math.min(monto, Math.round(neto * options.exoneracion.porcentaje * 1000) / 100000)
    : 0;
  const impuestoNeto = Math.round((monto - exon) * 100000) / 100000;
  return {
    numeroLinea: n,
    codigo: options.cabys ?? '8314300000000',
    detalle: `Servicio de prueba ${n}`,
    cantidad,
    unidadMedida: 'Sp',
    precioUnitario: precio,
    subTotal: bruto.toFixed(5),
    descuento,
    montoTotal: neto.toFixed(5),
    impuestoNeto,
    montoTotalLinea: Math.round((neto + impuestoNeto) * 100000) / 100000,
    impuesto: [
      {
        codigo: '01',
        codigoTarifa: codigoTarifa as '08',
        tarifa,
        monto: monto.toFixed(5),
        ...(options.exoneracion
          ? {
              exoneracion: {
                tipoDocumento: (options.exoneracion.tipo ?? '04') as '04',
                numeroDocumento: 'AL-00460853-20',
                nombreInstitucion: '01' as const,
                fechaEmision: '2026-01-15T00:00:00',
                porcentajeExoneracion: options.exoneracion.porcentaje,
                ...(options.exoneracion.articulo ? { articulo: options.exoneracion.articulo } : {}),
                ...(options.exoneracion.inciso !== undefined ? { inciso: options.exoneracion.inciso } : {}),
              },
            }
          : {}),
      },
    ],
  };
}

export function invoice(overrides: Partial<DocumentRequest> = {}): DocumentRequest {
  return {
    emisor: ISSUER.numeroIdentificacion,
    numeroReferencia: 33,
    codigoActividad: '6201.0',
    tipoDoc: '1',
    folioType: 'INVOICE',
    fechaEmision: '2026-05-26T12:30:59-06:00',
    receptor: {
      nombre: 'Pixdea SA',
      identificacion: { tipo: '02', numero: '3101779527' },
      correoElectronico: 'xavier@pixdea.com',
    },
    detalleServicio: [line(1)],
    resumenFactura: { codigoTipoMoneda: { codigoMoneda: 'CRC' }, mediosPago: [{ tipoMedioPago: '01' }] },
    ...overrides,
  };
}

/** A reference to an accepted FE (the clave of the real sample). */
/** A credit note's reference: it annuls (código 01) an invoice for an error. */
export const NC_REFERENCE = {
  tipoDocumento: '01' as const,
  numero: '50626052600310295087500100001010000000033159073080',
  fechaEmision: '2026-05-26T12:30:59-06:00',
  codigo: '01' as const,
  razon: 'Factura erronea',
};

export const FE_REFERENCE = {
  tipoDocumento: '01' as const,
  numero: '50626052600310295087500100001010000000033159073080',
  fechaEmision: '2026-05-20T12:30:59-06:00',
  codigo: '04' as const,
  razon: 'Referencia a la factura original',
};

/** A debit note (ND) adding a charge to an FE. */
export function debitNote(overrides: Partial<DocumentRequest> = {}): DocumentRequest {
  return invoice({
    tipoDoc: '2',
    folioType: 'DEBIT_NOTE',
    informacionReferencia: { ...FE_REFERENCE, codigo: '10', razon: 'Intereses por pago tardio' },
    ...overrides,
  });
}

/** A purchase invoice (FEC) from a supplier who does not invoice; the issuer is the buyer. */
export function purchaseInvoice(overrides: Partial<DocumentRequest> = {}): DocumentRequest {
  const { receptor: _receptor, ...base } = invoice({ tipoDoc: '8' });
  return {
    ...base,
    proveedor: {
      nombre: 'Juan Perez Mora',
      identificacion: { tipo: '01', numero: '112340567' },
      ubicacion: {
        provincia: '2',
        canton: '01',
        distrito: '01',
        otrasSenas: 'Frente a la plaza de deportes',
      },
      correoElectronico: 'juan.perez@example.com',
    },
    detalleServicio: [line(1, { cabys: '0111100000100', codigoTarifa: '02', tarifa: '1' })],
    informacionReferencia: {
      tipoDocumento: '14',
      numero: 'REG-ESP-2026-001',
      fechaEmision: '2026-05-26T08:00:00-06:00',
      codigo: '04',
      razon: 'Compra a contribuyente de regimen especial agropecuario',
    },
    ...overrides,
  };
}

/** An export invoice (FEE): foreign receptor, USD, goods with their tariff heading at 0 %. */
export function exportInvoice(overrides: Partial<DocumentRequest> = {}): DocumentRequest {
  return invoice({
    tipoDoc: '9',
    receptor: {
      nombre: 'Acme Imports LLC',
      identificacion: { tipo: '05', numero: 'US123456789' },
      otrasSenasExtranjero: '100 Main Street, Miami FL 33101, USA',
      correoElectronico: 'ap@acme-imports.example',
    },
    detalleServicio: [
      {
        ...line(1, {
          cabys: '0111100000100',
          codigoTarifa: '01',
          tarifa: '0',
          precio: '2500.00',
          cantidad: 4,
        }),
        partidaArancelaria: '090111000000',
      },
      line(2, { codigoTarifa: '01', tarifa: '0' }),
    ],
    resumenFactura: {
      codigoTipoMoneda: { codigoMoneda: 'USD', tipoCambio: '507.12' },
      mediosPago: [{ tipoMedioPago: '04' }],
    },
    ...overrides,
  });
}

/** A payment receipt (REP): a payment against an FE sold on credit under art. 27 LIVA (condición 10). */
export function paymentReceipt(overrides: Partial<DocumentRequest> = {}): DocumentRequest {
  // Without CABYS and unit: the REP's line has neither (its XSD), so the request needs neither.
  const { codigo: _codigo, unidadMedida: _unidad, ...paid } = line(1, { precio: '500.00' });
  return invoice({
    tipoDoc: '10',
    folioType: 'PAYMENT_RECEIPT',
    condicionVenta: '11',
    detalleServicio: [{ ...paid, detalle: 'Pago parcial de la factura 33' }],
    resumenFactura: { codigoTipoMoneda: { codigoMoneda: 'CRC' }, mediosPago: [{ tipoMedioPago: '04' }] },
    informacionReferencia: [
      { ...FE_REFERENCE, codigo: '17', tipoDocumento: '01', razon: 'Pago a la factura a credito' },
    ],
    ...overrides,
  });
}

/**
 * A surtido line (ADR 0024): a gift basket (CABYS "surtido de productos alimenticios") of three products
 * with different CABYS codes, `cantidad` baskets. Per basket: 2 jams at 1500 less 300 (IVA 1 %), a cheese
 * at 6000 (IVA 13 %), 3 juices at 800 with selectivo 10 % and IVA 13 % on SubTotal + selectivo; so
 * PrecioUnitario 11 100 and, for 2 baskets, SubTotal 22 200, Impuesto 01 2 300.4 and 02 480.
 */
export function surtidoLine(n = 1, cantidad = 2): DocumentLinea {
  const per = { iva: 27 + 780 + 343.2, selectivo: 240 };
  const impuestoNeto = Math.round((per.iva + per.selectivo) * cantidad * 100000) / 100000;
  const subTotal = 11100 * cantidad;
  return {
    numeroLinea: n,
    codigo: '2399999002200',
    codigoComercial: [{ tipo: '03', codigo: '7441001234567' }],
    detalle: 'Canasta navideña',
    cantidad,
    unidadMedida: 'Unid',
    precioUnitario: '11100.00',
    subTotal: subTotal.toFixed(2),
    montoTotal: subTotal.toFixed(2),
    impuestoNeto,
    montoTotalLinea: Math.round((subTotal + impuestoNeto) * 100000) / 100000,
    detalleSurtido: [
      {
        codigo: '2149400000400',
        detalle: 'Mermelada de fresa 250 g',
        cantidad: 2,
        unidadMedida: 'Unid',
        precioUnitario: '1500.00',
        montoTotal: '3000.00',
        descuentos: [{ montoDescuento: '300.00', codigoDescuento: '07' }],
        subTotal: '2700.00',
        baseImponible: '2700.00',
        impuestos: [{ codigo: '01', codigoTarifa: '02', tarifa: '1', monto: '27.00' }],
      },
      {
        codigo: '2225102010100',
        codigoComercial: [{ tipo: '01', codigo: 'GOUDA-1K' }],
        detalle: 'Queso gouda',
        cantidad: 1,
        unidadMedida: 'Kg',
        precioUnitario: '6000.00',
        impuestos: [{ codigo: '01', codigoTarifa: '08', tarifa: '13', monto: '780.00' }],
      },
      {
        codigo: '2132100000100',
        detalle: 'Jugo de tomate 330 ml',
        cantidad: 3,
        unidadMedida: 'Unid',
        unidadMedidaComercial: 'lata',
        precioUnitario: '800.00',
        impuestos: [
          { codigo: '02', tarifa: '10', monto: '240.00' },
          { codigo: '01', codigoTarifa: '08', tarifa: '13', monto: '343.20' },
        ],
      },
    ],
  };
}
