// Request bodies of POST /api/enviar/items for the five kinds the spec names, for the issuer the
// issuer-mother registers (3101123456, activity 6201.0), dated now in Costa Rica time.
import type { DocumentRequest } from '@cr/contracts';
import { line } from '@cr/hacienda-xml/src/testing/mothers';

export const EMISOR = '3101123456';

/** Now (minus a few seconds) written in Costa Rica time, as a client would. */
export function crNow(offsetMs = -5_000): string {
  const t = new Date(Date.now() + offsetMs - 6 * 3_600_000);
  return `${t.toISOString().slice(0, 19)}-06:00`;
}

export type DocumentKind = 'invoice' | 'exoneration' | 'creditNote' | 'ticket' | 'foreignTicket';

export const KINDS: DocumentKind[] = ['invoice', 'exoneration', 'creditNote', 'ticket', 'foreignTicket'];

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
        informacionReferencia: {
          tipoDocumento: '01',
          numero: `50601012600310112345600100001010000000001100000001`,
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
  }
}

/** The five kinds with a 5-line invoice for the benchmark. */
export function fiveLineInvoice(numeroReferencia: number): DocumentRequest {
  return documentBody('invoice', numeroReferencia, {
    detalleServicio: [1, 2, 3, 4, 5].map((n) => line(n, { cantidad: n, precio: `${n * 1000}.25` })),
  });
}
