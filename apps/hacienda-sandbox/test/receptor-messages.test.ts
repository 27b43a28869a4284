// MensajeReceptor in the sandbox (REFERENCE §6.2) and GET /comprobantes (§4.5): a supplier's FE to Pixdea,
// Pixdea's answers signed with sandbox-issued keys, through the real HTTP app and verdict pipeline.
import {
  type SigningKey,
  buildMensajeReceptor,
  buildSignedDocument,
  formatCostaRicaDateTime,
  parseMensajeHacienda,
  planMensajeReceptor,
  readMensajeHacienda,
} from '@cr/hacienda-xml';
import { ISSUER, invoice } from '@cr/hacienda-xml/src/testing/mothers';
import request from 'supertest';
import type { TransitionEvent } from '../src/processor';
import { CODES } from '../src/verdict/findings';
import { RECEPTOR_CODES } from '../src/verdict/receptor-verdict';
import { bodyFor, tokenFor } from './documents';
import { type Harness, startHarness } from './sandbox-harness';
import { issueKey } from './verdict-support';

const SUPPLIER_USER = 'cpj-3-101-123456@stag.comprobanteselectronicos.go.cr';
const RECEIVER_USER = 'cpj-3-101-779527@stag.comprobanteselectronicos.go.cr';
const RECEIVER_ID = '3101779527';
const SIGNED_AT = new Date();

function finalState(h: Harness, id: string): Promise<string> {
  return new Promise((resolve) => {
    const on = (e: TransitionEvent) => {
      if (e.clave !== id || !['aceptado', 'rechazado', 'error'].includes(e.estado)) return;
      h.processor.off('transition', on);
      resolve(e.estado);
    };
    h.processor.on('transition', on);
  });
}

const keyFor = (h: Harness, identificacion: string, nombre: string) =>
  issueKey(h.app, identificacion, nombre);

describe('receiver messages and GET /comprobantes', () => {
  let h: Harness;
  let supplierAuth: string;
  let receiverAuth: string;
  let receiverKey: SigningKey;
  let supplierKey: SigningKey;
  let fe: ReturnType<typeof buildSignedDocument>;

  function message(
    mensaje: 1 | 2 | 3,
    numero: number,
    options: { key?: SigningKey; clave?: string; withoutDetalle?: boolean } = {},
  ) {
    const plan = planMensajeReceptor(
      {
        clave: options.clave ?? fe.clave,
        emisorNumero: ISSUER.numeroIdentificacion,
        totalComprobante: fe.totals.totalComprobante,
        totalImpuesto: fe.totals.totalImpuesto,
      },
      { mensaje, condicionImpuesto: mensaje === 3 ? undefined : '01', detalleMensaje: 'Revisado' },
    );
    if (!plan.ok) throw new Error(JSON.stringify(plan.issues));
    const consecutivo = `0010000107${String(numero).padStart(10, '0')}`.replace(
      /^(\d{8})07/,
      `$1${{ 1: '05', 2: '06', 3: '07' }[mensaje]}`,
    );
    const { detalleMensaje, ...content } = plan.value;
    const xml = buildMensajeReceptor(
      {
        ...content,
        ...(options.withoutDetalle ? {} : { detalleMensaje }),
        numeroCedulaReceptor: RECEIVER_ID,
        numeroConsecutivoReceptor: consecutivo,
      },
      options.key ?? receiverKey,
      { now: SIGNED_AT },
    );
    return {
      consecutivo,
      id: `${plan.value.clave}-${consecutivo}`,
      body: {
        clave: plan.value.clave,
        fecha: formatCostaRicaDateTime(SIGNED_AT),
        emisor: { tipoIdentificacion: '02', numeroIdentificacion: ISSUER.numeroIdentificacion },
        receptor: { tipoIdentificacion: '02', numeroIdentificacion: RECEIVER_ID },
        consecutivoReceptor: consecutivo,
        comprobanteXml: Buffer.from(xml, 'utf8').toString('base64'),
      },
    };
  }

  async function answer(m: ReturnType<typeof message>) {
    const done = finalState(h, m.id);
    const res = await request(h.app)
      .post('/recepcion/v1/recepcion')
      .set('Authorization', receiverAuth)
      .send(m.body);
    expect(res.status).toBe(202);
    expect(res.headers.location).toMatch(new RegExp(`/recepcion/v1/recepcion/${m.id}$`));
    const estado = await done;
    const status = await request(h.app)
      .get(`/recepcion/v1/recepcion/${m.id}`)
      .set('Authorization', receiverAuth)
      .expect(200);
    const respuesta = Buffer.from(status.body['respuesta-xml'], 'base64').toString('utf8');
    return { estado, status: status.body, respuesta, mensaje: parseMensajeHacienda(respuesta) };
  }

  beforeAll(async () => {
    h = await startHarness();
    supplierAuth = await tokenFor(h.app, SUPPLIER_USER);
    receiverAuth = await tokenFor(h.app, RECEIVER_USER);
    supplierKey = await keyFor(h, ISSUER.numeroIdentificacion, ISSUER.nombre);
    receiverKey = await keyFor(h, RECEIVER_ID, 'Pixdea SA');
    fe = buildSignedDocument({
      document: invoice({ fechaEmision: formatCostaRicaDateTime(SIGNED_AT) }),
      issuer: ISSUER,
      key: supplierKey,
      now: SIGNED_AT,
    });
    const done = finalState(h, fe.clave);
    await request(h.app)
      .post('/recepcion/v1/recepcion')
      .set('Authorization', supplierAuth)
      .send(bodyFor(fe.xml))
      .expect(202);
    expect(await done).toBe('aceptado');
  }, 120_000);
  afterAll(() => h.close());

  it('when the receptor accepts, then aceptado with a signed MensajeHacienda about the document; a later answer is refused', async () => {
    const first = await answer(message(1, 1));
    expect(first.estado).toBe('aceptado');
    const { message: m, verification } = readMensajeHacienda(first.respuesta);
    expect(verification.valid).toBe(true);
    expect(m).toMatchObject({ clave: fe.clave, mensaje: 1, numeroCedulaEmisor: ISSUER.numeroIdentificacion });

    const second = await answer(message(3, 1));
    expect(second.estado).toBe('rechazado');
    expect(second.mensaje.detalles.map((d) => d.codigo)).toEqual([RECEPTOR_CODES.yaRespondido]);
  });

  // The document is already answered by now (−604 too): each case is about DetalleMensaje alone.
  it.each([
    ['a partial acceptance', 2],
    ['a rejection', 3],
  ] as const)(
    'when %s (Mensaje %i) has no DetalleMensaje, then it is rechazado for it (−301)',
    async (_name, mensaje) => {
      const { estado, mensaje: answered } = await answer(
        message(mensaje, 60 + mensaje, { withoutDetalle: true }),
      );
      expect(estado).toBe('rechazado');
      expect(answered.detalles).toEqual(
        expect.arrayContaining([
          {
            codigo: CODES.condicional,
            mensaje: `DetalleMensaje es obligatorio con Mensaje ${mensaje}`,
            fila: 0,
            columna: 0,
          },
        ]),
      );
    },
  );

  it('when an acceptance (Mensaje 1) has no DetalleMensaje, then that is no finding', async () => {
    const { mensaje } = await answer(message(1, 61, { withoutDetalle: true }));
    expect(mensaje.detalles.map((d) => d.codigo)).toEqual([RECEPTOR_CODES.yaRespondido]);
  });

  it('when the same message is sent twice, then the second POST is 400 "ya fue recibido"', async () => {
    const m = message(2, 7);
    await answer(m);
    const again = await request(h.app)
      .post('/recepcion/v1/recepcion')
      .set('Authorization', receiverAuth)
      .send(m.body);
    expect(again.status).toBe(400);
    expect(again.headers['x-error-cause']).toMatch(/ya fue recibido/);
  });

  it('when the message is signed by someone else or answers an unknown document, then it is rechazado with the reason', async () => {
    const wrongSigner = await answer(message(1, 2, { key: supplierKey }));
    expect(wrongSigner.mensaje.detalles.map((d) => d.codigo)).toContain(CODES.certificadoEmisor);
    const unknown = await answer(message(1, 3, { clave: fe.clave.replace(/\d{8}$/, '00000000') }));
    expect(unknown.mensaje.detalles.map((d) => d.codigo)).toEqual([RECEPTOR_CODES.referencia]);
  });

  it.each([
    [
      'a consecutivo of type 01',
      (b: Record<string, unknown>) => ({ ...b, consecutivoReceptor: '00100001010000000001' }),
      /consecutivoReceptor/,
    ],
    [
      'another clave in the body',
      (b: Record<string, unknown>) => ({ ...b, clave: fe.clave.replace(/^506/, '507') }),
      /no coincide/,
    ],
    ['no receptor', (b: Record<string, unknown>) => ({ ...b, receptor: undefined }), /receptor/],
    [
      'a DTD',
      (b: Record<string, unknown>) => ({
        ...b,
        comprobanteXml: Buffer.from(
          '<!DOCTYPE x [<!ENTITY a "aaaa">]><MensajeReceptor>&a;</MensajeReceptor>',
        ).toString('base64'),
      }),
      /DTD/,
    ],
    [
      'a comprobante instead of a MensajeReceptor',
      (b: Record<string, unknown>) => ({ ...b, comprobanteXml: Buffer.from(fe.xml).toString('base64') }),
      /MensajeReceptor/,
    ],
  ])(
    'when the POST carries %s, then 400 with X-Error-Cause and nothing stored',
    async (_name, edit, reason) => {
      const m = message(1, 40);
      const res = await request(h.app)
        .post('/recepcion/v1/recepcion')
        .set('Authorization', receiverAuth)
        .send(edit(m.body));
      expect(res.status).toBe(400);
      expect(res.headers['x-error-cause']).toMatch(reason);
      const stored = await h.db.query("SELECT 1 FROM documents WHERE clave LIKE '%-' || $1", [m.consecutivo]);
      expect(stored.rowCount).toBe(0);
    },
  );

  it('when the receptor lists and reads its documents, then it sees the FE with its XML, and others see nothing', async () => {
    const list = await request(h.app)
      .get('/recepcion/v1/comprobantes')
      .query({ receptor: `02${RECEIVER_ID.padStart(12, '0')}` })
      .set('Authorization', receiverAuth)
      .expect(200);
    expect(list.headers['content-range']).toBe('0-0/1');
    expect(list.headers['accept-range']).toBe('resource 50');
    expect(list.body).toEqual([
      {
        clave: fe.clave,
        fecha: fe.fechaEmision,
        emisor: {
          tipoIdentificacion: '02',
          numeroIdentificacion: ISSUER.numeroIdentificacion,
          nombre: ISSUER.nombre,
        },
        receptor: { tipoIdentificacion: '02', numeroIdentificacion: RECEIVER_ID, nombre: 'Pixdea SA' },
      },
    ]);
    const detail = await request(h.app)
      .get(`/recepcion/v1/comprobantes/${fe.clave}`)
      .set('Authorization', receiverAuth)
      .expect(200);
    expect(Buffer.from(detail.body.comprobanteXml, 'base64').toString('utf8')).toBe(fe.xml);
    expect(detail.body).toMatchObject({ notasCredito: [], notasDebito: [], 'ind-estado': 'aceptado' });

    const stranger = await tokenFor(h.app, 'cpj-3-101-000001@stag.comprobanteselectronicos.go.cr');
    const none = await request(h.app)
      .get('/recepcion/v1/comprobantes')
      .set('Authorization', stranger)
      .expect(200);
    expect(none.body).toEqual([]);
    await request(h.app)
      .get(`/recepcion/v1/comprobantes/${fe.clave}`)
      .set('Authorization', stranger)
      .expect(404);
    await request(h.app)
      .get('/recepcion/v1/comprobantes')
      .query({ receptor: 'x' })
      .set('Authorization', receiverAuth)
      .expect(400);
    await request(h.app).get('/recepcion/v1/comprobantes').expect(401);
  });
});
