// Request bodies of POST /api/enviar/items for the five kinds the spec names and the other v4.4 kinds (ND,
// FEC, FEE, REP), for the issuer the issuer-mother registers (3101123456, activity 6201.0), dated now in
// Costa Rica time.
import type { DocumentRequest } from '@cr/contracts';
import {
  debitNote,
  exportInvoice,
  line,
  paymentReceipt,
  purchaseInvoice,
  surtidoLine,
} from '@cr/hacienda-xml/src/testing/mothers';

export const EMISOR = '3101123456';

/** Now (minus a few seconds) written in Costa Rica time, as a client would. */
export function crNow(offsetMs = -5_000): string {
  const t = new Date(Date.now() + offsetMs - 6 * 3_600_000);
  return `${t.toISOString().slice(0, 19)}-06:00`;
}

export type DocumentKind =
  | 'invoice'
  | 'exoneration'
  | 'creditNote'
  | 'ticket'
  | 'foreignTicket'
  | 'debitNote'
  | 'purchaseInvoice'
  | 'exportInvoice'
  | 'paymentReceipt'
  | 'surtido'
  | 'healthByCard';

export const KINDS: DocumentKind[] = [
  'invoice',
  'exoneration',
  'creditNote',
  'ticket',
  'foreignTicket',
  'debitNote',
  'purchaseInvoice',
  'exportInvoice',
  'paymentReceipt',
  'surtido',
  'healthByCard',
];

/** The folioType each kind's request carries (and its webhook event echoes). */
export const FOLIO_TYPE_OF: Record<DocumentKind, DocumentRequest['folioType']> = {
  invoice: 'INVOICE',
  exoneration: 'INVOICE',
  creditNote: 'CREDIT_NOTE',
  ticket: 'INVOICE',
  foreignTicket: 'INVOICE',
  debitNote: 'DEBIT_NOTE',
  purchaseInvoice: 'INVOICE',
  exportInvoice: 'INVOICE',
  paymentReceipt: 'PAYMENT_RECEIPT',
  surtido: 'INVOICE',
  healthByCard: 'INVOICE',
};

const REFERENCED_FE = '50601012600310112345600100001010000000001100000001';

export function documentBody(
  kind: DocumentKind,
  numeroReferencia: number,
  overrides: Partial<DocumentRequest> = {},
): DocumentRequest {
  const base: DocumentRequest = {
    emisor: EMISOR,
    numeroReferencia,
    codigoActividad: '6201.0',
    tipoDoc: '1',
    folioType: 'INVOICE',
    fechaEmision: crNow(),
    receptor: {
      nombre: 'Pixdea SA',
      identificacion: { tipo: '02', numero: '3101779527' },
      correoElectronico: 'xavier@pixdea.com',
    },
    detalleServicio: [line(1), line(2, { cantidad: 2, precio: '2500.50' })],
    resumenFactura: { codigoTipoMoneda: { codigoMoneda: 'CRC' }, mediosPago: [{ tipoMedioPago: '01' }] },
  };
  switch (kind) {
    case 'invoice':
      return { ...base, ...overrides };
    case 'exoneration':
      return { ...base, detalleServicio: [line(1, { exoneracion: { porcentaje: 13 } })], ...overrides };
    case 'creditNote':
      return {
        ...base,
        tipoDoc: '3',
        folioType: 'CREDIT_NOTE',
        informacionReferencia: {
          tipoDocumento: '01',
          numero: REFERENCED_FE,
          fechaEmision: crNow(-86_400_000),
          codigo: '01',
          razon: 'Anula la factura por error en el precio',
        },
        ...overrides,
      };
    case 'ticket':
      return { ...base, tipoDoc: '4', receptor: '', ...overrides };
    case 'foreignTicket':
      return {
        ...base,
        tipoDoc: '4',
        receptor: {
          nombre: 'John Smith',
          identificacion: { tipo: '05', numero: 'P12345678' },
          otrasSenasExtranjero: '42 Main Street, Springfield, USA',
        },
        ...overrides,
      };
    // The other kinds are the engine's mothers (same issuer, 3101123456), dated now.
    case 'debitNote':
      return debitNote({ fechaEmision: base.fechaEmision, numeroReferencia, ...overrides });
    case 'purchaseInvoice':
      return purchaseInvoice({ fechaEmision: base.fechaEmision, numeroReferencia, ...overrides });
    case 'exportInvoice':
      return exportInvoice({ fechaEmision: base.fechaEmision, numeroReferencia, ...overrides });
    case 'paymentReceipt':
      return paymentReceipt({ fechaEmision: base.fechaEmision, numeroReferencia, ...overrides });
    // Issue 12's last fields (ADR 0024): an invoice with a surtido line (two baskets of three products),
    // and a medical consultation paid by card, whose IVA is returned (TotalIVADevuelto).
    case 'surtido':
      return { ...base, detalleServicio: [surtidoLine(1, 2), line(2)], ...overrides };
    case 'healthByCard':
      return {
        ...base,
        detalleServicio: [
          line(1, { cabys: '9310100000300', precio: '25000.00', codigoTarifa: '04', tarifa: '4' }),
        ],
        resumenFactura: {
          codigoTipoMoneda: { codigoMoneda: 'CRC' },
          mediosPago: [{ tipoMedioPago: '02' }],
          totalIVADevuelto: '1000.00',
          totalComprobante: '25000.00',
        },
        ...overrides,
      };
  }
}

/**
 * An invoice to `receptor` whose first line (CABYS `codigo`) is exonerated by `autorizacion` (type 04, issued
 * on `fechaEmision` when given): Hacienda is asked to confirm it before the document is signed.
 */
export function exoneratedInvoice(
  numero: number,
  exoneration: { receptor: string; codigo: string; autorizacion: string; fechaEmision?: string },
) {
  const body = documentBody('exoneration', numero) as unknown as {
    receptor: { identificacion: { numero: string } };
    detalleServicio: Array<{ codigo: string; impuesto: Array<{ exoneracion: Record<string, unknown> }> }>;
  };
  body.receptor.identificacion.numero = exoneration.receptor;
  body.detalleServicio[0]!.codigo = exoneration.codigo;
  Object.assign(body.detalleServicio[0]!.impuesto[0]!.exoneracion, {
    tipoDocumento: '04',
    numeroDocumento: exoneration.autorizacion,
    ...(exoneration.fechaEmision ? { fechaEmision: exoneration.fechaEmision } : {}),
  });
  return body;
}

/** The five kinds with a 5-line invoice for the benchmark. */
export function fiveLineInvoice(numeroReferencia: number): DocumentRequest {
  return documentBody('invoice', numeroReferencia, {
    detalleServicio: [1, 2, 3, 4, 5].map((n) => line(n, { cantidad: n, precio: `${n * 1000}.25` })),
  });
}
