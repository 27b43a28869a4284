// Signed comprobantes of every kind for the PDF tests. FE, NC and TE come from the document engine as the
// service builds them; ND, FEC, FEE and REP reuse an engine-built body under their own root and
// namespace (the reader is schema-agnostic; their own builders belong to the engine).
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

const ROOTS: Record<KindCode, { root: string; ns: string }> = {
  FE: { root: 'FacturaElectronica', ns: 'facturaElectronica' },
  ND: { root: 'NotaDebitoElectronica', ns: 'notaDebitoElectronica' },
  NC: { root: 'NotaCreditoElectronica', ns: 'notaCreditoElectronica' },
  TE: { root: 'TiqueteElectronico', ns: 'tiqueteElectronico' },
  FEC: { root: 'FacturaElectronicaCompra', ns: 'facturaElectronicaCompra' },
  FEE: { root: 'FacturaElectronicaExportacion', ns: 'facturaElectronicaExportacion' },
  REP: { root: 'ReciboElectronicoPago', ns: 'reciboElectronicoPago' },
};

/** The engine-built credit note body under another kind's root (ND, FEC, FEE, REP). */
function asKind(xml: string, kind: KindCode): string {
  const { root, ns } = ROOTS[kind];
  return xml
    .replace(
      /<NotaCreditoElectronica xmlns="[^"]+">/,
      `<${root} xmlns="https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/${ns}">`,
    )
    .replace('</NotaCreditoElectronica>', `</${root}>`);
}

export function kindFixtures(): KindFixture[] {
  const fe = sign(fiveLineInvoice());
  const nc = sign(fiveLineInvoice({ tipoDoc: '3', numeroReferencia: 7, informacionReferencia: referencia }));
  const te = sign(fiveLineInvoice({ tipoDoc: '4', numeroReferencia: 8, receptor: '' }));
  return [
    { kind: 'FE', xml: fe, receptor: 'Compañía Ñandú Internacional S.A.' },
    { kind: 'NC', xml: nc, receptor: 'Compañía Ñandú Internacional S.A.' },
    { kind: 'TE', xml: te },
    { kind: 'ND', xml: asKind(nc, 'ND'), receptor: 'Compañía Ñandú Internacional S.A.' },
    { kind: 'FEC', xml: asKind(nc, 'FEC'), receptor: 'Compañía Ñandú Internacional S.A.' },
    { kind: 'FEE', xml: asKind(nc, 'FEE'), receptor: 'Compañía Ñandú Internacional S.A.' },
    { kind: 'REP', xml: asKind(nc, 'REP'), receptor: 'Compañía Ñandú Internacional S.A.' },
  ];
}

export { line, sign };
