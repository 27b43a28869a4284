// The rules of REFERENCE §7 and §9.4 the sandbox applies beyond the schema and the arithmetic: a FechaEmision
// after the document arrives, the fields a code requires (PlazoCredito, the …Otros texts, TipoCambio 1 for
// colones) and a note's references (a clave where one is due, FechaEmisionIR within ten years, the receptor
// and the total of a credited document the sandbox accepted).
import type { DocumentRequest } from '@cr/contracts';
import { type SigningKey, buildSignedDocument, formatCostaRicaDateTime } from '@cr/hacienda-xml';
import { ISSUER, NC_REFERENCE, invoice, line } from '@cr/hacienda-xml/src/testing/mothers';
import { CODES } from '../src/verdict/findings';
import { tokenFor } from './documents';
import { type Harness, startHarness } from './sandbox-harness';
import { SIGNED_AT, issueKey, resign, submit } from './verdict-support';

const at = formatCostaRicaDateTime(SIGNED_AT);

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
});
