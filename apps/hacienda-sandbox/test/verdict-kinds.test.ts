import type { DocumentRequest } from '@cr/contracts';
import {
  type SigningKey,
  buildSignedDocument,
  formatCostaRicaDateTime,
  verifySignedXml,
} from '@cr/hacienda-xml';
import {
  FE_REFERENCE,
  ISSUER,
  debitNote,
  exportInvoice,
  paymentReceipt,
  purchaseInvoice,
} from '@cr/hacienda-xml/src/testing/mothers';
import request from 'supertest';
import { CODES } from '../src/verdict/findings';
import { tokenFor } from './documents';
import { type Harness, startHarness } from './sandbox-harness';
import { SIGNED_AT, issueKey, resign, submit } from './verdict-support';

const at = formatCostaRicaDateTime(SIGNED_AT);
const KINDS: Array<[string, DocumentRequest]> = [
  [
    'a debit note (ND) with a 2026-04 reference code',
    debitNote({ fechaEmision: at, informacionReferencia: [{ ...FE_REFERENCE, codigo: '14' }] }),
  ],
  ['a purchase invoice (FEC)', purchaseInvoice({ fechaEmision: at })],
  ['an export invoice (FEE)', exportInvoice({ fechaEmision: at })],
  ['a payment receipt (REP)', paymentReceipt({ fechaEmision: at })],
];

describe('verdicts on the other v4.4 kinds', () => {
  let h: Harness;
  let auth: string;
  let key: SigningKey;
  let otherKey: SigningKey;
  let n = 100;

  const sign = (doc: DocumentRequest, with_ = key) =>
    buildSignedDocument({
      document: { ...doc, numeroReferencia: n++ },
      issuer: ISSUER,
      key: with_,
      now: SIGNED_AT,
    }).xml;

  beforeAll(async () => {
    h = await startHarness();
    auth = await tokenFor(h.app);
    const issue = (identificacion: string, nombre: string) => issueKey(h.app, identificacion, nombre);
    key = await issue(ISSUER.numeroIdentificacion, ISSUER.nombre);
    // The FEC's supplier (its XML Emisor) holding a key of its own: its signature is not the buyer's.
    otherKey = await issue('112340567', 'Juan Perez Mora');
  }, 120_000);
  afterAll(() => h.close());

  it.each(KINDS)('when %s is right, then it is aceptado with no finding', async (_name, doc) => {
    const { status, mensaje } = await submit(h, auth, sign(doc));
    expect({ estado: status['ind-estado'], detalles: mensaje?.detalles }).toEqual({
      estado: 'aceptado',
      detalles: [],
    });
    expect(mensaje).toMatchObject({ mensaje: 1, estadoMensaje: 'Aceptado' });
  });

  it.each(KINDS)(
    'when %s has a wrong TotalComprobante, then it is rechazado with that reason',
    async (_name, doc) => {
      const xml = resign(sign(doc), key, (body) =>
        body.replace(
          /<TotalComprobante>[^<]+<\/TotalComprobante>/,
          '<TotalComprobante>1.00000</TotalComprobante>',
        ),
      );
      const { status, mensaje } = await submit(h, auth, xml);
      expect(status['ind-estado']).toBe('rechazado');
      expect(mensaje?.detalles).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            codigo: CODES.calculoResumen,
            mensaje: expect.stringContaining('TotalComprobante'),
          }),
        ]),
      );
    },
  );

  it.each(KINDS)(
    'when %s is numbered as another kind, then it is rechazado for the consecutivo',
    async (_name, doc) => {
      const xml = resign(sign(doc), key, (body) => {
        const consecutivo = /<NumeroConsecutivo>(\d{20})<\/NumeroConsecutivo>/.exec(body)![1]!;
        const wrong = `${consecutivo.slice(0, 8)}01${consecutivo.slice(10)}`;
        return body.split(consecutivo).join(wrong);
      });
      const { mensaje } = await submit(h, auth, xml);
      expect(mensaje?.mensaje).toBe(3);
      expect(mensaje?.detalles).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            codigo: CODES.consecutivo,
            mensaje: expect.stringMatching(/tipo de documento 01/),
          }),
        ]),
      );
    },
  );

  it('when a purchase invoice is signed by the supplier instead of the buyer, then it is rechazado for the signer', async () => {
    const { mensaje } = await submit(h, auth, sign(purchaseInvoice({ fechaEmision: at }), otherKey));
    expect(mensaje?.mensaje).toBe(3);
    expect(mensaje?.detalles).toEqual([
      expect.objectContaining({
        codigo: CODES.certificadoEmisor,
        mensaje: expect.stringContaining(ISSUER.numeroIdentificacion),
      }),
    ]);
  });

  it('when a payment receipt uses a reference code that exists in no revision, then it is rechazado by the XSD', async () => {
    const xml = resign(sign(paymentReceipt({ fechaEmision: at })), key, (body) =>
      body.replace(/<Codigo>17<\/Codigo>/, '<Codigo>18</Codigo>'),
    );
    const { mensaje } = await submit(h, auth, xml);
    expect(mensaje?.mensaje).toBe(3);
    expect(mensaje?.detalles).toEqual([
      expect.objectContaining({ codigo: CODES.schema, mensaje: expect.stringContaining('Codigo') }),
    ]);
  });

  describe('the registry judges the taxpayer who issues and signs: the FEC’s buyer (its Receptor)', () => {
    const register = (identificacion: string, nombre: string, extra: Record<string, unknown> = {}) =>
      request(h.app)
        .post('/sandbox/contribuyentes')
        .send({
          identificacion,
          tipoIdentificacion: identificacion.length === 9 ? '01' : '02',
          nombre,
          actividades: [{ codigo: '6201.0', descripcion: 'PROGRAMACION' }],
          ...extra,
        })
        .expect(201);
    const rejectedFor = async (xml: string) => {
      const { status, respuesta, mensaje } = await submit(h, auth, xml);
      expect(status['ind-estado']).toBe('rechazado');
      expect(mensaje).toMatchObject({ mensaje: 3, estadoMensaje: 'Rechazado' });
      expect(verifySignedXml(respuesta!).valid).toBe(true);
      return mensaje!.detalles;
    };
    // Back to a registered, inscribed buyer (and an unregistered supplier) after each case.
    afterEach(async () => {
      await register(ISSUER.numeroIdentificacion, ISSUER.nombre);
      await register('112340567', 'Juan Perez Mora');
    });

    it('when the FEC’s buyer is registered and not inscribed, then it is rechazado naming the receptor', async () => {
      await register(ISSUER.numeroIdentificacion, ISSUER.nombre, { estado: 'No inscrito' });
      const detalles = await rejectedFor(sign(purchaseInvoice({ fechaEmision: at })));
      expect(detalles).toEqual([
        expect.objectContaining({
          codigo: CODES.emisor,
          mensaje: `El receptor que emite y firma la factura de compra (${ISSUER.numeroIdentificacion}) no está inscrito (estado: No inscrito)`,
        }),
      ]);
    });

    it('when the FEC’s CodigoActividadReceptor is not an activity of the buyer, then it is rechazado with −408', async () => {
      await register(ISSUER.numeroIdentificacion, ISSUER.nombre, {
        actividades: [{ codigo: '4711.0', descripcion: 'COMERCIO' }],
      });
      const detalles = await rejectedFor(sign(purchaseInvoice({ fechaEmision: at })));
      expect(detalles).toEqual([
        expect.objectContaining({
          codigo: CODES.actividad,
          mensaje: `La actividad económica 6201.0 no está registrada para el receptor que emite y firma la factura de compra (${ISSUER.numeroIdentificacion})`,
        }),
      ]);
    });

    it('when the FEC’s supplier (its Emisor) is registered and not inscribed, then it is still aceptado: the registry judges the buyer', async () => {
      await register('112340567', 'Juan Perez Mora', { estado: 'No inscrito' });
      const { status, mensaje } = await submit(h, auth, sign(purchaseInvoice({ fechaEmision: at })));
      expect({ estado: status['ind-estado'], detalles: mensaje?.detalles }).toEqual({
        estado: 'aceptado',
        detalles: [],
      });
    });

    it('when a debit note’s emisor is registered and not inscribed, then it is rechazado naming the emisor (as an FE)', async () => {
      await register(ISSUER.numeroIdentificacion, ISSUER.nombre, { estado: 'No inscrito' });
      const detalles = await rejectedFor(
        sign(debitNote({ fechaEmision: at, informacionReferencia: [{ ...FE_REFERENCE, codigo: '14' }] })),
      );
      expect(detalles).toEqual([
        expect.objectContaining({
          codigo: CODES.emisor,
          mensaje: `El emisor (${ISSUER.numeroIdentificacion}) no está inscrito (estado: No inscrito)`,
        }),
      ]);
    });
  });
});
