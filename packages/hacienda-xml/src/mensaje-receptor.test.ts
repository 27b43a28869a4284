import { HaciendaXmlError } from './errors';
import {
  type ReceivedForAnswer,
  buildMensajeReceptor,
  parseMensajeReceptor,
  planMensajeReceptor,
} from './mensaje-receptor';
import { openP12 } from './signing-key';
import { makeTestP12 } from './testing/test-certificate';
import { checkTools, xmlsecErrors, xsdErrors } from './testing/tools';
import { verifySignedXml } from './xades-verify';

const tools = checkTools(['xmllint', 'xmlsec1']);
const { p12, pin } = makeTestP12({ subjectSerial: 'CPJ-3-101-779527', commonName: 'PIXDEA & ASOCIADOS' });
const key = openP12(p12, pin);

const RECEIVED: ReceivedForAnswer = {
  clave: '50626052600310295087500100001010000000033159073080',
  emisorNumero: '3102950875',
  totalComprobante: '11300',
  totalImpuesto: '1300',
};

function reasons(result: ReturnType<typeof planMensajeReceptor>): string[] {
  return result.ok ? [] : result.issues.map((i) => `${i.path}: ${i.reason}`);
}

describe('MensajeReceptor', () => {
  it.each([
    [1, { condicionImpuesto: '01', codigoActividad: '620100' }, '00100001050000000001'],
    [
      2,
      { detalleMensaje: 'Faltó una caja', condicionImpuesto: '02', montoTotalImpuestoAcreditar: '650' },
      '00100001060000000001',
    ],
    [3, { detalleMensaje: 'Mercadería no recibida' }, '00100001070000000001'],
  ] as const)(
    'when answering with Mensaje %s, then the signed message passes the XSD and xmlsec1 and parses back',
    (mensaje, extra, consecutivo) => {
      const plan = planMensajeReceptor(RECEIVED, { mensaje, ...extra });
      if (!plan.ok) throw new Error(reasons(plan).join('; '));
      const xml = buildMensajeReceptor(
        { ...plan.value, numeroCedulaReceptor: '3101779527', numeroConsecutivoReceptor: consecutivo },
        key,
      );
      const back = parseMensajeReceptor(xml);
      expect(back).toMatchObject({
        clave: RECEIVED.clave,
        mensaje,
        numeroCedulaEmisor: '3102950875',
        totalFactura: '11300.00000',
        montoTotalImpuesto: '1300.00000',
        numeroConsecutivoReceptor: consecutivo,
      });
      if (mensaje === 1) expect(back.montoTotalImpuestoAcreditar).toBe('1300.00000');
      if (mensaje === 2) expect(back.montoTotalImpuestoAcreditar).toBe('650.00000');
      if (mensaje === 3) expect(back.condicionImpuesto).toBeUndefined();
      expect(verifySignedXml(xml, { requirePolicy: true }).valid).toBe(true);
      if (!tools.ok) return;
      expect(xsdErrors(xml, 'MensajeReceptor_V4.4.xsd')).toBe('');
      expect(xmlsecErrors(xml)).toBe('');
    },
  );

  it('when the answer does not fit the document or the condición, then every issue is named', () => {
    expect(reasons(planMensajeReceptor(RECEIVED, { mensaje: 4 }))).toEqual([
      'mensaje: must be 1 (aceptado), 2 (parcial) or 3 (rechazado)',
    ]);
    expect(reasons(planMensajeReceptor(RECEIVED, { mensaje: 1 }))).toEqual([
      'condicionImpuesto: is required to accept a document with tax (1300.00000): 01..05 (Nota 18)',
    ]);
    expect(reasons(planMensajeReceptor(RECEIVED, { mensaje: 3 }))).toEqual([
      'detalleMensaje: is required for a partial acceptance or a rejection',
    ]);
    expect(
      reasons(planMensajeReceptor(RECEIVED, { mensaje: 3, detalleMensaje: 'x', condicionImpuesto: '01' })),
    ).toEqual(['condicionImpuesto: must be left out of a rejection (mensaje 3)']);
    expect(
      reasons(
        planMensajeReceptor(RECEIVED, {
          mensaje: 1,
          condicionImpuesto: '01',
          montoTotalImpuestoAcreditar: 5,
        }),
      ),
    ).toEqual(["montoTotalImpuestoAcreditar: must equal the document's tax 1300.00000 for condición 01"]);
    expect(
      reasons(
        planMensajeReceptor(RECEIVED, {
          mensaje: 2,
          detalleMensaje: 'x',
          condicionImpuesto: '02',
          montoTotalImpuestoAcreditar: '1300',
        }),
      ),
    ).toHaveLength(1);
    expect(
      reasons(
        planMensajeReceptor(RECEIVED, {
          mensaje: 1,
          condicionImpuesto: '04',
          montoTotalImpuestoAcreditar: '1',
        }),
      ),
    ).toHaveLength(1);
    expect(
      reasons(
        planMensajeReceptor(RECEIVED, {
          mensaje: 1,
          condicionImpuesto: '05',
          montoTotalImpuestoAcreditar: '1300.5',
        }),
      ),
    ).toEqual(["montoTotalImpuestoAcreditar: must not exceed the document's tax 1300.00000"]);
    expect(
      reasons(
        planMensajeReceptor(RECEIVED, {
          mensaje: 1,
          condicionImpuesto: '04',
          montoTotalDeGastoAplicable: '99999',
        }),
      ),
    ).toEqual(["montoTotalDeGastoAplicable: must not exceed the document's total 11300.00000"]);
    expect(
      reasons(planMensajeReceptor(RECEIVED, { mensaje: 1, condicionImpuesto: '09', codigoActividad: '12' }))
        .length,
    ).toBe(2);
  });

  it('when accepting with condición 04 or a document without tax, then the amounts follow the document', () => {
    const p = planMensajeReceptor(RECEIVED, { mensaje: 1, condicionImpuesto: '04' });
    expect(p.ok && p.value).toMatchObject({ montoTotalDeGastoAplicable: '11300.00000' });
    expect(p.ok && p.value.montoTotalImpuestoAcreditar).toBeUndefined();
    const untaxed = planMensajeReceptor(
      { ...RECEIVED, totalImpuesto: undefined },
      { mensaje: 1 },
      new Date('2026-06-02T15:04:05Z'),
    );
    expect(untaxed.ok && untaxed.value).toEqual({
      clave: RECEIVED.clave,
      numeroCedulaEmisor: '3102950875',
      // The confirmation's own date (the XSD: "Fecha de emision de la confirmación"), not the invoice's.
      fechaEmisionDoc: '2026-06-02T09:04:05-06:00',
      mensaje: 1,
      totalFactura: '11300.00000',
    });
  });

  it('when the consecutivo type does not match the message, then building refuses', () => {
    const plan = planMensajeReceptor(RECEIVED, { mensaje: 3, detalleMensaje: 'no' });
    if (!plan.ok) throw new Error('plan');
    expect(() =>
      buildMensajeReceptor(
        {
          ...plan.value,
          numeroCedulaReceptor: '3101779527',
          numeroConsecutivoReceptor: '00100001050000000001',
        },
        key,
      ),
    ).toThrow(/type 07/);
    expect(() => parseMensajeReceptor('<MensajeHacienda/>')).toThrow(HaciendaXmlError);
  });
});
