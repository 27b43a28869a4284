// Inputs whose every field is valid but whose XML would not be: amounts the arithmetic makes larger than
// DecimalDineroType (decimal 18,5, at most 9999999999999.99999), a Proporcion past decimal(10,5), and the
// FEC/FEE telephones below their XSD's 10000000. Each is refused by checkDocument naming the field, and the
// largest values that do fit are accepted and pass the official XSD.
import type { DocumentLinea, DocumentRequest } from '@cr/contracts';
import { buildSignedDocument } from './build-document';
import { checkDocument } from './document-check';
import { openP12 } from './signing-key';
import {
  ISSUER,
  exportInvoice,
  invoice,
  paymentReceipt,
  purchaseInvoice,
  surtidoLine,
} from './testing/mothers';
import { taxedLine } from './testing/tax-mothers';
import { makeTestP12 } from './testing/test-certificate';
import { XSD_BY_TIPO, checkTools, xsdErrors } from './testing/tools';

const tools = checkTools(['xmllint']);
const { p12, pin } = makeTestP12();
const key = openP12(p12, pin);
const NOW = new Date('2026-05-26T18:31:00Z');
const GOODS = '2132100000100';
const IVA13 = { codigo: '01', codigoTarifa: '08', tarifa: '13' } as const;
const EXENTA = { codigo: '01', codigoTarifa: '10', tarifa: '0' } as const;
const TOO_LARGE = /^the computed .* exceeds 9999999999999\.99999, the largest the XSD allows$/;

const big = (n: number, impuesto: typeof IVA13 | typeof EXENTA = IVA13, precio = '9000000000000.00') =>
  taxedLine(n, { cabys: GOODS, precio, impuestos: [impuesto] });

function issuesOf(doc: DocumentRequest) {
  const r = checkDocument(doc, { issuer: ISSUER, now: NOW });
  return r.ok ? [] : r.issues;
}

function expectRefused(doc: DocumentRequest, path: string, reason: RegExp = TOO_LARGE): void {
  const issues = issuesOf(doc);
  expect(issues).toContainEqual({ path, reason: expect.stringMatching(reason) });
}

function expectXsdValid(doc: DocumentRequest, issuer = ISSUER): string {
  const signed = buildSignedDocument({ document: doc, issuer, key, now: NOW });
  if (tools.ok) expect(xsdErrors(signed.xml, XSD_BY_TIPO[signed.tipo]!)).toBe('');
  return signed.xml;
}

const { codigo: _c, unidadMedida: _u, ...paidLine } = big(1);

describe('computed amounts above DecimalDineroType', () => {
  it.each<[string, DocumentRequest, string[]]>([
    [
      'one line of 9e12 at 13 % (MontoTotalLinea 10170000000000)',
      invoice({ detalleServicio: [big(1)] }),
      ['detalleServicio[0].montoTotalLinea', 'resumenFactura.totalComprobante'],
    ],
    [
      'two exempt lines of 9e12 (TotalVenta 18000000000000)',
      invoice({ detalleServicio: [big(1, EXENTA), big(2, EXENTA)] }),
      ['resumenFactura.totalVenta', 'resumenFactura.totalExento', 'resumenFactura.totalComprobante'],
    ],
    [
      'an other charge of 9999999999999.99999 besides a line',
      invoice({
        otrosCargos: [
          {
            tipoDocumento: '06',
            detalle: 'Servicio 10%',
            montoCargo: '9999999999999.99999',
            porcentaje: '10',
          },
        ],
      }),
      ['resumenFactura.totalComprobante'],
    ],
    [
      'two other charges of 9e12 (TotalOtrosCargos 18000000000000)',
      invoice({
        otrosCargos: [
          { tipoDocumento: '06', detalle: 'Servicio 10%', montoCargo: '9000000000000', porcentaje: '10' },
          { tipoDocumento: '07', detalle: 'Timbre', montoCargo: '9000000000000', porcentaje: '10' },
        ],
      }),
      ['resumenFactura.totalOtrosCargos', 'resumenFactura.totalComprobante'],
    ],
    [
      'a purchase invoice (FEC) line of 9e12 at 13 %',
      purchaseInvoice({ detalleServicio: [big(1)] }),
      ['detalleServicio[0].montoTotalLinea', 'resumenFactura.totalComprobante'],
    ],
    [
      'a payment receipt (REP) line of 9e12 at 13 %',
      paymentReceipt({ detalleServicio: [{ ...paidLine, detalle: 'Pago de la factura 33' }] }),
      ['detalleServicio[0].montoTotalLinea', 'resumenFactura.totalComprobante'],
    ],
  ])('when %s, then each overflowing amount is refused by path', (_name, doc, paths) => {
    const issues = issuesOf(doc);
    for (const path of paths)
      expect(issues).toContainEqual({ path, reason: expect.stringMatching(TOO_LARGE) });
    // Nothing else is wrong with these documents: their client amounts come from the engine.
    expect(issues.every((i) => TOO_LARGE.test(i.reason))).toBe(true);
  });

  it('when a surtido component costs 2 × 9e12, then its montoTotal is refused by path', () => {
    const line = surtidoLine(1, 1);
    const [first, second, ...rest] = line.detalleSurtido!;
    const costly = { ...second!, cantidad: 2, precioUnitario: '9000000000000.00' };
    const doc = invoice({
      detalleServicio: [{ ...line, detalleSurtido: [first!, costly, ...rest] } as DocumentLinea],
    });
    expectRefused(doc, 'detalleServicio[0].detalleSurtido[1].montoTotal');
  });

  it('when every amount of an exempt line is exactly 9999999999999.99999, then it is accepted and valid', () => {
    const xml = expectXsdValid(invoice({ detalleServicio: [big(1, EXENTA, '9999999999999.99999')] }));
    expect(xml).toContain('<TotalComprobante>9999999999999.99999</TotalComprobante>');
  });
});

describe('Proporcion (decimal 10,5) of the alcohol tax', () => {
  const alcohol = (cantidadUnidadMedida: string, porcentaje: string) =>
    taxedLine(1, {
      cabys: GOODS,
      precio: '1800.00',
      impuestos: [
        {
          codigo: '04',
          datosImpuestoEspecifico: { cantidadUnidadMedida, porcentaje, impuestoUnidad: '0.01' },
        },
        IVA13,
      ],
    });

  it('when cantidadUnidadMedida × porcentaje is 9998999.0001, then refused naming proporcion', () => {
    expectRefused(
      invoice({ detalleServicio: [alcohol('99999.99', '99.99')] }),
      'detalleServicio[0].impuesto[0].datosImpuestoEspecifico.proporcion',
      /^the computed Proporcion .* 9998999\.00010 exceeds 99999\.99999, the largest the XSD allows$/,
    );
  });

  it('when it is 99999.99, then accepted and valid', () => {
    const xml = expectXsdValid(invoice({ detalleServicio: [alcohol('99999.99', '1')] }));
    expect(xml).toContain('<Proporcion>99999.99000</Proporcion>');
  });
});

describe('NumTelefono of FEC and FEE (at least 10000000)', () => {
  it('when a purchase invoice supplier has a 7-digit telefono, then refused naming proveedor.telefono', () => {
    const fec = purchaseInvoice();
    expectRefused(
      { ...fec, proveedor: { ...fec.proveedor!, telefono: '2222333' } },
      'proveedor.telefono',
      /^must be at least 10000000 \(8 digits\) in a purchase invoice/,
    );
  });

  it('when an export invoice receptor has a 3-digit telefono, then refused naming receptor.telefono', () => {
    const fee = exportInvoice();
    expectRefused(
      { ...fee, receptor: { ...(fee.receptor as object), telefono: '911' } as DocumentRequest['receptor'] },
      'receptor.telefono',
      /^must be at least 10000000/,
    );
  });

  it('when the issuer registered a 4-digit telephone, then an FEE omits it and stays valid; an FE keeps it', () => {
    const issuer = { ...ISSUER, telefono: '2222' };
    expect(expectXsdValid(exportInvoice(), issuer)).not.toContain('<Telefono>');
    expect(expectXsdValid(invoice(), issuer)).toContain('<NumTelefono>2222</NumTelefono>');
  });
});

describe('the issuer’s registered NombreComercial (XSD 3 to 80 characters, registration allows 1)', () => {
  it('when it has 2 characters, then the XML omits it and stays valid', () => {
    const xml = expectXsdValid(invoice(), { ...ISSUER, nombreComercial: 'AB' });
    expect(xml).not.toContain('<NombreComercial>');
  });
});
