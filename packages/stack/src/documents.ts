// Documents as a client writes them for the sandbox's demo issuer: one 10 000 colones service line with
// 13 % IVA, dated now in Costa Rica time, for each kind the contract accepts (invoice, debit and credit
// note, ticket, purchase and export invoice, payment receipt).
// Plain JSON, as a client's file would be: the SDK and CLI tests send them through their own types.
import { formatCostaRicaDateTime } from '@cr/hacienda-xml';

export type DocumentRequest = Record<string, unknown>;

export const DEMO_EMISOR = '3101123456';

/** Now in Costa Rica time, a few seconds back so Hacienda never sees a date ahead of its clock. */
export function crNow(offsetMs = -5_000): string {
  return formatCostaRicaDateTime(new Date(Date.now() + offsetMs));
}

export function invoice(numeroReferencia: number): DocumentRequest {
  return {
    emisor: DEMO_EMISOR,
    numeroReferencia,
    codigoActividad: '6201.0',
    tipoDoc: '1',
    folioType: 'INVOICE',
    fechaEmision: crNow(),
    receptor: {
      nombre: 'Pixdea SA',
      identificacion: { tipo: '02', numero: '3101779527' },
      correoElectronico: 'facturas@pixdea.cr',
    },
    detalleServicio: [
      {
        numeroLinea: 1,
        codigo: '8314300000000',
        detalle: 'Desarrollo de software a la medida',
        cantidad: 1,
        unidadMedida: 'Sp',
        precioUnitario: '10000.00',
        subTotal: '10000.00',
        descuento: '0.00',
        montoTotal: '10000.00',
        impuestoNeto: 1300,
        montoTotalLinea: 11300,
        impuesto: [{ codigo: '01', codigoTarifa: '08', tarifa: '13', monto: '1300.00' }],
      },
    ],
    resumenFactura: { codigoTipoMoneda: { codigoMoneda: 'CRC' }, mediosPago: [{ tipoMedioPago: '01' }] },
  };
}

export function creditNote(numeroReferencia: number, invoiceClave: string): DocumentRequest {
  return {
    ...invoice(numeroReferencia),
    tipoDoc: '3',
    informacionReferencia: {
      tipoDocumento: '01',
      numero: invoiceClave,
      fechaEmision: crNow(-60_000),
      codigo: '01',
      razon: 'Anula la factura por error en el precio',
    },
  };
}

export function ticket(numeroReferencia: number): DocumentRequest {
  return { ...invoice(numeroReferencia), tipoDoc: '4', receptor: '' };
}

/** A debit note: interest on the invoice `invoiceClave`. */
export function debitNote(numeroReferencia: number, invoiceClave: string): DocumentRequest {
  return {
    ...creditNote(numeroReferencia, invoiceClave),
    tipoDoc: '2',
    folioType: 'DEBIT_NOTE',
    informacionReferencia: [
      {
        tipoDocumento: '01',
        numero: invoiceClave,
        fechaEmision: crNow(-60_000),
        codigo: '10',
        razon: 'Intereses moratorios',
      },
    ],
  };
}

/** A purchase invoice: the demo issuer buys a service from a person who does not invoice. */
export function purchaseInvoice(numeroReferencia: number): DocumentRequest {
  const { receptor: _buyer, ...rest } = invoice(numeroReferencia);
  return {
    ...rest,
    tipoDoc: '8',
    proveedor: {
      nombre: 'Juan Perez Mora',
      identificacion: { tipo: '01', numero: '112340567' },
      ubicacion: { provincia: '1', canton: '01', distrito: '01', otrasSenas: 'Frente al parque central' },
    },
    informacionReferencia: {
      tipoDocumento: '14',
      numero: 'REG-ESP-1',
      fechaEmision: crNow(-60_000),
      codigo: '04',
      razon: 'Compra a contribuyente de regimen especial',
    },
  };
}

/** An export invoice: the service to a foreign client, in USD, at 0 %. */
export function exportInvoice(numeroReferencia: number): DocumentRequest {
  const base = invoice(numeroReferencia);
  const line = (base.detalleServicio as Record<string, unknown>[])[0]!;
  return {
    ...base,
    tipoDoc: '9',
    receptor: {
      nombre: 'Acme Imports LLC',
      identificacion: { tipo: '05', numero: 'US123456789' },
      otrasSenasExtranjero: '100 Main Street, Miami FL 33101, USA',
    },
    detalleServicio: [
      {
        ...line,
        impuestoNeto: 0,
        montoTotalLinea: 10000,
        impuesto: [{ codigo: '01', codigoTarifa: '01', tarifa: '0', monto: '0.00' }],
      },
    ],
    resumenFactura: {
      codigoTipoMoneda: { codigoMoneda: 'USD', tipoCambio: '507.12' },
      mediosPago: [{ tipoMedioPago: '04' }],
    },
  };
}

/** A payment receipt: the invoice `invoiceClave`, sold on credit, paid. */
export function paymentReceipt(numeroReferencia: number, invoiceClave: string): DocumentRequest {
  return {
    ...invoice(numeroReferencia),
    tipoDoc: '10',
    folioType: 'PAYMENT_RECEIPT',
    condicionVenta: '11',
    resumenFactura: { codigoTipoMoneda: { codigoMoneda: 'CRC' }, mediosPago: [{ tipoMedioPago: '04' }] },
    informacionReferencia: {
      tipoDocumento: '01',
      numero: invoiceClave,
      fechaEmision: crNow(-60_000),
      codigo: '17',
      razon: 'Pago de la factura a credito',
    },
  };
}
