// Golden documents for lines with several taxes and discounts, every tax code of Nota 8 and every IVA rate
// code: each one is built, signed, validated against the official XSD (xmllint) and verified (xmlsec1).
import { type DocumentRequest, openApiExamples } from '@cr/contracts';
import { buildSignedDocument } from './build-document';
import { checkReceivedArithmetic } from './received-arithmetic';
import { openP12 } from './signing-key';
import { ISSUER, NC_REFERENCE, invoice } from './testing/mothers';
import { taxedLine } from './testing/tax-mothers';
import { makeTestP12 } from './testing/test-certificate';
import { checkTools, xmlsecErrors, xsdErrors } from './testing/tools';
import { verifySignedXml } from './xades-verify';

const tools = checkTools(['xmllint', 'xmlsec1']);
const { p12, pin } = makeTestP12();
const key = openP12(p12, pin);
const NOW = new Date('2026-05-26T18:31:00Z');
const GOODS = '2132100000100';
const XSD: Record<string, string> = {
  '01': 'FacturaElectronica_V4.4.xsd',
  '03': 'NotaCreditoElectronica_V4.4.xsd',
  '04': 'TiqueteElectronico_V4.4.xsd',
};
const IVA13 = { codigo: '01', codigoTarifa: '08', tarifa: '13' } as const;
const EXONERACION = {
  tipoDocumento: '04',
  numeroDocumento: 'AL-00460853-20',
  nombreInstitucion: '01',
  fechaEmision: '2026-01-15T00:00:00',
  porcentajeExoneracion: 6.5,
} as const;

/** One line per tax code of Nota 8, each with IVA where the law adds it. */
const everyTaxCode = [
  taxedLine(1, {
    cabys: GOODS,
    cantidad: 3,
    precio: '2500.00',
    descuentos: [
      { montoDescuento: '500.00', codigoDescuento: '07' },
      { montoDescuento: '250.00', codigoDescuento: '04' },
    ],
    impuestos: [{ codigo: '02', tarifa: '10' }, IVA13],
  }),
  taxedLine(2, {
    cabys: GOODS,
    cantidad: 40,
    precio: '950.00',
    impuestos: [
      { codigo: '03', datosImpuestoEspecifico: { cantidadUnidadMedida: '40', impuestoUnidad: '293.75' } },
    ],
  }),
  taxedLine(3, {
    cabys: GOODS,
    cantidad: 6,
    precio: '1800.00',
    impuestos: [
      {
        codigo: '04',
        datosImpuestoEspecifico: { cantidadUnidadMedida: '0.75', porcentaje: '12.5', impuestoUnidad: '5.23' },
      },
      IVA13,
    ],
  }),
  taxedLine(4, {
    cabys: GOODS,
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
      IVA13,
    ],
  }),
  taxedLine(5, {
    cabys: GOODS,
    cantidad: 10,
    precio: '900.00',
    impuestos: [
      {
        codigo: '05',
        jabon: true,
        datosImpuestoEspecifico: {
          cantidadUnidadMedida: '1',
          volumenUnidadConsumo: '120',
          impuestoUnidad: '0.35',
        },
      },
      IVA13,
    ],
  }),
  taxedLine(6, {
    cabys: GOODS,
    cantidad: 5,
    precio: '2600.00',
    impuestos: [
      { codigo: '06', datosImpuestoEspecifico: { cantidadUnidadMedida: '20', impuestoUnidad: '24.11' } },
      IVA13,
    ],
  }),
  taxedLine(7, {
    cantidad: 2,
    precio: '10000.00',
    baseImponible: '6000.00',
    impuestos: [{ codigo: '07', codigoTarifa: '08', tarifa: '13' }],
  }),
  taxedLine(8, {
    cabys: GOODS,
    precio: '3500000.00',
    impuestos: [{ codigo: '08', factorCalculoIVA: '0.1304' }],
    extra: { numeroVINoSerie: ['1HGCM82633A004352', 'JH4KA7561PC008269'] },
  }),
  taxedLine(9, {
    cabys: GOODS,
    cantidad: 100,
    precio: '7200.00',
    impuestos: [{ codigo: '12', tarifa: '5' }, IVA13],
  }),
  taxedLine(10, {
    impuestos: [{ codigo: '99', codigoImpuestoOtro: 'Impuesto municipal de prueba', tarifa: '2' }, IVA13],
  }),
];

/** Every IVA rate code an invoice may use (05–07 are for notes). */
const everyTarifa = (['01', '02', '03', '04', '08', '09', '10', '11'] as const).map((c, i) =>
  taxedLine(i + 1, {
    cabys: i % 2 ? GOODS : '8314300000000',
    impuestos: [
      {
        codigo: '01',
        codigoTarifa: c,
        tarifa: { '01': '0', '02': '1', '03': '2', '04': '4', '08': '13', '09': '0.5', '10': '0', '11': '0' }[
          c
        ],
      },
    ],
  }),
);

const CASES: Array<[string, DocumentRequest]> = [
  [
    'the OpenAPI multi-tax example (client amounts as a client writes them)',
    openApiExamples.multiTaxRequestExample,
  ],
  ['FE with every tax code of Nota 8', invoice({ detalleServicio: everyTaxCode })],
  ['FE with every IVA rate code', invoice({ detalleServicio: everyTarifa })],
  [
    'FE with several discounts, a regalía, a discount 99 and an exonerated IVA beside a selectivo',
    invoice({
      detalleServicio: [
        taxedLine(1, {
          cabys: GOODS,
          cantidad: 12,
          precio: '1500.00',
          descuentos: [
            {
              montoDescuento: '1500.00',
              codigoDescuento: '01',
              naturalezaDescuento: 'Una unidad de regalía',
            },
            { montoDescuento: '300.00', codigoDescuento: '05' },
            {
              montoDescuento: '120.00',
              codigoDescuento: '99',
              codigoDescuentoOtro: 'Descuento por apertura',
              naturalezaDescuento: 'Apertura de tienda',
            },
          ],
          impuestos: [
            { codigo: '02', tarifa: '10' },
            { ...IVA13, exoneracion: EXONERACION },
          ],
        }),
        taxedLine(2, {
          cabys: GOODS,
          precio: '4000.00',
          ivaCobradoFabrica: '01',
          baseImponible: '3000.00',
          impuestoAsumidoEmisorFabrica: '390.00',
          impuestos: [IVA13],
          extra: {
            registroMedicamento: 'MS-4-A1-2020',
            formaFarmaceutica: 'A1',
            unidadMedidaComercial: 'caja',
          },
        }),
        taxedLine(3, {
          cabys: GOODS,
          precio: '4000.00',
          ivaCobradoFabrica: '02',
          impuestos: [{ codigo: '01', codigoTarifa: '10', tarifa: '0' }],
          extra: {
            codigoComercial: [
              { tipo: '01', codigo: 'SKU-1' },
              { tipo: '03', codigo: '7441001234567' },
            ],
          },
        }),
      ],
    }),
  ],
  [
    'NC with the transitional rates',
    invoice({
      tipoDoc: '3',
      detalleServicio: (['05', '06', '07'] as const).map((c, i) =>
        taxedLine(i + 1, {
          impuestos: [{ codigo: '01', codigoTarifa: c, tarifa: { '05': '0', '06': '4', '07': '8' }[c] }],
        }),
      ),
      informacionReferencia: NC_REFERENCE,
    }),
  ],
  [
    'TE with a selectivo and IVA, the tax given as a single object on another line',
    invoice({
      tipoDoc: '4',
      receptor: '',
      detalleServicio: [
        taxedLine(1, { cabys: GOODS, impuestos: [{ codigo: '02', tarifa: '30' }, IVA13] }),
        { ...taxedLine(2, { impuestos: [IVA13] }), impuesto: { ...IVA13, monto: '130.00' } },
      ],
    }),
  ],
];

describe('golden documents with several taxes per line', () => {
  it.each(CASES)('when %s is built and signed, then it validates with the XSD and verifies', (_name, doc) => {
    const signed = buildSignedDocument({ document: doc, issuer: ISSUER, key, now: NOW });
    const own = verifySignedXml(signed.xml);
    expect(own.findings.filter((f) => f.severity === 'error')).toEqual([]);
    // The XML's own values satisfy §9 as the sandbox and a receiver check it.
    expect(checkReceivedArithmetic(signed.xml)).toEqual([]);
    if (!tools.ok) return;
    expect(xsdErrors(signed.xml, XSD[signed.tipo]!)).toBe('');
    expect(xmlsecErrors(signed.xml)).toBe('');
  });

  it.each([
    ['Greek capital omega (U+03A9), as keyboards type it', '\u03A9'],
    ['the OHM SIGN (U+2126) of the XSD', '\u2126'],
  ])(
    "when a line is measured in ohms written as the %s, then the XML carries the XSD's U+2126",
    (_n, ohm) => {
      const doc = invoice({
        detalleServicio: [{ ...taxedLine(1, { impuestos: [IVA13] }), unidadMedida: ohm as never }],
      });
      const signed = buildSignedDocument({ document: doc, issuer: ISSUER, key, now: NOW });
      expect(signed.xml).toContain('<UnidadMedida>\u2126</UnidadMedida>');
      if (!tools.ok) return;
      expect(xsdErrors(signed.xml, XSD['01']!)).toBe('');
    },
  );

  it('when every tax code is on the invoice, then TotalDesgloseImpuesto has one entry per code and IVA rate', () => {
    const signed = buildSignedDocument({
      document: invoice({ detalleServicio: everyTaxCode }),
      issuer: ISSUER,
      key,
      now: NOW,
    });
    const desglose = [
      ...signed.xml.matchAll(
        /<TotalDesgloseImpuesto><Codigo>(\d+)<\/Codigo>(?:<CodigoTarifaIVA>(\d+)<\/CodigoTarifaIVA>)?/g,
      ),
    ].map((m) => (m[2] ? `${m[1]}/${m[2]}` : m[1]));
    expect(desglose.sort()).toEqual(['01/08', '02', '03', '04', '05', '06', '07/08', '08', '12', '99']);
  });
});
