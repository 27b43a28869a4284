import {
  createHaciendaClients,
  type HaciendaClients,
  parseRecepcionStatus,
  RecepcionClient,
  type SubmitRequest,
} from '../src';
import { FakeHacienda, STAG_USER } from './fake-hacienda';

const fake = new FakeHacienda();
let clients: HaciendaClients;
const key = { issuerId: 'issuer-1', ambiente: 2 as const };
let seq = 0;

function nextClave(): string {
  seq += 1;
  return `50601072600310112345600100001010000000${String(seq).padStart(3, '0')}1${'12345678'}`;
}

async function request(overrides: Partial<SubmitRequest> = {}): Promise<SubmitRequest> {
  return {
    token: await clients.tokens.getToken(key, STAG_USER),
    clave: nextClave(),
    fecha: '2026-07-01T10:00:00-06:00',
    emisor: { tipoIdentificacion: '02', numeroIdentificacion: '3101123456' },
    comprobanteXml: Buffer.from('<FacturaElectronica/>').toString('base64'),
    ...overrides,
  };
}

beforeAll(async () => {
  await fake.start();
  clients = createHaciendaClients(fake.settings, { timeoutMs: 300 });
});
afterAll(() => fake.stop());
beforeEach(() => {
  fake.recepcionScript = [];
  fake.statusScript = [];
  fake.submissions.length = 0;
});

describe('RecepcionClient.submit', () => {
  it('when Hacienda queues the document, then accepted with its Location and the exact body and bearer token sent', async () => {
    const req = await request({
      receptor: { tipoIdentificacion: '01', numeroIdentificacion: '114480790' },
      callbackUrl: 'https://api.example.com/hacienda/callback/tok',
    });
    const outcome = await clients.recepcion(2).submit(req);
    expect(outcome).toEqual({
      kind: 'accepted',
      status: 202,
      location: `${fake.url}/recepcion/v1/recepcion/${req.clave}`,
      rateLimit: { limit: 100, remaining: 99, reset: 1900000000 },
    });
    expect(fake.submissions[0]).toEqual({
      authorization: `bearer ${req.token}`,
      body: {
        clave: req.clave,
        fecha: req.fecha,
        emisor: req.emisor,
        receptor: req.receptor,
        callbackUrl: req.callbackUrl,
        comprobanteXml: req.comprobanteXml,
      },
    });
  });

  it('when there is no receptor, then the body has no receptor key', async () => {
    await clients.recepcion(2).submit(await request());
    expect(Object.keys(fake.submissions[0]?.body ?? {})).toEqual([
      'clave',
      'fecha',
      'emisor',
      'comprobanteXml',
    ]);
  });

  it('when the clave was already received, then alreadyReceived with the cause', async () => {
    const req = await request();
    await clients.recepcion(2).submit(req);
    const again = await clients.recepcion(2).submit(req);
    expect(again).toMatchObject({ kind: 'alreadyReceived', status: 400 });
    expect(again.kind === 'alreadyReceived' && again.cause).toContain('ya fue recibido');
  });

  it('when Hacienda refuses the request, then rejected keeping X-Error-Cause', async () => {
    const outcome = await clients.recepcion(2).submit(await request({ clave: '123' }));
    expect(outcome).toMatchObject({
      kind: 'rejected',
      status: 400,
      cause: 'La clave no tiene el formato correcto',
      validationException: false,
    });
  });

  it('when the token is not valid, then unauthorized; after invalidate the manager refreshes and the retry is accepted', async () => {
    const req = await request();
    fake.accessTokens.delete(req.token);
    expect(await clients.recepcion(2).submit(req)).toMatchObject({ kind: 'unauthorized', status: 401 });
    clients.tokens.invalidate(key);
    const token = await clients.tokens.getToken(key, STAG_USER);
    expect(token).not.toBe(req.token);
    expect(await clients.recepcion(2).submit({ ...req, token })).toMatchObject({ kind: 'accepted' });
  });

  it.each([
    [403, 'unauthorized'],
    [500, 'serverError'],
    [503, 'serverError'],
    [413, 'unexpected'],
  ])('when Hacienda answers %i, then %s', async (status, kind) => {
    fake.recepcionScript.push((_req, res) => res.status(status).set('X-Error-Cause', 'cause here').end());
    expect(await clients.recepcion(2).submit(await request())).toMatchObject({
      kind,
      status,
      cause: 'cause here',
    });
  });

  it('when Hacienda answers 429, then rateLimited with Retry-After in ms', async () => {
    fake.recepcionScript.push((_req, res) => res.status(429).set('Retry-After', '7').end());
    expect(await clients.recepcion(2).submit(await request())).toMatchObject({
      kind: 'rateLimited',
      retryAfterMs: 7_000,
    });
  });

  it('when Hacienda does not answer in time, then timeout', async () => {
    fake.recepcionScript.push((_req, res) => void setTimeout(() => res.status(202).end(), 1_000));
    expect(await clients.recepcion(2).submit(await request())).toMatchObject({ kind: 'timeout' });
  });

  it('when the connection drops, then network with the code', async () => {
    fake.recepcionScript.push((req) => req.socket.destroy());
    expect(await clients.recepcion(2).submit(await request())).toMatchObject({
      kind: 'network',
      code: 'ECONNRESET',
    });
  });

  it('when nothing listens, then network ECONNREFUSED', async () => {
    const dead = new RecepcionClient({ baseUrl: 'http://127.0.0.1:1/recepcion/v1' });
    expect(await dead.submit(await request())).toMatchObject({ kind: 'network', code: 'ECONNREFUSED' });
  });
});

describe('RecepcionClient.status', () => {
  it('when the clave is known, then found with ind-estado lower-cased and the MensajeHacienda', async () => {
    const req = await request();
    await clients.recepcion(2).submit(req);
    expect(await clients.recepcion(2).status(req.token, req.clave)).toMatchObject({
      kind: 'found',
      clave: req.clave,
      fecha: req.fecha,
      indEstado: 'procesando',
    });
    const doc = fake.received.get(req.clave);
    if (doc) doc.estado = 'aceptado';
    const final = await clients.recepcion(2).status(req.token, req.clave);
    expect(final).toMatchObject({ kind: 'found', indEstado: 'aceptado' });
    expect(final.kind === 'found' && Buffer.from(final.respuestaXml ?? '', 'base64').toString()).toBe(
      '<MensajeHacienda/>',
    );
  });

  it('when the clave is unknown, then notFound with the cause', async () => {
    const token = await clients.tokens.getToken(key, STAG_USER);
    const clave = nextClave();
    expect(await clients.recepcion(2).status(token, clave)).toEqual({
      kind: 'notFound',
      status: 404,
      cause: `No existe el recurso con Clave = [${clave}]`,
      rateLimit: { limit: 100, remaining: 99, reset: 1900000000 },
    });
  });

  it.each([
    ['unauthorized', (res: import('express').Response) => res.status(401).end()],
    ['serverError', (res: import('express').Response) => res.status(502).end()],
    ['rateLimited', (res: import('express').Response) => res.status(429).end()],
    ['invalid', (res: import('express').Response) => res.status(400).set('X-Error-Cause', 'bad').end()],
    ['unexpected', (res: import('express').Response) => res.json({ unexpected: true })],
  ])('when status gets an answer classified as %s, then that kind comes back', async (kind, answer) => {
    fake.statusScript.push((_req, res) => answer(res));
    expect(await clients.recepcion(2).status('t', nextClave())).toMatchObject({ kind });
  });

  it('when status times out, then timeout', async () => {
    fake.statusScript.push((_req, res) => void setTimeout(() => res.json({}), 1_000));
    expect(await clients.recepcion(2).status('t', nextClave())).toMatchObject({ kind: 'timeout' });
  });
});

describe('parseRecepcionStatus', () => {
  it('when the callback uses either spelling, then both read the same', () => {
    const a = parseRecepcionStatus({
      clave: 'C',
      fecha: 'F',
      'ind-estado': 'ACEPTADO',
      'respuesta-xml': 'eA==',
    });
    const b = parseRecepcionStatus({ clave: 'C', fecha: 'F', indEstado: 'aceptado', respuestaXml: 'eA==' });
    expect(a).toEqual({ clave: 'C', fecha: 'F', indEstado: 'aceptado', respuestaXml: 'eA==' });
    expect(b).toEqual(a);
  });

  it('when the body lacks clave or estado, then undefined', () => {
    expect(parseRecepcionStatus({ clave: 'C' })).toBeUndefined();
    expect(parseRecepcionStatus('nope')).toBeUndefined();
    expect(parseRecepcionStatus(null)).toBeUndefined();
  });
});
