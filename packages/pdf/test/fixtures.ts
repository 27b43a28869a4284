// Signed comprobantes of every kind for the PDF tests, built by the document engine as the service builds
// them.
import type { DocumentComponenteSurtido, DocumentRequest } from '@cr/contracts';
import type { KindCode } from '../src';
import { buildSignedDocument, openP12 } from '@cr/hacienda-xml';
import { ISSUER, exportInvoice, invoice, line, surtidoLine } from '@cr/hacienda-xml/src/testing/mothers';
import { taxedLine } from '@cr/hacienda-xml/src/testing/tax-mothers';
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

/**
 * A surtido of the most components a line may carry (20), with long descriptions: one unit of each at
 * 100 × k colones, IVA 13 % (so 21 000 and 2 730 for the one unit sold).
 */
function twentyComponentLine(n: number): DocumentRequest['detalleServicio'][number] {
  const codes = ['2149400000400', '2225102010100', '2132100000100'];
  const components: DocumentComponenteSurtido[] = Array.from({ length: 20 }, (_, i) => {
    const k = i + 1;
    const precio = `${100 * k}.00`;
    return {
      codigo: codes[i % 3]!,
      detalle: `Componente ${k} del surtido de regalo empresarial, presentación surtida de temporada`,
      cantidad: 1,
      unidadMedida: 'Unid',
      precioUnitario: precio,
      impuestos: [{ codigo: '01', codigoTarifa: '08', tarifa: '13', monto: `${13 * k}.00` }],
    };
  });
  return {
    numeroLinea: n,
    codigo: '2399999002200',
    codigoComercial: [{ tipo: '03', codigo: '7441001299999' }],
    detalle: 'Caja de regalo empresarial',
    cantidad: 1,
    unidadMedida: 'Unid',
    precioUnitario: '21000.00',
    subTotal: '21000.00',
    montoTotal: '21000.00',
    impuestoNeto: 2730,
    montoTotalLinea: 23730,
    detalleSurtido: components,
  };
}

/** An FE with an ordinary line, the two-basket surtido of the engine's tests and a 20-component one. */
export function surtidoInvoiceXml(): string {
  return sign(
    fiveLineInvoice({
      numeroReferencia: 21,
      detalleServicio: [line(1), surtidoLine(2, 2), twentyComponentLine(3)],
    }),
  );
}

/** A medical consultation (4 %) and another service (13 %) paid by card: the 1 000 of IVA is returned. */
export function healthByCardXml(): string {
  return sign(
    fiveLineInvoice({
      numeroReferencia: 22,
      detalleServicio: [
        line(1, { cabys: '9310100000300', precio: '25000.00', codigoTarifa: '04', tarifa: '4' }),
        line(2, { precio: '1000.00' }),
      ],
      resumenFactura: { codigoTipoMoneda: { codigoMoneda: 'CRC' }, mediosPago: [{ tipoMedioPago: '02' }] },
    }),
  );
}

/** An export invoice whose goods line records its (uncharged) selectivo as MontoExportacion 2 500. */
export function exportWithSelectivoXml(): string {
  const l = taxedLine(1, {
    cabys: '2132100000100',
    cantidad: 10,
    precio: '2500.00',
    impuestos: [
      { codigo: '01', codigoTarifa: '01', tarifa: '0' },
      { codigo: '02', tarifa: '0' },
    ],
    extra: { partidaArancelaria: '220421000000' },
  });
  l.impuesto[1] = { ...l.impuesto[1]!, montoExportacion: '2500.00' };
  return sign(exportInvoice({ numeroReferencia: 23, detalleServicio: [l] }));
}

/** An FE whose line 1 carries a selectivo of 10 % (240,00) and IVA 13 % (343,20): 583,20 of taxes. */
export function twoTaxInvoiceXml(): string {
  return sign(
    fiveLineInvoice({
      numeroReferencia: 24,
      detalleServicio: [
        taxedLine(1, {
          cabys: '2132100000100',
          cantidad: 3,
          precio: '800.00',
          impuestos: [
            { codigo: '02', tarifa: '10' },
            { codigo: '01', codigoTarifa: '08', tarifa: '13' },
          ],
        }),
        line(2),
      ],
    }),
  );
}

/**
 * Lines whose summary rows have long labels: a tax 05 (Específico bebidas envasadas sin alcohol y jabones)
 * with IVA, a line at IVA tarifa 0 % sin derecho a crédito (11) and one whose IVA the issuer assumed
 * (TotalImpAsumEmisorFabrica).
 */
export function longLabelLines(): DocumentRequest['detalleServicio'] {
  return [
    taxedLine(1, {
      cabys: '2132100000100',
      cantidad: 24,
      precio: '650.00',
      impuestos: [
        {
          codigo: '05',
          datosImpuestoEspecifico: {
            cantidadUnidadMedida: '355',
            volumenUnidadConsumo: '250',
            impuestoUnidad: '21.36',
          },
        },
        { codigo: '01', codigoTarifa: '08', tarifa: '13' },
      ],
    }),
    taxedLine(2, { impuestos: [{ codigo: '01', codigoTarifa: '11', tarifa: '0' }] }),
    taxedLine(3, {
      cabys: '2132100000100',
      precio: '4000.00',
      ivaCobradoFabrica: '01',
      baseImponible: '3000.00',
      impuestoAsumidoEmisorFabrica: '390.00',
      impuestos: [{ codigo: '01', codigoTarifa: '08', tarifa: '13' }],
    }),
  ];
}

/** An FE with a line at each IVA rate code of 0 % an invoice may use (exenta, tarifa 0 %, sin crédito), and one at 13 %. */
export function zeroRatedInvoiceXml(): string {
  return sign(
    fiveLineInvoice({
      numeroReferencia: 29,
      detalleServicio: [
        line(1, { codigoTarifa: '10', tarifa: '0' }),
        line(2, { codigoTarifa: '01', tarifa: '0' }),
        line(3, { codigoTarifa: '11', tarifa: '0' }),
        line(4),
      ],
    }),
  );
}

export { line, sign };
