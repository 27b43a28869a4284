import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseMensajeHacienda } from '@cr/hacienda-xml';
import { requireResource } from '@cr/testkit';
import request from 'supertest';
import type { CallbackEvent, TransitionEvent } from '../src/processor';
import { bodyFor, readSample, sampleFiles, tokenFor } from './documents';
import { type Harness, startHarness } from './sandbox-harness';

interface Received {
  body: Record<string, unknown>;
  status: number;
}

/** A local callback receiver that answers the statuses given, in order, then 200. */
async function startReceiver(
  statuses: number[] = [],
): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let data = '';
    req.on('data', (c: Buffer) => {
      data += c.toString();
    });
    req.on('end', () => {
      const status = statuses.shift() ?? 200;
      received.push({ body: JSON.parse(data) as Record<string, unknown>, status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`, received, server };
}

function waitFor<T>(h: Harness, event: 'transition' | 'callback', match: (e: T) => boolean): Promise<T> {
  return new Promise((resolve) => {
    const on = (e: T) => {
      if (!match(e)) return;
      h.processor.off(event, on);
      resolve(e);
    };
    h.processor.on(event, on);
  });
}

describe('recepción happy path', () => {
  let h: Harness;
  let auth: string;
  const have = sampleFiles().length === 3;
  beforeAll(async () => {
    h = await startHarness({ env: { SANDBOX_TRUST_ANY_CA: 'true' } });
    auth = await tokenFor(h.app);
  });
  afterAll(() => h.close());

  it('when a real sample is submitted, then 202 + Location, recibido → procesando → aceptado, and the callback gets the status JSON', async () => {
    if (!requireResource('Hacienda samples', have)) return;
    const xml = readSample(sampleFiles().find((f) => f.startsWith('fe-')) as string);
    const receiver = await startReceiver();
    try {
      const body = bodyFor(xml, { callbackUrl: receiver.url });
      const clave = body.clave as string;
      const seen: string[] = [];
      const onTransition = (e: TransitionEvent) => e.clave === clave && seen.push(e.estado);
      h.processor.on('transition', onTransition);
      const delivered = waitFor<CallbackEvent>(h, 'callback', (e) => e.clave === clave);
      const res = await request(h.app).post('/recepcion/v1/recepcion').set('Authorization', auth).send(body);
      expect(res.status).toBe(202);
      expect(res.headers.location).toMatch(new RegExp(`/recepcion/v1/recepcion/${clave}$`));
      expect(res.headers['x-ratelimit-limit']).toBeDefined();
      await delivered;
      h.processor.off('transition', onTransition);
      expect(seen).toEqual(['recibido', 'procesando', 'aceptado']);

      const status = await request(h.app)
        .get(`/recepcion/v1/recepcion/${clave}`)
        .set('Authorization', auth)
        .expect(200);
      expect(status.body).toMatchObject({
        clave,
        fecha: body.fecha,
        'ind-estado': 'aceptado',
        callbackUrl: receiver.url,
      });
      expect(receiver.received).toHaveLength(1);
      expect(receiver.received[0]?.body).toEqual(status.body);
      const mensaje = parseMensajeHacienda(
        Buffer.from(status.body['respuesta-xml'], 'base64').toString('utf8'),
      );
      expect(mensaje).toMatchObject({
        clave,
        mensaje: 1,
        estadoMensaje: 'Aceptado',
        totalFactura: '1412.50000',
        montoTotalImpuesto: '162.50000',
      });
      expect(mensaje.numeroCedulaEmisor).toBe('3102950875');

      const list = await request(h.app).get('/sandbox/comprobantes').expect(200);
      expect(list.body.comprobantes.find((c: { clave: string }) => c.clave === clave)).toMatchObject({
        estado: 'aceptado',
        callback: { intentos: 1, estado: 'delivered' },
      });
    } finally {
      receiver.server.close();
    }
  });

  it('when the callback receiver fails, then the sandbox retries 3 times and stops', async () => {
    if (!requireResource('Hacienda samples', have)) return;
    const xml = readSample(sampleFiles().find((f) => f.startsWith('NC-')) as string);
    const receiver = await startReceiver([500, 503, 404, 500, 500]);
    try {
      const body = bodyFor(xml, { callbackUrl: receiver.url });
      const last = waitFor<CallbackEvent>(h, 'callback', (e) => e.clave === body.clave && e.attempt === 4);
      await request(h.app).post('/recepcion/v1/recepcion').set('Authorization', auth).send(body).expect(202);
      const event = await last;
      expect(event).toMatchObject({ delivered: false, status: 500 });
      expect(receiver.received.map((r) => r.status)).toEqual([500, 503, 404, 500]);
      expect(receiver.received.every((r) => r.body['ind-estado'] === 'aceptado')).toBe(true);
    } finally {
      receiver.server.close();
    }
  });

  it('when the next verdict is forced to error or never, then the document ends in error without an answer, or stays procesando', async () => {
    if (!requireResource('Hacienda samples', have)) return;
    const te = readSample(sampleFiles().find((f) => f.startsWith('Comprobante_')) as string);
    await request(h.app).post('/sandbox/veredicto').send({ outcome: 'error' }).expect(201);
    const body = bodyFor(te);
    const done = waitFor<TransitionEvent>(
      h,
      'transition',
      (e) => e.clave === body.clave && e.estado === 'error',
    );
    await request(h.app).post('/recepcion/v1/recepcion').set('Authorization', auth).send(body).expect(202);
    await done;
    const status = await request(h.app)
      .get(`/recepcion/v1/recepcion/${body.clave}`)
      .set('Authorization', auth)
      .expect(200);
    expect(status.body['ind-estado']).toBe('error');
    expect(status.body['respuesta-xml']).toBeUndefined();

    await request(h.app).post('/sandbox/veredicto').send({ outcome: 'never' }).expect(201);
    const fe = readSample(sampleFiles().find((f) => f.startsWith('fe-')) as string);
    const other = bodyFor(fe.replace(/59073080<\/Clave>/, '59073081</Clave>'));
    const procesando = waitFor<TransitionEvent>(
      h,
      'transition',
      (e) => e.clave === other.clave && e.estado === 'procesando',
    );
    await request(h.app).post('/recepcion/v1/recepcion').set('Authorization', auth).send(other).expect(202);
    await procesando;
    await new Promise((r) => setImmediate(r));
    const stuck = await request(h.app)
      .get(`/recepcion/v1/recepcion/${other.clave}`)
      .set('Authorization', auth)
      .expect(200);
    expect(stuck.body['ind-estado']).toBe('procesando');
  });

  it('when verdicts are forced in turn, then each new document takes the next one and a repeated one takes none', async () => {
    if (!requireResource('Hacienda samples', have)) return;
    await request(h.app).post('/sandbox/veredicto').send({ outcome: 'reject', code: -51 }).expect(201);
    await request(h.app).post('/sandbox/veredicto').send({ outcome: 'accept' }).expect(201);
    const fe = readSample(sampleFiles().find((f) => f.startsWith('fe-')) as string);
    // Another clave in the signed XML breaks its signature: only a forced acceptance can accept it.
    const first = bodyFor(fe.replace(/59073080<\/Clave>/, '59073082</Clave>'));
    const second = bodyFor(fe.replace(/59073080<\/Clave>/, '59073083</Clave>'));
    const judged = (clave: unknown) =>
      waitFor<TransitionEvent>(
        h,
        'transition',
        (e) => e.clave === clave && e.estado !== 'procesando' && e.estado !== 'recibido',
      );

    const firstJudged = judged(first.clave);
    await request(h.app).post('/recepcion/v1/recepcion').set('Authorization', auth).send(first).expect(202);
    expect((await firstJudged).estado).toBe('rechazado');
    const answer = await request(h.app)
      .get(`/recepcion/v1/recepcion/${first.clave}`)
      .set('Authorization', auth)
      .expect(200);
    const mensaje = parseMensajeHacienda(
      Buffer.from(answer.body['respuesta-xml'], 'base64').toString('utf8'),
    );
    expect(mensaje?.detalles.map((d) => d.codigo)).toEqual([-51]);

    // The same clave again is refused, and leaves the forced acceptance for the next new document.
    await request(h.app).post('/recepcion/v1/recepcion').set('Authorization', auth).send(first).expect(400);
    const secondJudged = judged(second.clave);
    await request(h.app).post('/recepcion/v1/recepcion').set('Authorization', auth).send(second).expect(202);
    expect((await secondJudged).estado).toBe('aceptado');
  });
});
