// The rules of REFERENCE §7 and §9.4 the sandbox applies beyond the schema and the arithmetic: a FechaEmision
// after the document arrives, the fields a code requires (PlazoCredito, the …OTRO texts of every code 99,
// MedioPago, DatosImpuestoEspecifico, TipoCambio 1 for colones), the codes only some kinds may carry, and a
// note's references (a clave where one is due, FechaEmisionIR within ten years, the receptor and the total of
// a credited document the sandbox accepted).
import type { DocumentRequest } from '@cr/contracts';
import { type SigningKey, buildSignedDocument, formatCostaRicaDateTime } from '@cr/hacienda-xml';
import {
  FE_REFERENCE,
  ISSUER,
  NC_REFERENCE,
  invoice,
  line,
  purchaseInvoice,
  surtidoLine,
} from '@cr/hacienda-xml/src/testing/mothers';
import { taxedLine } from '@cr/hacienda-xml/src/testing/tax-mothers';
import { CODES } from '../src/verdict/findings';
import { tokenFor } from './documents';
import { type Harness, startHarness } from './sandbox-harness';
import { SIGNED_AT, issueKey, resign, submit } from './verdict-support';

const at = formatCostaRicaDateTime(SIGNED_AT);
const IVA13 = { codigo: '01', codigoTarifa: '08', tarifa: '13' } as const;
const PIXDEA = '<Tipo>02</Tipo><Numero>3101779527</Numero>';
const SUPPLIER = '<Tipo>01</Tipo><Numero>112340567</Numero>';
/** Drops the first element `name` of a body, with its content. */
const without = (name: string) => (body: string) =>
  body.replace(new RegExp(`<${name}>[\\s\\S]*?</${name}>`), '');
/** Replaces every `from` of a body by `to`. */
const swap = (from: string, to: string) => (body: string) => body.split(from).join(to);

describe('verdict rules of the codes, the dates and the references', () => {
  let h: Harness;
  let auth: string;
  let key: SigningKey;
  let n = 300;

  const sign = (doc: DocumentRequest, now = SIGNED_AT) =>
    buildSignedDocument({ document: { ...doc, numeroReferencia: n++ }, issuer: ISSUER, key, now });
  const creditNote = (overrides: Partial<DocumentRequest>) =>
    invoice({
      tipoDoc: '3',
      folioType: 'CREDIT_NOTE',
      fechaEmision: at,
      informacionReferencia: NC_REFERENCE,
      ...overrides,
    });
  const verdict = async (xml: string) => {
    const { status, mensaje } = await submit(h, auth, xml);
    return { estado: status['ind-estado'], detalles: mensaje?.detalles ?? [] };
  };
  const rejectedFor = (codigo: number, text: RegExp) => ({
    estado: 'rechazado',
    detalles: expect.arrayContaining([
      expect.objectContaining({ codigo, mensaje: expect.stringMatching(text) }),
    ]),
  });

  beforeAll(async () => {
    h = await startHarness();
    auth = await tokenFor(h.app);
    key = await issueKey(h.app, ISSUER.numeroIdentificacion, ISSUER.nombre);
  }, 120_000);
  afterAll(() => h.close());

  it('when FechaEmision is sixty days after the document arrives, then it is rechazado for the date', async () => {
    const later = new Date(SIGNED_AT.getTime() + 60 * 86_400_000);
    const signed = sign(invoice({ fechaEmision: formatCostaRicaDateTime(later) }), later);
    expect(await verdict(signed.xml)).toEqual(rejectedFor(CODES.clave, /posterior a la recepción/));
  });

  it('when a sale on credit has no PlazoCredito, then it is rechazado naming it', async () => {
    const signed = sign(invoice({ fechaEmision: at, condicionVenta: '02', plazoCredito: 30 }));
    expect(signed.xml).toContain('<PlazoCredito>30</PlazoCredito>');
    const xml = resign(signed.xml, key, (body) => body.replace('<PlazoCredito>30</PlazoCredito>', ''));
    expect(await verdict(xml)).toEqual(rejectedFor(CODES.condicional, /PlazoCredito/));
  });

  it('when a payment means 99 has no MedioPagoOtros, then it is rechazado naming it', async () => {
    const doc = invoice({
      fechaEmision: at,
      resumenFactura: {
        codigoTipoMoneda: { codigoMoneda: 'CRC' },
        mediosPago: [{ tipoMedioPago: '99', medioPagoOtros: 'Cupones de regalo' }],
      },
    });
    const xml = resign(sign(doc).xml, key, (body) =>
      body.replace('<MedioPagoOtros>Cupones de regalo</MedioPagoOtros>', ''),
    );
    expect(await verdict(xml)).toEqual(rejectedFor(CODES.condicional, /MedioPagoOtros/));
  });

  it('when a document in colones carries a TipoCambio other than 1, then it is rechazado naming it', async () => {
    const signed = sign(invoice({ fechaEmision: at }));
    const written = /<TipoCambio>([^<]+)<\/TipoCambio>/.exec(signed.xml)![1]!;
    const xml = resign(signed.xml, key, (body) =>
      body.replace(`<TipoCambio>${written}</TipoCambio>`, '<TipoCambio>5.00000</TipoCambio>'),
    );
    expect(await verdict(xml)).toEqual(rejectedFor(CODES.condicional, /TipoCambio debe ser 1/));
  });

  it('when a credit note refers to an invoice by a number that is not a clave, then it is rechazado', async () => {
    const xml = resign(sign(creditNote({})).xml, key, (body) =>
      body.replace(`<Numero>${NC_REFERENCE.numero}</Numero>`, '<Numero>12345</Numero>'),
    );
    expect(await verdict(xml)).toEqual(rejectedFor(CODES.referencia, /clave de 50 dígitos/));
  });

  it('when a reference is dated more than ten years ago, then it is rechazado', async () => {
    const signed = sign(creditNote({}));
    const written = /<FechaEmisionIR>([^<]+)<\/FechaEmisionIR>/.exec(signed.xml)![1]!;
    const xml = resign(signed.xml, key, (body) =>
      body.replace(
        `<FechaEmisionIR>${written}</FechaEmisionIR>`,
        '<FechaEmisionIR>2014-01-01T00:00:00-06:00</FechaEmisionIR>',
      ),
    );
    expect(await verdict(xml)).toEqual(rejectedFor(CODES.referencia, /más de 10 años/));
  });

  it('when credit notes against an accepted invoice keep its receptor and total, then they are accepted; past its total or to another receptor, rechazado', async () => {
    const fe = sign(invoice({ fechaEmision: at, detalleServicio: [line(1, { cantidad: 2 })] })); // 2,260.00
    expect(await verdict(fe.xml)).toEqual({ estado: 'aceptado', detalles: [] });
    const against = { ...NC_REFERENCE, numero: fe.clave, fechaEmision: at };
    const half = creditNote({ informacionReferencia: against, detalleServicio: [line(1)] }); // 1,130.00
    expect(await verdict(sign(half).xml)).toEqual({ estado: 'aceptado', detalles: [] });
    const more = creditNote({
      informacionReferencia: against,
      detalleServicio: [line(1, { precio: '1000.01' })],
    });
    expect(await verdict(sign(more).xml)).toEqual(rejectedFor(CODES.referencia, /exceden su total/));
    const elsewhere = creditNote({
      informacionReferencia: against,
      detalleServicio: [line(1, { precio: '10.00' })],
      receptor: { nombre: 'Otra SA', identificacion: { tipo: '02', numero: '3101999999' } },
    });
    expect(await verdict(sign(elsewhere).xml)).toEqual(rejectedFor(CODES.referencia, /receptor distinto/));
    const rest = creditNote({ informacionReferencia: against, detalleServicio: [line(1)] });
    expect(await verdict(sign(rest).xml)).toEqual({ estado: 'aceptado', detalles: [] });
  });

  // Each document is right but for the edit, then re-signed, so only the edit is wrong.
  const fe = (overrides: Partial<DocumentRequest> = {}) => invoice({ fechaEmision: at, ...overrides });
  const fec = (overrides: Partial<DocumentRequest> = {}) =>
    purchaseInvoice({ fechaEmision: at, ...overrides });
  const edited = (doc: DocumentRequest, ...edits: Array<(body: string) => string>) =>
    resign(sign(doc).xml, key, (body) => edits.reduce((b, edit) => edit(b), body));
  const withTax99 = () =>
    fe({
      detalleServicio: [
        taxedLine(1, {
          impuestos: [
            { codigo: '99', codigoImpuestoOtro: 'Impuesto municipal de prueba', tarifa: '2' },
            IVA13,
          ],
        }),
      ],
    });
  const withDiscount99 = () =>
    fe({
      detalleServicio: [
        taxedLine(1, {
          descuentos: [
            {
              montoDescuento: '100.00',
              codigoDescuento: '99',
              codigoDescuentoOtro: 'Descuento especial',
              naturalezaDescuento: 'Apertura de tienda',
            },
          ],
          impuestos: [IVA13],
        }),
      ],
    });
  const exonerated = () => fe({ detalleServicio: [line(1, { exoneracion: { porcentaje: 13 } })] });
  const foreignReceptor = swap(PIXDEA, '<Tipo>05</Tipo><Numero>US123456789</Numero>');
  const condicion = (code: string) =>
    swap('<CondicionVenta>01</CondicionVenta>', `<CondicionVenta>${code}</CondicionVenta>`);

  it.each<[string, () => string, RegExp]>([
    [
      'a tax 99 has no CodigoImpuestoOTRO',
      () => edited(withTax99(), without('CodigoImpuestoOTRO')),
      /^Línea 1: CodigoImpuestoOTRO es obligatorio con Codigo 99$/,
    ],
    [
      'a reference of TipoDocIR 99 has no TipoDocRefOTRO',
      () =>
        edited(
          creditNote({
            informacionReferencia: {
              ...NC_REFERENCE,
              tipoDocumento: '99',
              tipoDocumentoOtro: 'Documento interno',
            },
          }),
          without('TipoDocRefOTRO'),
        ),
      /^InformacionReferencia 1: TipoDocRefOTRO es obligatorio con TipoDocIR 99$/,
    ],
    [
      'a reference of Codigo 99 has no CodigoReferenciaOTRO',
      () =>
        edited(
          creditNote({
            informacionReferencia: { ...NC_REFERENCE, codigo: '99', codigoOtro: 'Ajuste especial' },
          }),
          without('CodigoReferenciaOTRO'),
        ),
      /^InformacionReferencia 1: CodigoReferenciaOTRO es obligatorio con Codigo 99$/,
    ],
    [
      'a discount 99 has no CodigoDescuentoOTRO',
      () => edited(withDiscount99(), without('CodigoDescuentoOTRO')),
      /^Línea 1: CodigoDescuentoOTRO es obligatorio con CodigoDescuento 99$/,
    ],
    [
      'a discount 99 has no NaturalezaDescuento',
      () => edited(withDiscount99(), without('NaturalezaDescuento')),
      /^Línea 1: NaturalezaDescuento es obligatorio con CodigoDescuento 99$/,
    ],
    [
      'an exoneration of TipoDocumentoEX1 99 has no TipoDocumentoOTRO',
      () => edited(exonerated(), swap('<TipoDocumentoEX1>04<', '<TipoDocumentoEX1>99<')),
      /^Línea 1: TipoDocumentoOTRO es obligatorio con TipoDocumentoEX1 99$/,
    ],
    [
      'an exoneration of NombreInstitucion 99 has no NombreInstitucionOtros',
      () => edited(exonerated(), swap('<NombreInstitucion>01<', '<NombreInstitucion>99<')),
      /^Línea 1: NombreInstitucionOtros es obligatorio con NombreInstitucion 99$/,
    ],
    [
      'an other charge 99 has no TipoDocumentoOTROS',
      () =>
        edited(
          fe({
            otrosCargos: [
              { tipoDocumento: '99', detalle: 'Cargo por empaque', montoCargo: '100.00', porcentaje: '10' },
            ],
          }),
          without('TipoDocumentoOTROS'),
        ),
      /^OtrosCargos 1: TipoDocumentoOTROS es obligatorio con TipoDocumentoOC 99$/,
    ],
    [
      'a surtido component’s discount 99 has no DescuentoSurtidoOtros',
      () =>
        edited(
          fe({ detalleServicio: [surtidoLine(1, 2)] }),
          swap('<CodigoDescuentoSurtido>07<', '<CodigoDescuentoSurtido>99<'),
        ),
      /^Línea 1: DescuentoSurtidoOtros es obligatorio con CodigoDescuentoSurtido 99$/,
    ],
    // The line's and the summary's sums by code then differ too (−200, −487).
    [
      'a surtido component’s tax 99 has no CodigoImpuestoOTROSurtido',
      () =>
        edited(
          fe({ detalleServicio: [surtidoLine(1, 2)] }),
          swap('<CodigoImpuestoSurtido>02<', '<CodigoImpuestoSurtido>99<'),
        ),
      /^Línea 1: CodigoImpuestoOTROSurtido es obligatorio con CodigoImpuestoSurtido 99$/,
    ],
    [
      'a sale in cash has no MedioPago',
      () => edited(fe(), without('MedioPago')),
      /^MedioPago es obligatorio con CondicionVenta 01/,
    ],
    [
      'a fuel tax (03) has no DatosImpuestoEspecifico',
      () =>
        edited(
          fe({
            detalleServicio: [
              taxedLine(1, {
                cabys: '2132100000100',
                cantidad: 40,
                precio: '950.00',
                impuestos: [
                  {
                    codigo: '03',
                    datosImpuestoEspecifico: { cantidadUnidadMedida: '40', impuestoUnidad: '293.75' },
                  },
                ],
              }),
            ],
          }),
          without('DatosImpuestoEspecifico'),
        ),
      /^Línea 1: DatosImpuestoEspecifico es obligatorio con el código de impuesto 03$/,
    ],
    [
      'a purchase invoice’s supplier is foreign (05) and no reference is of TipoDocIR 16',
      () => edited(fec(), swap(SUPPLIER, '<Tipo>05</Tipo><Numero>US998877</Numero>')),
      /TipoDocIR 16/,
    ],
  ])('when %s, then it is rechazado for the field its code requires (−301)', async (_name, xml, text) => {
    expect(await verdict(xml())).toEqual(rejectedFor(CODES.condicional, text));
  });

  it.each<[string, () => string, RegExp]>([
    [
      'an invoice carries the transitional rate 06 (NC/ND only)',
      () =>
        edited(
          fe({ detalleServicio: [line(1, { codigoTarifa: '04', tarifa: '4' })] }),
          swap('<CodigoTarifaIVA>04<', '<CodigoTarifaIVA>06<'),
        ),
      /^Línea 1: CodigoTarifaIVA 06 .*notas de crédito y de débito/,
    ],
    [
      'an invoice sells on CondicionVenta 13 (FEC only)',
      () => edited(fe(), condicion('13')),
      /^CondicionVenta 13 no se permite en Factura Electrónica/,
    ],
    [
      'an invoice’s receptor is foreign (05) and the sale is not of mercancía no nacionalizada (12)',
      () => edited(fe(), foreignReceptor),
      /receptor .*05.*CondicionVenta 12/,
    ],
    [
      'an invoice’s receptor is a no contribuyente (06)',
      () => edited(fe(), swap(PIXDEA, '<Tipo>06</Tipo><Numero>112340567</Numero>')),
      /receptor .*06.*CondicionVenta 13/,
    ],
    [
      'a purchase invoice’s supplier is a no contribuyente (06) and the sale is not of used goods (13)',
      () => edited(fec(), swap(SUPPLIER, '<Tipo>06</Tipo><Numero>112340567</Numero>')),
      /emisor .*06.*CondicionVenta 13/,
    ],
    [
      'an invoice’s exoneration is of TipoDocumentoEX1 01 (NC/ND only)',
      () => edited(exonerated(), swap('<TipoDocumentoEX1>04<', '<TipoDocumentoEX1>01<')),
      /^Línea 1: TipoDocumentoEX1 01 .*notas de crédito y de débito/,
    ],
    [
      'an invoice refers with Codigo 12 (NC only)',
      () =>
        edited(
          fe({ informacionReferencia: FE_REFERENCE }),
          swap('<Codigo>04</Codigo><Razon>', '<Codigo>12</Codigo><Razon>'),
        ),
      /^InformacionReferencia 1: Codigo 12 .*nota de crédito/,
    ],
    [
      'an invoice refers to a TipoDocIR 16 (FEC only)',
      () => edited(fe({ informacionReferencia: FE_REFERENCE }), swap('<TipoDocIR>01<', '<TipoDocIR>16<')),
      /^InformacionReferencia 1: TipoDocIR 16 .*factura electrónica de compra/,
    ],
  ])('when %s, then it is rechazado for the code (−300)', async (_name, xml, text) => {
    expect(await verdict(xml())).toEqual(rejectedFor(CODES.codigo, text));
  });

  it.each<[string, () => string]>([
    [
      'an invoice to a foreign receptor (05) sells mercancía no nacionalizada (12)',
      () => edited(fe(), foreignReceptor, condicion('12')),
    ],
    ['a credit note goes to a foreign receptor (05)', () => edited(creditNote({}), foreignReceptor)],
    [
      'a credit note carries the transitional rate 06 with an exoneration of TipoDocumentoEX1 01',
      () =>
        sign(
          creditNote({
            detalleServicio: [
              line(1, { codigoTarifa: '06', tarifa: '4', exoneracion: { porcentaje: 4, tipo: '01' } }),
            ],
          }),
        ).xml,
    ],
    [
      'a credit note credits an exoneration granted after the sale (Codigo 12)',
      () => sign(creditNote({ informacionReferencia: { ...NC_REFERENCE, codigo: '12' } })).xml,
    ],
    [
      'a purchase invoice buys used goods from a no contribuyente (06) on CondicionVenta 13',
      () =>
        sign(
          fec({
            condicionVenta: '13',
            proveedor: { nombre: 'Juan Perez Mora', identificacion: { tipo: '06', numero: '112340567' } },
          }),
        ).xml,
    ],
    [
      'a purchase invoice buys from a foreign supplier (05) with a reference of TipoDocIR 16',
      () =>
        sign(
          fec({
            proveedor: {
              nombre: 'Foreign Farms Ltd',
              identificacion: { tipo: '05', numero: 'US998877' },
              otrasSenasExtranjero: '1 Farm Road, Iowa',
            },
            informacionReferencia: {
              tipoDocumento: '16',
              numero: 'INV-2026-0042',
              fechaEmision: at,
              codigo: '04',
              razon: 'Factura del proveedor no domiciliado',
            },
          }),
        ).xml,
    ],
    [
      'a sale on credit has no MedioPago',
      () =>
        sign(
          fe({
            condicionVenta: '02',
            plazoCredito: 30,
            resumenFactura: { codigoTipoMoneda: { codigoMoneda: 'CRC' }, mediosPago: [] },
          }),
        ).xml,
    ],
  ])('when %s, then it is aceptado: the rule allows it', async (_name, xml) => {
    expect(await verdict(xml())).toEqual({ estado: 'aceptado', detalles: [] });
  });
});
