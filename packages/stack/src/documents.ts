// Documents as a client writes them for the sandbox's demo issuer: one 10 000 colones service line with
// 13 % IVA, dated now in Costa Rica time, for each kind the contract accepts (invoice, credit note, ticket).
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
