// Signed comprobantes of every kind for the PDF tests, built by the document engine as the service builds
// them.
import type { DocumentRequest } from '@cr/contracts';
import type { KindCode } from '../src';
import { buildSignedDocument, openP12 } from '@cr/hacienda-xml';
import { ISSUER, invoice, line } from '@cr/hacienda-xml/src/testing/mothers';
import { makeTestP12 } from '@cr/hacienda-xml/src/testing/test-certificate';

const { p12, pin } = makeTestP12();
const key = openP12(p12, pin);
const NOW = new Date('2026-05-26T18:31:00Z');

export const REFERENCED_CLAVE = '50626052600310112345600100001010000000033123456780';

const referencia = {
  tipoDocumento: '01',
  numero: REFERENCED_CLAVE,
  fechaEmision: '2026-05-20T10:00:00-06:00',
  codigo: '01',
  razon: 'Anulación por devolución del cliente',
} as DocumentRequest['informacionReferencia'];

function sign(doc: DocumentRequest): string {
  return buildSignedDocument({ document: doc, issuer: ISSUER, key, now: NOW, codigoSeguridad: '12345678' })
    .xml;
}

/** A five-line invoice with an accented receptor, a discount, an exoneration and two payment means. */
export function fiveLineInvoice(overrides: Partial<DocumentRequest> = {}): DocumentRequest {
  const lines = [
    line(1, { precio: '1234567.89' }),
    line(2, { cantidad: 2, precio: '350.50', descuento: '20.00' }),
    line(3, { precio: '1000.00', exoneracion: { porcentaje: 13 } }),
    line(4, { cantidad: 3, precio: '15.25', codigoTarifa: '04', tarifa: '4' }),
    line(5, { precio: '99.99' }),
  ];
  lines[0]!.detalle = 'Diseño de logotipo y señalización';
  return invoice({
    fechaEmision: '2026-05-26T12:30:59-06:00',
    receptor: {
      nombre: 'Compañía Ñandú Internacional S.A.',
      identificacion: { tipo: '02', numero: '3101779527' },
      correoElectronico: 'cuentas@nandu.cr',
    },
    detalleServicio: lines,
    resumenFactura: {
      codigoTipoMoneda: { codigoMoneda: 'CRC' },
      mediosPago: [{ tipoMedioPago: '06' }],
    },
    ...overrides,
  });
}

export interface KindFixture {
  kind: KindCode;
  xml: string;
  receptor?: string;
}

/** The five-line invoice's lines an export invoice or a payment receipt can carry (no exoneration, discount). */
function plainLines(): DocumentRequest['detalleServicio'] {
  const lines = fiveLineInvoice().detalleServicio.map((l, i) => line(i + 1, { precio: l.precioUnitario }));
  lines[0]!.detalle = 'Diseño de logotipo y señalización';
  return lines;
}

export function kindFixtures(): KindFixture[] {
  const fe = sign(fiveLineInvoice());
  const nc = sign(fiveLineInvoice({ tipoDoc: '3', numeroReferencia: 7, informacionReferencia: referencia }));
  const te = sign(fiveLineInvoice({ tipoDoc: '4', numeroReferencia: 8, receptor: '' }));
  const nd = sign(
    fiveLineInvoice({
      tipoDoc: '2',
      folioType: 'DEBIT_NOTE',
      numeroReferencia: 9,
      informacionReferencia: [{ ...referencia!, codigo: '10', razon: 'Intereses moratorios' } as never],
    }),
  );
  const { receptor: _buyer, ...purchase } = fiveLineInvoice({ tipoDoc: '8', numeroReferencia: 10 });
  const fec = sign({
    ...purchase,
    proveedor: {
      nombre: 'Agricultor Ñandú Mora',
      identificacion: { tipo: '01', numero: '112340567' },
      ubicacion: {
        provincia: '2',
        canton: '01',
        distrito: '01',
        otrasSenas: 'Frente a la plaza de deportes',
      },
    },
    informacionReferencia: {
      tipoDocumento: '14',
      numero: 'REG-ESP-2026-001',
      fechaEmision: '2026-05-20T10:00:00-06:00',
      codigo: '04',
      razon: 'Compra a contribuyente de régimen especial',
    },
  });
  const fee = sign(
    fiveLineInvoice({
      tipoDoc: '9',
      numeroReferencia: 11,
      receptor: {
        nombre: 'Ñandú Imports LLC',
        identificacion: { tipo: '05', numero: 'US123456789' },
        otrasSenasExtranjero: '100 Main Street, Miami FL 33101, USA',
      },
      detalleServicio: plainLines(),
    }),
  );
  const rep = sign(
    fiveLineInvoice({
      tipoDoc: '10',
      folioType: 'PAYMENT_RECEIPT',
      numeroReferencia: 12,
      condicionVenta: '11',
      detalleServicio: plainLines(),
      informacionReferencia: { ...referencia!, codigo: '17', razon: 'Pago de la factura a crédito' } as never,
    }),
  );
  return [
    { kind: 'FE', xml: fe, receptor: 'Compañía Ñandú Internacional S.A.' },
    { kind: 'NC', xml: nc, receptor: 'Compañía Ñandú Internacional S.A.' },
    { kind: 'TE', xml: te },
    { kind: 'ND', xml: nd, receptor: 'Compañía Ñandú Internacional S.A.' },
    { kind: 'FEC', xml: fec, receptor: ISSUER.nombre },
    { kind: 'FEE', xml: fee, receptor: 'Ñandú Imports LLC' },
    { kind: 'REP', xml: rep, receptor: 'Compañía Ñandú Internacional S.A.' },
  ];
}

export { line, sign };
