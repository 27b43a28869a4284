import type { DocumentRequest } from '@cr/contracts';
import { buildSignedDocument } from './build-document';
import { openP12 } from './signing-key';
import {
  FE_REFERENCE,
  NC_REFERENCE,
  ISSUER,
  debitNote,
  exportInvoice,
  invoice,
  line,
  paymentReceipt,
  purchaseInvoice,
} from './testing/mothers';
import { makeTestP12 } from './testing/test-certificate';
import { XSD_BY_TIPO, checkTools, xmlsecErrors, xsdErrors } from './testing/tools';
import { checkReceivedArithmetic } from './received-arithmetic';
import { verifySignedXml } from './xades-verify';

const tools = checkTools(['xmllint', 'xmlsec1']);
const { p12, pin } = makeTestP12();
const key = openP12(p12, pin);
const NOW = new Date('2026-05-26T18:31:00Z');

const XSD = XSD_BY_TIPO;

function mediosFor(doc: DocumentRequest): DocumentRequest {
  return doc;
}

const CASES: Array<[string, DocumentRequest]> = [
  ['invoice (FE)', invoice()],
  [
    'credit note (NC)',
    invoice({
      tipoDoc: '3',
      informacionReferencia: NC_REFERENCE,
    }),
  ],
  ['ticket without receptor (TE)', invoice({ tipoDoc: '4', receptor: '' })],
  [
    'ticket with a foreign receptor (TE, 05)',
    invoice({
      tipoDoc: '4',
      receptor: {
        nombre: 'John Doe',
        identificacion: { tipo: '05', numero: 'P123456789' },
        otrasSenasExtranjero: 'Main St 1, Austin TX',
      },
    }),
  ],
  [
    'discounts',
    invoice({
      detalleServicio: [
        line(1, { cantidad: 3, precio: '150.25', descuento: '45.07' }),
        line(2, { descuento: '100.00' }),
      ],
    }),
  ],
  [
    'several tax rates',
    invoice({
      detalleServicio: [
        line(1),
        line(2, { codigoTarifa: '02', tarifa: '1', cabys: '2132100000100' }),
        line(3, { codigoTarifa: '04', tarifa: '4' }),
        line(4, { codigoTarifa: '09', tarifa: '0.5', cabys: '2132100000100' }),
      ],
    }),
  ],
  [
    'exempt and no-sujeto lines',
    invoice({
      detalleServicio: [
        line(1, { codigoTarifa: '10', tarifa: '0' }),
        line(2, { codigoTarifa: '11', tarifa: '0', cabys: '2132100000100' }),
        line(3, { codigoTarifa: '01', tarifa: '0' }),
      ],
    }),
  ],
  [
    'an other charge of type 99 with only the service contract fields (its detalle is TipoDocumentoOTROS)',
    invoice({
      otrosCargos: [
        { tipoDocumento: '99', detalle: 'Cargo de servicio', montoCargo: '100.00', porcentaje: '10' },
      ],
    }),
  ],
  [
    'other charges',
    invoice({
      otrosCargos: [
        { tipoDocumento: '06', detalle: 'Impuesto de servicio 10%', montoCargo: '100.00', porcentaje: '10' },
        {
          tipoDocumento: '99',
          detalle: 'Cargo & otro',
          montoCargo: '5.50',
          porcentaje: '0',
          tipoDocumentoOtros: 'Empaque especial',
        },
      ],
      resumenFactura: {
        codigoTipoMoneda: { codigoMoneda: 'CRC' },
        mediosPago: [{ tipoMedioPago: '01' }],
        totalOtrosCargos: '105.50',
      },
    }),
  ],
  [
    'USD with exchange rate',
    invoice({
      resumenFactura: {
        codigoTipoMoneda: { codigoMoneda: 'USD', tipoCambio: '455.14' },
        mediosPago: [{ tipoMedioPago: '04' }],
      },
    }),
  ],
  [
    'two payment means',
    invoice({
      resumenFactura: {
        codigoTipoMoneda: { codigoMoneda: 'CRC' },
        mediosPago: [
          { tipoMedioPago: '01', totalMedioPago: '500.00' },
          { tipoMedioPago: '02', totalMedioPago: '630.00' },
        ],
      },
    }),
  ],
  ['exoneration full', invoice({ detalleServicio: [line(1, { exoneracion: { porcentaje: 13 } })] })],
  [
    'exoneration partial',
    invoice({
      detalleServicio: [
        line(1, { exoneracion: { porcentaje: 6.5, tipo: '03', articulo: '11', inciso: 2 } }),
        line(2, { cabys: '2132100000100' }),
      ],
    }),
  ],
  ['debit note (ND)', debitNote()],
  [
    'debit note with three references, one of the 2026-04 codes (ND)',
    debitNote({
      informacionReferencia: [
        { ...FE_REFERENCE, codigo: '10', razon: 'Intereses moratorios' },
        { ...FE_REFERENCE, codigo: '14', razon: 'Corrige monto por error material' },
        {
          ...FE_REFERENCE,
          tipoDocumento: '99',
          tipoDocumentoOtro: 'Orden de compra',
          numero: 'OC-7781',
          codigo: '04',
          razon: 'Orden de compra del cliente',
        },
      ],
    }),
  ],
  [
    'debit note to a foreign receptor with a tariff heading (ND)',
    debitNote({
      receptor: {
        nombre: 'John Doe',
        identificacion: { tipo: '05', numero: 'P123456789' },
        otrasSenasExtranjero: 'Main St 1, Austin TX',
      },
      detalleServicio: [{ ...line(1, { cabys: '0111100000100' }), partidaArancelaria: '090111000000' }],
    }),
  ],
  ['purchase invoice (FEC) from a national supplier', purchaseInvoice()],
  [
    'purchase invoice (FEC) from a foreign supplier',
    purchaseInvoice({
      proveedor: {
        nombre: 'Foreign Consulting Ltd',
        identificacion: { tipo: '05', numero: 'GB987654321' },
        otrasSenasExtranjero: '221B Baker Street, London, UK',
        correoElectronico: 'billing@foreign.example',
      },
      detalleServicio: [line(1)],
      informacionReferencia: {
        tipoDocumento: '16',
        numero: 'INV-2026-0042',
        fechaEmision: '2026-05-25T10:00:00-06:00',
        codigo: '11',
        razon: 'Servicio de proveedor no domiciliado',
      },
    }),
  ],
  [
    'purchase invoice (FEC) of used goods from a non-taxpayer (06, condición 13)',
    purchaseInvoice({
      condicionVenta: '13',
      proveedor: {
        nombre: 'Maria Solano Vargas',
        identificacion: { tipo: '06', numero: 'NC1234567' },
      },
    }),
  ],
  ['export invoice (FEE) in USD', exportInvoice()],
  ['payment receipt (REP)', paymentReceipt()],
  [
    'payment receipt (REP) for services to the State, two references with the new TipoDocIR 20',
    paymentReceipt({
      condicionVenta: '09',
      informacionReferencia: [
        { ...FE_REFERENCE, codigo: '17', razon: 'Pago de servicios al Estado' },
        { ...FE_REFERENCE, tipoDocumento: '20', codigo: '04', razon: 'Recibo anterior de la misma factura' },
      ],
    }),
  ],
  [
    '1000 lines',
    invoice({
      detalleServicio: Array.from({ length: 1000 }, (_, i) =>
        line(i + 1, { cabys: i % 2 ? '2132100000100' : '8314300000000' }),
      ),
    }),
  ],
].map(([name, doc]) => [name as string, mediosFor(doc as DocumentRequest)]);

describe('golden documents', () => {
  it.each(CASES)('when %s is built and signed, then it validates with the XSD and verifies', (_name, doc) => {
    const signed = buildSignedDocument({ document: doc, issuer: ISSUER, key, now: NOW });
    const own = verifySignedXml(signed.xml);
    expect(own.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(own.valid).toBe(true);
    if (!tools.ok) return;
    expect(xsdErrors(signed.xml, XSD[signed.tipo]!)).toBe('');
    expect(xmlsecErrors(signed.xml)).toBe('');
  });
});

describe('the §9 arithmetic of the other kinds', () => {
  it.each(CASES.filter(([name]) => /\((ND|FEC|FEE|REP)\)|FEC|FEE|REP/.test(name)))(
    'when %s is read back, then its own values satisfy every identity (as the sandbox and the inbox judge)',
    (_name, doc) => {
      const signed = buildSignedDocument({ document: doc, issuer: ISSUER, key, now: NOW });
      expect(checkReceivedArithmetic(signed.xml)).toEqual([]);
    },
  );
});
