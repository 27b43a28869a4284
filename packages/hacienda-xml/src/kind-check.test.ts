import type { DocumentRequest } from '@cr/contracts';
import * as examples from '@cr/contracts/src/openapi/examples';
import { checkDocument } from './document-check';
import { KIND_RULES } from './kind-rules';
import {
  FE_REFERENCE,
  ISSUER,
  NC_REFERENCE,
  debitNote,
  exportInvoice,
  invoice,
  line,
  paymentReceipt,
  purchaseInvoice,
} from './testing/mothers';

function issuesOf(doc: unknown) {
  const r = checkDocument(doc, { issuer: ISSUER, now: new Date('2026-05-27T00:00:00Z') });
  return r.ok ? [] : r.issues;
}

const fec = purchaseInvoice();
const proveedor = fec.proveedor!;

const BAD: Array<[string, unknown, string, RegExp]> = [
  [
    'a debit note has no reference',
    { ...debitNote(), informacionReferencia: undefined },
    'informacionReferencia',
    /required/,
  ],
  [
    'a debit note has eleven references',
    debitNote({ informacionReferencia: Array.from({ length: 11 }, () => FE_REFERENCE) }),
    'informacionReferencia',
    /10|maxItems|more than/,
  ],
  [
    'the second of two references has a bad clave',
    debitNote({ informacionReferencia: [FE_REFERENCE, { ...FE_REFERENCE, numero: '123' }] }),
    'informacionReferencia[1].numero',
    /clave/,
  ],
  [
    'a reference code does not exist',
    debitNote({ informacionReferencia: { ...FE_REFERENCE, codigo: '18' as never } }),
    'informacionReferencia.codigo',
    /allowed values|one of/,
  ],
  [
    'code 17 (pago a comprobante) is used in a debit note',
    debitNote({ informacionReferencia: { ...FE_REFERENCE, codigo: '17' } }),
    'informacionReferencia.codigo',
    /payment receipt/,
  ],
  [
    'folioType is unknown',
    debitNote({ folioType: 'RECEIPT' as never }),
    'folioType',
    /allowed values|one of/,
  ],
  [
    'a debit note carries another kind’s folioType',
    debitNote({ folioType: 'CREDIT_NOTE' }),
    'folioType',
    /not the type of a debit note: use INVOICE or DEBIT_NOTE/,
  ],
  [
    'an invoice carries a payment receipt’s folioType',
    invoice({ folioType: 'PAYMENT_RECEIPT' }),
    'folioType',
    /use INVOICE$/,
  ],
  ['tipoDoc is unknown', invoice({ tipoDoc: '5' as never }), 'tipoDoc', /allowed values|one of/],
  ['a purchase invoice has no proveedor', { ...fec, proveedor: undefined }, 'proveedor', /required/],
  ['a purchase invoice has a receptor', { ...fec, receptor: invoice().receptor }, 'receptor', /not allowed/],
  ['an invoice has a proveedor', invoice({ proveedor }), 'proveedor', /only allowed in a purchase invoice/],
  [
    'a national supplier has no ubicacion',
    purchaseInvoice({ proveedor: { ...proveedor, ubicacion: undefined } }),
    'proveedor.ubicacion',
    /required/,
  ],
  [
    'a foreign supplier has no foreign address',
    purchaseInvoice({
      proveedor: { nombre: 'Foreign Ltd', identificacion: { tipo: '05', numero: 'GB1' } },
      informacionReferencia: { ...FE_REFERENCE, tipoDocumento: '16', numero: 'X-1' },
    }),
    'proveedor.otrasSenasExtranjero',
    /required/,
  ],
  [
    'a foreign supplier has no reference of type 16',
    purchaseInvoice({
      proveedor: {
        nombre: 'Foreign Ltd',
        identificacion: { tipo: '05', numero: 'GB1' },
        otrasSenasExtranjero: 'London, UK',
      },
    }),
    'informacionReferencia',
    /16/,
  ],
  [
    'a non-taxpayer supplier sells on another condition than 13',
    purchaseInvoice({ proveedor: { nombre: 'Maria Solano', identificacion: { tipo: '06', numero: 'NC1' } } }),
    'proveedor.identificacion.tipo',
    /13/,
  ],
  [
    'a supplier cédula física has 8 digits',
    purchaseInvoice({ proveedor: { ...proveedor, identificacion: { tipo: '01', numero: '12345678' } } }),
    'proveedor.identificacion.numero',
    /9 digits/,
  ],
  [
    'a supplier province is 8',
    purchaseInvoice({ proveedor: { ...proveedor, ubicacion: { ...proveedor.ubicacion!, provincia: '8' } } }),
    'proveedor.ubicacion.provincia',
    /pattern|format/,
  ],
  [
    'an export invoice goes to a national receptor',
    exportInvoice({ receptor: invoice().receptor }),
    'receptor.identificacion.tipo',
    /05/,
  ],
  [
    'an export goods line has no tariff heading',
    exportInvoice({
      detalleServicio: [line(1, { cabys: '0111100000100', codigoTarifa: '01', tarifa: '0' })],
    }),
    'detalleServicio[0].partidaArancelaria',
    /required/,
  ],
  [
    'a tariff heading has 10 digits',
    exportInvoice({
      detalleServicio: [
        {
          ...line(1, { cabys: '0111100000100', codigoTarifa: '01', tarifa: '0' }),
          partidaArancelaria: '0901110000',
        },
      ],
    }),
    'detalleServicio[0].partidaArancelaria',
    /pattern|format/,
  ],
  [
    'exported goods carry 13 % IVA',
    exportInvoice({
      detalleServicio: [{ ...line(1, { cabys: '0111100000100' }), partidaArancelaria: '090111000000' }],
    }),
    'detalleServicio[0].impuesto[0].codigoTarifa',
    /no IVA/,
  ],
  [
    'an export invoice carries an exoneration',
    exportInvoice({ detalleServicio: [line(1, { exoneracion: { porcentaje: 13 } })] }),
    'detalleServicio[0].impuesto[0].exoneracion',
    /not allowed/,
  ],
  [
    'an export invoice line edits the base of a tax 07 (its line has no BaseImponible)',
    exportInvoice({
      detalleServicio: [
        { ...line(1), impuesto: [{ ...line(1).impuesto[0]!, codigo: '07' }], baseImponible: '600.00' },
      ],
    }),
    'detalleServicio[0].baseImponible',
    /cannot be edited in an export invoice/,
  ],
  [
    'a purchase invoice line carries the fuel tax (its XML has no DatosImpuestoEspecifico)',
    purchaseInvoice({ detalleServicio: [{ ...line(1), impuesto: [{ codigo: '03', monto: '10.00' }] }] }),
    'detalleServicio[0].impuesto[0].codigo',
    /tax code 03 cannot be used in a purchase invoice/,
  ],
  [
    'an export invoice line carries the tobacco tax',
    exportInvoice({ detalleServicio: [{ ...line(1), impuesto: [{ codigo: '06', monto: '10.00' }] }] }),
    'detalleServicio[0].impuesto[0].codigo',
    /tax code 06 cannot be used in an export invoice/,
  ],
  [
    'an invoice line has a tariff heading',
    invoice({ detalleServicio: [{ ...line(1), partidaArancelaria: '090111000000' }] }),
    'detalleServicio[0].partidaArancelaria',
    /not allowed/,
  ],
  [
    'a payment receipt is on condition 01',
    paymentReceipt({ condicionVenta: '01' }),
    'condicionVenta',
    /09, 11/,
  ],
  [
    'a payment receipt has no payment means',
    paymentReceipt({ resumenFactura: { codigoTipoMoneda: { codigoMoneda: 'CRC' }, mediosPago: [] } }),
    'resumenFactura.mediosPago',
    /required/,
  ],
  [
    'a payment receipt has a discount',
    paymentReceipt({ detalleServicio: [line(1, { descuento: '10.00' })] }),
    'detalleServicio[0].descuento',
    /not allowed/,
  ],
  [
    'a payment receipt has other charges',
    paymentReceipt({
      otrosCargos: [{ tipoDocumento: '06', detalle: 'Servicio', montoCargo: '1.00', porcentaje: '1' }],
    }),
    'otrosCargos',
    /not allowed/,
  ],
  [
    'a payment receipt has no reference',
    { ...paymentReceipt(), informacionReferencia: undefined },
    'informacionReferencia',
    /required/,
  ],
  ['a payment receipt has no receptor', paymentReceipt({ receptor: '' }), 'receptor', /required/],
  [
    'an invoice has an exoneration of type 11 and no reference',
    invoice({ detalleServicio: [line(1, { exoneracion: { porcentaje: 13, tipo: '11' } })] }),
    'informacionReferencia',
    /exoneration of tipoDocumento 11/,
  ],
  [
    'an invoice is on condition 13 (used goods of a non-taxpayer, purchase invoices only)',
    invoice({ condicionVenta: '13' }),
    'condicionVenta',
    /13 is not allowed in an invoice/,
  ],
  [
    'a ticket has no receptor field at all (the contract writes a missing receiver as "")',
    (() => {
      const { receptor: _omitted, ...rest } = invoice({ tipoDoc: '4' });
      return rest as DocumentRequest;
    })(),
    'receptor',
    /is required: "" for a ticket without receiver/,
  ],
  [
    'a ticket is on condition 13',
    invoice({ tipoDoc: '4', receptor: '', condicionVenta: '13' }),
    'condicionVenta',
    /13 is not allowed in a ticket/,
  ],
  [
    'a credit note goes to a foreign receptor (the service contract: types 01 to 04)',
    invoice({
      tipoDoc: '3',
      folioType: 'CREDIT_NOTE',
      informacionReferencia: NC_REFERENCE,
      receptor: { nombre: 'John Doe', identificacion: { tipo: '05', numero: 'P123' } },
    }),
    'receptor.identificacion.tipo',
    /not allowed in a credit note/,
  ],
];

describe('kind rules', () => {
  it('when a purchase invoice carries a specific tax, then it is not also told to add the data it may not send', () => {
    const doc = purchaseInvoice({
      detalleServicio: [{ ...line(1), impuesto: [{ codigo: '04', monto: '10.00' }] }],
    });
    expect(issuesOf(doc).filter((i) => i.path.includes('datosImpuestoEspecifico'))).toEqual([]);
  });

  it('when an export invoice line has tax 07 and no edited base, then the base is not mentioned', () => {
    const doc = exportInvoice({
      detalleServicio: [{ ...line(1), impuesto: [{ ...line(1).impuesto[0]!, codigo: '07' }] }],
    });
    expect(issuesOf(doc).filter((i) => i.path.endsWith('baseImponible'))).toEqual([]);
  });

  it.each(BAD)('when %s, then the issue names the path', (_name, doc, path, reason) => {
    const issues = issuesOf(doc);
    // A union (one reference or a list) reports each branch's complaint at the same path.
    const reasons = issues.filter((i) => i.path === path).map((i) => i.reason);
    expect({ issues, matched: reasons.some((r) => reason.test(r)) }).toMatchObject({ matched: true });
  });

  it.each([
    ['debit note', debitNote()],
    ['purchase invoice', purchaseInvoice()],
    ['export invoice', exportInvoice()],
    ['payment receipt', paymentReceipt()],
    ['debit note with folioType INVOICE (existing clients)', debitNote({ folioType: 'INVOICE' })],
    [
      'invoice with an exoneration of type 11 and its reference',
      invoice({
        detalleServicio: [line(1, { exoneracion: { porcentaje: 13, tipo: '11' } })],
        informacionReferencia: FE_REFERENCE,
      }),
    ],
  ] as Array<[string, DocumentRequest]>)('when a valid %s is checked, then it has no issue', (_n, doc) => {
    expect(issuesOf(doc)).toEqual([]);
  });

  it('when the kinds are listed, then each tipoDoc maps to its consecutivo type and folioType', () => {
    expect(Object.values(KIND_RULES).map((r) => [r.tipoDoc, r.tipo, r.root, r.folioType])).toEqual([
      ['1', '01', 'FacturaElectronica', 'INVOICE'],
      ['2', '02', 'NotaDebitoElectronica', 'DEBIT_NOTE'],
      ['3', '03', 'NotaCreditoElectronica', 'CREDIT_NOTE'],
      ['4', '04', 'TiqueteElectronico', 'INVOICE'],
      ['8', '08', 'FacturaElectronicaCompra', 'INVOICE'],
      ['9', '09', 'FacturaElectronicaExportacion', 'INVOICE'],
      ['10', '10', 'ReciboElectronicoPago', 'PAYMENT_RECEIPT'],
    ]);
  });
});

describe('the OpenAPI examples of each kind', () => {
  it.each(
    Object.entries({
      invoice: examples.documentRequestExample,
      debitNote: examples.debitNoteRequestExample,
      purchaseInvoice: examples.purchaseInvoiceRequestExample,
      exportInvoice: examples.exportInvoiceRequestExample,
      paymentReceipt: examples.paymentReceiptRequestExample,
    }),
  )('when the %s example is checked by the engine, then it has no issue', (_name, doc) => {
    const issuer = { ...ISSUER, numeroIdentificacion: doc.emisor };
    const r = checkDocument(doc, { issuer, now: new Date('2026-06-03T00:00:00Z') });
    expect(r.ok ? [] : r.issues).toEqual([]);
  });
});

describe('the CABYS code and unit of a line, by kind', () => {
  const { codigo: _c, unidadMedida: _u, ...bare } = line(1);

  it.each([
    ['invoice', invoice({ detalleServicio: [bare] })],
    ['debit note', debitNote({ detalleServicio: [bare] })],
    ['export invoice', exportInvoice({ detalleServicio: [bare] })],
  ] as Array<[string, DocumentRequest]>)(
    'when an %s line has neither, then both paths are named as required',
    (_kind, doc) => {
      const paths = issuesOf(doc).map((i) => `${i.path}: ${i.reason}`);
      expect(paths).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^detalleServicio\[0\]\.codigo: is required/),
          expect.stringMatching(/^detalleServicio\[0\]\.unidadMedida: is required/),
        ]),
      );
    },
  );

  it('when a payment receipt line has neither (its XSD line has no CABYS nor unit), then it has no issue', () => {
    const doc = paymentReceipt();
    expect(doc.detalleServicio[0]).not.toHaveProperty('codigo');
    expect(doc.detalleServicio[0]).not.toHaveProperty('unidadMedida');
    expect(issuesOf(doc)).toEqual([]);
  });

  it('when a payment receipt line still sends them, then it is accepted and they are not written', () => {
    const doc = paymentReceipt({
      detalleServicio: [
        { ...paymentReceipt().detalleServicio[0]!, codigo: '8314300000000', unidadMedida: 'Sp' },
      ],
    });
    expect(issuesOf(doc)).toEqual([]);
  });
});
