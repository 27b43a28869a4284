// Every Hacienda call ends within its timeout even when the answer keeps dripping (axios's `timeout` only
// notices silence), and an answer larger than the service's bound is cut off instead of buffered.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttp, HTTP_SIZE_LIMITS, IdpClient, isTransient, RecepcionClient } from '../src';

const CLAVE = '50601012600310112345600100001010000000001100000001';

/** What each path answers; '/drip' sends a byte every 200 ms and never finishes. */
const routes: Record<string, (res: ServerResponse) => void> = {
  drip: (res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.write('{"clave":"');
    const timer = setInterval(() => res.write('5'), 200);
    res.on('close', () => clearInterval(timer));
  },
};
let server: Server;
let url = '';
let received = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
    });
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0] ?? '';
      const route = Object.entries(routes).find(([name]) => path.endsWith(`/${name}`));
      if (route) return route[1](res);
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** The call's result, or 'still pending' if it has not settled by `ms` (the test fails fast, not hangs). */
function within<T>(ms: number, call: Promise<T>): Promise<T | 'still pending'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'still pending'>((resolve) => {
    timer = setTimeout(() => resolve('still pending'), ms);
  });
  return Promise.race([call, late]).finally(() => clearTimeout(timer));
}

function statusAnswer(respuestaBytes: number, chunked: boolean) {
  return (res: ServerResponse) => {
    const body = JSON.stringify({
      clave: CLAVE,
      'ind-estado': 'aceptado',
      'respuesta-xml': 'A'.repeat(respuestaBytes),
    });
    res.writeHead(200, {
      'Content-Type': 'application/json',
      ...(chunked ? {} : { 'Content-Length': Buffer.byteLength(body) }),
    });
    if (!chunked) return res.end(body);
    // Unannounced length: the bound must hold while the answer streams.
    for (let i = 0; i < body.length; i += 64 * 1024) res.write(body.slice(i, i + 64 * 1024));
    res.end();
  };
}

describe('overall deadline', () => {
  it('when a status answer drips a byte every 200 ms, then the call ends as a transient timeout within its timeout', async () => {
    routes[CLAVE] = routes.drip as (res: ServerResponse) => void;
    const client = new RecepcionClient({ baseUrl: `${url}/recepcion/v1`, timeoutMs: 1_000 });
    const started = Date.now();
    const out = await within(4_000, client.status('token', CLAVE));
    expect(out).toMatchObject({ kind: 'timeout' });
    expect(isTransient(out as { kind: string })).toBe(true);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('when the IdP drips its token answer, then the grant fails as retryable (unavailable)', async () => {
    const client = new IdpClient({
      tokenUrlTest: `${url}/drip`,
      tokenUrlProd: `${url}/drip`,
      timeoutMs: 1_000,
    });
    const out = await within(
      4_000,
      client.passwordGrant(2, { username: 'u', password: 'p' }).catch((e) => e),
    );
    expect(out).toMatchObject({ kind: 'unavailable', retryable: true });
  });

  it("when the caller passes its own signal, then both hold: the caller's abort is a cancel, the deadline a timeout", async () => {
    const http = createHttp(url, 1_000, 'recepcion');
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 100);
    const cancelled = await within(
      4_000,
      http.get('/drip', { signal: caller.signal }).catch((e) => e),
    );
    expect(cancelled).toMatchObject({ code: 'ERR_CANCELED' });

    const never = new AbortController();
    const timedOut = await within(
      4_000,
      http.get('/drip', { signal: never.signal }).catch((e) => e),
    );
    expect(timedOut).toMatchObject({ code: 'ETIMEDOUT' });
  });
});

describe('size bounds', () => {
  const limit = HTTP_SIZE_LIMITS.recepcion.responseBytes;
  const client = () => new RecepcionClient({ baseUrl: `${url}/recepcion/v1`, timeoutMs: 10_000 });

  it('when a status answer carries a large but legitimate MensajeHacienda (3 MiB of Base64), then it is read', async () => {
    routes[CLAVE] = statusAnswer(3 * 1024 * 1024, false);
    const out = await client().status('token', CLAVE);
    expect(out).toMatchObject({ kind: 'found', indEstado: 'aceptado' });
  });

  it.each([
    ['announced', false],
    ['chunked', true],
  ])(
    'when a status answer (%s) is over the bound, then it is cut off as a transient failure',
    async (_name, chunked) => {
      routes[CLAVE] = statusAnswer(limit + 1, chunked);
      const out = await client().status('token', CLAVE);
      expect(out).toMatchObject({ kind: 'network', code: 'ERR_RESPONSE_TOO_LARGE' });
      expect(isTransient(out)).toBe(true);
    },
  );

  it('when a request body is over the bound, then it is not sent', async () => {
    received = 0;
    const out = await client().submit({
      token: 'token',
      clave: CLAVE,
      fecha: '2026-06-30T12:29:12-06:00',
      emisor: { tipoIdentificacion: '02', numeroIdentificacion: '3101123456' },
      comprobanteXml: 'A'.repeat(HTTP_SIZE_LIMITS.recepcion.requestBytes + 1),
    });
    expect(out).toMatchObject({ kind: 'network' });
    expect(received).toBe(0);
  });
});
