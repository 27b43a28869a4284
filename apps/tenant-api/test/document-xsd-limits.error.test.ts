// Requests whose every field looked valid but whose XML failed the official XSD after the document was
// numbered and stored: amounts the arithmetic pushes past DecimalDineroType (9999999999999.99999), a
// Proporcion past decimal(10,5), characters the XML writer drops (under minLength), a currency the XSD does
// not enumerate, telephones below NumTelefono's minimum and canton/distrito 00. Each is now a 400
// {error, message} naming the field, with no document stored, on the real app and database.
import type { DocumentLinea, DocumentRequest } from '@cr/contracts';
import { taxedLine } from '@cr/hacienda-xml/src/testing/tax-mothers';
import { post } from './support/client';
import { documentBody } from './support/document-mother';
import { issuerBody } from './support/issuer-mother';
import { type TestApp, startTestApp } from './support/test-app';

jest.setTimeout(120_000);

let ctx: TestApp;
beforeAll(async () => {
  ctx = await startTestApp();
  expect((await post(ctx, 'acme', '/api/enviar/emisor', issuerBody())).status).toBe(200);
});
afterAll(() => ctx.close());

const countDocuments = async () =>
  Number((await ctx.db.query<{ n: string }>('SELECT count(*) AS n FROM documents')).rows[0]!.n);

const GOODS = '2132100000100';
const IVA13 = { codigo: '01', codigoTarifa: '08', tarifa: '13' } as const;
const big = (n: number) => taxedLine(n, { cabys: GOODS, precio: '9000000000000.00', impuestos: [IVA13] });
const { codigo: _c, unidadMedida: _u, ...paidLine } = big(1);
const alcohol = taxedLine(1, {
  cabys: GOODS,
  precio: '1800.00',
  impuestos: [
    {
      codigo: '04',
      datosImpuestoEspecifico: {
        cantidadUnidadMedida: '99999.99',
        porcentaje: '99.99',
        impuestoUnidad: '0.01',
      },
    },
    IVA13,
  ],
});
const invoice = documentBody('invoice', 1);
const fec = documentBody('purchaseInvoice', 1);
const withReceptor = (fields: Record<string, unknown>): Partial<DocumentRequest> => ({
  receptor: { ...(invoice.receptor as object), ...fields } as DocumentRequest['receptor'],
});
const withProveedor = (fields: Record<string, unknown>): Partial<DocumentRequest> => ({
  proveedor: { ...fec.proveedor!, ...fields },
});
const moneda = (codigoMoneda: string): Partial<DocumentRequest> => ({
  resumenFactura: {
    codigoTipoMoneda: { codigoMoneda, tipoCambio: '500.00' },
    mediosPago: [{ tipoMedioPago: '01' }],
  },
});

describe('POST /api/enviar/items with values the XSD cannot carry', () => {
  it.each<[string, DocumentRequest, string]>([
    [
      'one line of 9e12 at 13 % (MontoTotalLinea 10170000000000)',
      documentBody('invoice', 11, { detalleServicio: [big(1)] }),
      'detalleServicio[0].montoTotalLinea: the computed MontoTotalLinea 10170000000000.00000 exceeds 9999999999999.99999',
    ],
    [
      'two lines of 9e12',
      documentBody('invoice', 12, { detalleServicio: [big(1), big(2)] }),
      'resumenFactura.totalComprobante: the computed TotalComprobante 20340000000000.00000 exceeds',
    ],
    [
      'an other charge of 9999999999999.99999',
      documentBody('invoice', 13, {
        otrosCargos: [
          {
            tipoDocumento: '06',
            detalle: 'Servicio 10%',
            montoCargo: '9999999999999.99999',
            porcentaje: '10',
          },
        ],
      }),
      'resumenFactura.totalComprobante: the computed TotalComprobante',
    ],
    [
      'a purchase invoice (FEC) line of 9e12 at 13 %',
      documentBody('purchaseInvoice', 14, { detalleServicio: [big(1)] }),
      'detalleServicio[0].montoTotalLinea: the computed MontoTotalLinea 10170000000000.00000',
    ],
    [
      'a payment receipt (REP) line of 9e12 at 13 %',
      documentBody('paymentReceipt', 15, {
        detalleServicio: [{ ...paidLine, detalle: 'Pago de la factura 33' } as DocumentLinea],
      }),
      'detalleServicio[0].montoTotalLinea: the computed MontoTotalLinea 10170000000000.00000',
    ],
    [
      'an alcohol tax of cantidadUnidadMedida 99999.99 × porcentaje 99.99',
      documentBody('invoice', 16, { detalleServicio: [alcohol] }),
      'detalleServicio[0].impuesto[0].datosImpuestoEspecifico.proporcion: the computed Proporcion (cantidadUnidadMedida × porcentaje) 9998999.00010 exceeds 99999.99999',
    ],
    [
      'receptor.nombre "\\u0001\\u0001\\u0001"',
      documentBody('invoice', 17, withReceptor({ nombre: '\u0001\u0001\u0001' })),
      'receptor.nombre: must not contain control characters',
    ],
    [
      'receptor.nombre with a lone surrogate',
      documentBody('invoice', 18, withReceptor({ nombre: 'Pix\ud800dea' })),
      'receptor.nombre: must not contain control characters',
    ],
    [
      'codigoMoneda ZZZ',
      documentBody('invoice', 19, moneda('ZZZ')),
      'resumenFactura.codigoTipoMoneda.codigoMoneda: must be one of',
    ],
    [
      'codigoMoneda VES',
      documentBody('invoice', 20, moneda('VES')),
      'resumenFactura.codigoTipoMoneda.codigoMoneda: must be one of',
    ],
    [
      'codigoMoneda XXX',
      documentBody('invoice', 21, moneda('XXX')),
      'resumenFactura.codigoTipoMoneda.codigoMoneda: must be one of',
    ],
    [
      'receptor.telefono 000',
      documentBody('invoice', 22, withReceptor({ telefono: '000' })),
      'receptor.telefono: must match',
    ],
    [
      'receptor.telefono 00000000099',
      documentBody('invoice', 23, withReceptor({ telefono: '00000000099' })),
      'receptor.telefono: must match',
    ],
    [
      'a supplier canton 00',
      documentBody(
        'purchaseInvoice',
        24,
        withProveedor({ ubicacion: { ...fec.proveedor!.ubicacion!, canton: '00' } }),
      ),
      'proveedor.ubicacion.canton: must match',
    ],
    [
      'a supplier distrito 00',
      documentBody(
        'purchaseInvoice',
        25,
        withProveedor({ ubicacion: { ...fec.proveedor!.ubicacion!, distrito: '00' } }),
      ),
      'proveedor.ubicacion.distrito: must match',
    ],
    [
      'a purchase invoice supplier telefono of 7 digits (FEC NumTelefono ≥ 10000000)',
      documentBody('purchaseInvoice', 26, withProveedor({ telefono: '2222333' })),
      'proveedor.telefono: must be at least 10000000 (8 digits) in a purchase invoice',
    ],
  ])('when %s, then 400 naming the field and nothing stored', async (_name, body, message) => {
    const before = await countDocuments();

    const res = await post(ctx, 'acme', '/api/enviar/items', body);

    expect(res.status).toBe(400);
    expect(res.body.error).toBe('bad_request');
    expect(res.body.message).toContain(message);
    expect(await countDocuments()).toBe(before);
  });

  it('when the same kinds of body stay within the limits, then 200 (the refusals are not blanket)', async () => {
    const res = await post(ctx, 'acme', '/api/enviar/items', {
      ...documentBody('invoice', 30, withReceptor({ telefono: '0100', nombre: 'Pix\tdea 😀' })),
      ...moneda('USD'),
    });
    expect(res.status).toBe(200);
  });
});
