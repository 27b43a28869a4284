// The SDK's HTTP behaviour against a scripted local service: retries on 429/5xx/network failures with
// the same Idempotency-Key, no repeat of an operation the service may have done already, Retry-After, typed
// errors, login and renewal of the token.
import { createServer } from 'node:net';
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  CrEinvoiceClient,
  type ClientOptions,
  type ListarDocumentosFiltro,
  type ListarRecibidosFiltro,
  PayloadTooLargeError,
  RateLimitError,
  ServerError,
  TimeoutError,
  TokenExpiredError,
} from '../src';
import { TokenManager } from '../src/token';
import { type FlakyService, fakeJwt, startFlakyService } from './support/flaky-service';

const CLAVE = '50601012600310112345600100001010000000001112345678';
const FAST = { baseDelayMs: 5, maxDelayMs: 20 };
const inHours = (h: number) => Math.floor(Date.now() / 1000) + h * 3600;

let service: FlakyService;
beforeEach(async () => {
  service = await startFlakyService();
  service.script('/login', [
    { status: 200, body: { token: fakeJwt(inHours(8)), expires_in: 28800, token_type: 'Bearer' } },
  ]);
});
afterEach(() => service.close());

/** A port nothing listens on (it was just free). */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

function client(options: Partial<ClientOptions> = {}): CrEinvoiceClient {
  return new CrEinvoiceClient({
    authUrl: service.url,
    tenantUrl: service.url,
    credentials: { base: 'acme', password: 'acme-password-123' },
    retry: FAST,
    ...options,
  });
}

const accepted = { status: 'success', message: 'received', clave: CLAVE };

describe('retries', () => {
  it('when the service answers 503 then 200, then the POST is sent again with the same Idempotency-Key', async () => {
    service.script('/api/enviar/items', [
      { status: 503, body: { error: 'service_unavailable', message: 'busy' } },
      { status: 200, body: accepted },
    ]);
    const answer = await client().documentos.enviar({} as never);
    expect(answer.clave).toBe(CLAVE);
    const posts = service.requests.filter((r) => r.path === '/api/enviar/items');
    expect(posts).toHaveLength(2);
    const keys = posts.map((p) => p.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
  });

  it('when a retried POST meets its first attempt still in flight (409), then it waits and gets the stored answer', async () => {
    service.script('/api/enviar/items', [
      { status: 503, body: { error: 'service_unavailable', message: 'busy' } },
      {
        status: 409,
        body: {
          error: 'conflict',
          message: 'Idempotency-Key: a request with this key is still being processed',
        },
      },
      { status: 200, body: accepted },
    ]);
    await expect(client().documentos.enviar({} as never)).resolves.toMatchObject({ clave: CLAVE });
    expect(service.requests.filter((r) => r.path === '/api/enviar/items')).toHaveLength(3);
  });

  it('when the first attempt of a submission is still running (409 with Retry-After), then the SDK waits for it beyond maxAttempts', async () => {
    const inFlight = {
      status: 409,
      headers: { 'retry-after': '1' },
      body: {
        error: 'conflict',
        message: 'Idempotency-Key: a request with this key is still being processed',
      },
    };
    service.script('/api/enviar/items', [
      { status: 503, body: { error: 'service_unavailable', message: 'busy' } },
      inFlight,
      inFlight,
      inFlight,
      { status: 200, body: accepted },
    ]);
    const started = Date.now();
    const answer = await client({ retry: { ...FAST, maxAttempts: 2 } }).documentos.enviar({} as never);
    expect(answer.clave).toBe(CLAVE);
    const posts = service.requests.filter((r) => r.path === '/api/enviar/items');
    expect(posts).toHaveLength(5);
    expect(new Set(posts.map((p) => p.headers['idempotency-key'])).size).toBe(1);
    // Retry-After: 1 between the three in-flight answers and the next ask.
    expect(Date.now() - started).toBeGreaterThanOrEqual(2900);
  });

  it('when the first attempt outlasts maxInFlightWaitSeconds, then ConflictError', async () => {
    service.script('/api/enviar/items', [
      { status: 503, body: { error: 'service_unavailable', message: 'busy' } },
      {
        status: 409,
        headers: { 'retry-after': '1' },
        body: {
          error: 'conflict',
          message: 'Idempotency-Key: a request with this key is still being processed',
        },
      },
    ]);
    const err = await client({ retry: { ...FAST, maxInFlightWaitSeconds: 1 } })
      .documentos.enviar({} as never)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect(err).toMatchObject({ error: 'conflict', status: 409, retryAfterSeconds: 1 });
    expect(service.requests.filter((r) => r.path === '/api/enviar/items')).toHaveLength(3);
  });

  it('when a 409 is a real conflict (another body for the same number), then it is raised at once', async () => {
    service.script('/api/enviar/items', [
      {
        status: 409,
        body: { error: 'conflict', message: `numeroReferencia: 1 is already document ${CLAVE}` },
      },
    ]);
    await expect(client().documentos.enviar({} as never)).rejects.toMatchObject({
      error: 'conflict',
      status: 409,
    });
    expect(service.requests.filter((r) => r.path === '/api/enviar/items')).toHaveLength(1);
  });

  it('when the caller gives an Idempotency-Key, then that key is sent', async () => {
    service.script('/api/enviar/items', [{ status: 200, body: accepted }]);
    await client().documentos.enviar({} as never, { idempotencyKey: 'pedido-42' });
    expect(service.requests.at(-1)!.headers['idempotency-key']).toBe('pedido-42');
  });

  it('when two calls are made, then each has its own Idempotency-Key', async () => {
    service.script('/api/consultar/documento', [{ status: 200, body: { status: 'success', data: {} } }]);
    const c = client();
    await c.documentos.consultar(CLAVE);
    await c.documentos.consultar(CLAVE);
    const keys = service.requests
      .filter((r) => r.path === '/api/consultar/documento')
      .map((r) => r.headers['idempotency-key']);
    expect(new Set(keys).size).toBe(2);
  });

  it('when 429 comes with Retry-After: 1, then the SDK waits at least that long before trying again', async () => {
    service.script('/api/hacienda/cabys', [
      {
        status: 429,
        headers: { 'retry-after': '1' },
        body: { error: 'too_many_requests', message: 'slow down' },
      },
      { status: 200, body: { status: 'success', data: [] } },
    ]);
    await client().hacienda.cabys('cafe');
    const [first, second] = service.requests.filter((r) => r.path === '/api/hacienda/cabys');
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(950);
  });

  it('when Retry-After asks for longer than the SDK waits, then RateLimitError carries it at once', async () => {
    service.script('/api/hacienda/cabys', [
      {
        status: 429,
        headers: { 'retry-after': '120' },
        body: { error: 'too_many_requests', message: 'retry in 120 s' },
      },
    ]);
    const err = await client()
      .hacienda.cabys('cafe')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err).toMatchObject({ error: 'too_many_requests', status: 429, retryAfterSeconds: 120 });
    expect(service.requests.filter((r) => r.path === '/api/hacienda/cabys')).toHaveLength(1);
  });

  it('when every attempt fails with 502, then ServerError carries the code, message and request id', async () => {
    service.script('/api/hacienda/contribuyente', [
      {
        status: 502,
        headers: { 'x-request-id': 'req-9' },
        body: {
          error: 'upstream_error',
          message: 'Hacienda public API unavailable on /fe/ae (answered 503)',
        },
      },
    ]);
    const err = await client({ retry: { ...FAST, maxAttempts: 3 } })
      .hacienda.contribuyente('3101123456')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect(err).toMatchObject({ error: 'upstream_error', status: 502, requestId: 'req-9' });
    expect(service.requests.filter((r) => r.path === '/api/hacienda/contribuyente')).toHaveLength(3);
  });

  it('when the connection drops once, then the call is tried again and succeeds', async () => {
    service.script('/api/consultar/documento', [
      { status: 0, hangUp: true },
      { status: 200, body: { status: 'success', data: { clave: CLAVE } } },
    ]);
    await expect(client().documentos.consultar(CLAVE)).resolves.toMatchObject({ data: { clave: CLAVE } });
  });

  it('when nothing listens, then ConnectionError names the address after the retries', async () => {
    const down = `http://127.0.0.1:${await closedPort()}`;
    const err = await client({ authUrl: down, tenantUrl: down })
      .auth.login()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect((err as ConnectionError).message).toContain(`cannot reach ${down}: ECONNREFUSED`);
    expect((err as ConnectionError).error).toBe('connection_error');
  });
});

describe('operations a repeat would do twice (replay, resend, webhook rotation, synchronization)', () => {
  const replayed = { status: 'success', message: 'event queued', data: { eventId: 'msg_1' } };
  const posts = (path: string) => service.requests.filter((r) => r.path === path);

  it.each([
    [502, 'upstream_error'],
    [500, 'internal_error'],
    [504, 'gateway_timeout'],
  ])(
    'when a replay answers %i, then it is not sent again: the service may have queued it',
    async (status, error) => {
      service.script('/api/reenviar/webhook', [
        { status, body: { error, message: 'lost on the way back' } },
        { status: 200, body: replayed },
      ]);
      const err = await client()
        .webhooks.replay(CLAVE)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ServerError);
      expect(err).toMatchObject({ status });
      expect(posts('/api/reenviar/webhook')).toHaveLength(1);
    },
  );

  it('when the connection drops after the answer to a received document was sent, then it is sent again: the service answers a repeat as the first', async () => {
    const path = `/api/recepcion/documentos/${CLAVE}/respuesta`;
    service.script(path, [
      { status: 0, hangUp: true },
      { status: 202, body: { status: 'success', message: 'already signed', data: { clave: CLAVE } } },
    ]);
    await expect(
      client().recepcion.responder(CLAVE, { mensaje: 1, numeroReferencia: 1 } as never),
    ).resolves.toMatchObject({ data: { clave: CLAVE } });
    expect(posts(path)).toHaveLength(2);
  });

  it.each([
    ['/api/configurar/webhook', (c: CrEinvoiceClient) => c.webhooks.configure('https://example.com/hook')],
    ['/api/reenviar/correo', (c: CrEinvoiceClient) => c.entrega.reenviarCorreo(CLAVE)],
  ])('when %s is refused before any work (429, then 503), then it is sent again', async (path, call) => {
    service.script(path, [
      { status: 429, headers: { 'retry-after': '0' }, body: { error: 'too_many_requests', message: 'slow' } },
      { status: 503, body: { error: 'service_unavailable', message: 'revocations not loaded yet' } },
      { status: 200, body: { status: 'success', data: {} } },
    ]);
    await expect(call(client())).resolves.toMatchObject({ status: 'success' });
    expect(posts(path)).toHaveLength(3);
  });

  it('when a synchronization answers 503, then it is not sent again: it had spent a slot of the window', async () => {
    const path = '/api/recepcion/sincronizar';
    service.script(path, [
      { status: 429, headers: { 'retry-after': '0' }, body: { error: 'too_many_requests', message: 'slow' } },
      {
        status: 503,
        body: {
          error: 'service_unavailable',
          message: "Hacienda: the IdP refused the issuer's credentials (invalid_grant); try again later",
        },
      },
      { status: 200, body: { status: 'success', data: {} } },
    ]);
    const err = await client()
      .recepcion.sincronizar('3101123456')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect(err).toMatchObject({ error: 'service_unavailable', status: 503 });
    // The 429 came from the gate before the slot was taken: that one is sent again.
    expect(posts(path)).toHaveLength(2);
  });

  it('when nothing listens, then a replay is tried again: no connection, nothing was sent', async () => {
    const down = `http://127.0.0.1:${await closedPort()}`;
    let attempts = 0;
    const counting = (input: string, init: RequestInit) => {
      attempts += 1;
      return fetch(input, init);
    };
    const err = await client({ tenantUrl: down, fetch: counting, retry: { ...FAST, maxAttempts: 3 } })
      .webhooks.replay(CLAVE)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    // The login (on the scripted service) and three attempts at the closed port.
    expect(attempts).toBe(4);
  });

  it('when a submission’s answer is lost (502), then it is still sent again with its Idempotency-Key', async () => {
    service.script('/api/enviar/items', [
      { status: 502, body: { error: 'upstream_error', message: 'bad gateway' } },
      { status: 200, body: accepted },
    ]);
    await expect(client().documentos.enviar({} as never)).resolves.toMatchObject({ clave: CLAVE });
    const keys = posts('/api/enviar/items').map((p) => p.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });
});

describe('the body of an answer', () => {
  const listed = { status: 'success', data: [] };
  const within = <T>(ms: number, p: Promise<T>) =>
    Promise.race([
      p,
      new Promise<string>((resolve) => setTimeout(() => resolve(`still waiting after ${ms} ms`), ms)),
    ]);

  it('when the service stalls in the middle of the body, then TimeoutError after timeoutMs, not a hang', async () => {
    service.script('/api/emisores', [{ status: 200, cutBody: 'stall' }]);
    const started = Date.now();
    const err = await within(
      5_000,
      client({ timeoutMs: 300, retry: { ...FAST, maxAttempts: 2 } })
        .emisores.listar()
        .catch((e: unknown) => e),
    );
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({ error: 'timeout' });
    expect(service.requests.filter((r) => r.path === '/api/emisores')).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('when the connection drops in the middle of the body of a read, then it is tried again', async () => {
    service.script('/api/emisores', [
      { status: 200, cutBody: 'reset' },
      { status: 200, body: listed },
    ]);
    await expect(client().emisores.listar()).resolves.toEqual(listed);
    expect(service.requests.filter((r) => r.path === '/api/emisores')).toHaveLength(2);
  });

  it('when the connection drops in the middle of the body of a replay, then ConnectionError and no repeat', async () => {
    service.script('/api/reenviar/webhook', [
      { status: 200, cutBody: 'reset' },
      { status: 200, body: { status: 'success', message: 'event queued', data: { eventId: 'msg_1' } } },
    ]);
    const err = await client()
      .webhooks.replay(CLAVE)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect((err as ConnectionError).message).toContain('lost while reading the answer');
    expect(service.requests.filter((r) => r.path === '/api/reenviar/webhook')).toHaveLength(1);
  });

  it('when a 200 is not JSON, then ServerError invalid_response and no repeat', async () => {
    service.script('/api/emisores', [
      { status: 200, headers: { 'x-request-id': 'req-7' }, rawBody: '<html>' },
    ]);
    const err = await client()
      .emisores.listar()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect(err).toMatchObject({ error: 'invalid_response', status: 200, requestId: 'req-7' });
    expect(service.requests.filter((r) => r.path === '/api/emisores')).toHaveLength(1);
  });
});

describe('lists and their cursor', () => {
  it('when the cursor of a list’s last page (null) is passed back, then no cursor is sent', async () => {
    const lastPage = { status: 'success', data: [], cursor: null };
    service.script('/api/documentos', [{ status: 200, body: lastPage }]);
    service.script('/api/recepcion/documentos', [{ status: 200, body: lastPage }]);
    const c = client();
    const page = await c.documentos.listar({ limite: 5 });
    const next: ListarDocumentosFiltro = { cursor: page.cursor, limite: 5 };
    await c.documentos.listar(next);
    const recibidos: ListarRecibidosFiltro = { cursor: null };
    await c.recepcion.listar(recibidos);
    const queries = service.requests.filter((r) => r.path !== '/login').map((r) => r.query);
    expect(queries).toEqual(['limite=5', 'limite=5', '']);
  });
});

describe('errors that are not retried', () => {
  it('when the service answers 400 with details, then BadRequestError carries them and nothing is retried', async () => {
    const details = [
      { path: 'detalleServicio[0].montoTotal', reason: 'does not match', expected: '10000.00' },
    ];
    service.script('/api/enviar/items', [
      {
        status: 400,
        body: {
          error: 'bad_request',
          message: 'detalleServicio[0].montoTotal: expected 10000.00',
          details,
          requestId: 'r1',
        },
      },
    ]);
    const err = await client()
      .documentos.enviar({} as never)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err).toMatchObject({ error: 'bad_request', details, requestId: 'r1', status: 400 });
    expect(service.requests.filter((r) => r.path === '/api/enviar/items')).toHaveLength(1);
  });

  it('when the body is over a limit (413, the gateway’s own answer), then PayloadTooLargeError and nothing is retried', async () => {
    service.script('/api/enviar/items', [
      {
        status: 413,
        body: {
          error: 'payload_too_large',
          message: 'the request body exceeds the size this host accepts',
        },
      },
    ]);
    const err = await client()
      .documentos.enviar({} as never)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PayloadTooLargeError);
    expect(err).toMatchObject({ error: 'payload_too_large', status: 413 });
    expect(service.requests.filter((r) => r.path === '/api/enviar/items')).toHaveLength(1);
  });

  it('when a proxy answers 408 on every attempt, then TimeoutError request_timeout', async () => {
    service.script('/api/emisores', [{ status: 408 }]);
    const err = await client({ retry: { ...FAST, maxAttempts: 2 } })
      .emisores.listar()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({ error: 'request_timeout', status: 408 });
    expect(service.requests.filter((r) => r.path === '/api/emisores')).toHaveLength(2);
  });

  it('when the password is wrong, then AuthenticationError says invalid_credentials', async () => {
    service.script('/login', [
      { status: 401, body: { error: 'invalid_credentials', message: 'invalid base or password' } },
    ]);
    const err = await client()
      .emisores.get(3101123456)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err).toMatchObject({ error: 'invalid_credentials', message: 'invalid base or password' });
  });
});

describe('tokens', () => {
  it('when the credentials are an API key, then the login sends {base, apiKey} and the calls use its token', async () => {
    service.script('/api/consultar/webhook', [{ status: 200, body: { status: 'success', data: {} } }]);
    const key = 'crk_Hk3v9QwLx2Tb7mPa_q8Zr2YtW0fJd5nVb3kLx7sPe1uGh4mQa9cRt6yBwE2o';
    await client({ credentials: { base: 'acme', apiKey: key } }).webhooks.get();
    const login = service.requests.find((r) => r.path === '/login');
    expect(JSON.parse(login?.body ?? '{}')).toEqual({ base: 'acme', apiKey: key });
    const call = service.requests.find((r) => r.path === '/api/consultar/webhook');
    expect(call?.headers.authorization).toMatch(/^Bearer /);
  });

  it('when the first call is made, then the SDK logs in and sends the token as Bearer', async () => {
    service.script('/api/consultar/webhook', [{ status: 200, body: { status: 'success', data: {} } }]);
    await client().webhooks.get();
    const login = service.requests.find((r) => r.path === '/login')!;
    expect(JSON.parse(login.body)).toEqual({ base: 'acme', password: 'acme-password-123' });
    const token = (JSON.parse(JSON.stringify(service.requests.at(-1)!.headers)) as Record<string, string>)
      .authorization;
    expect(token).toMatch(/^Bearer ey/);
  });

  it('when concurrent calls need a token, then one login serves them all', async () => {
    service.script('/api/consultar/webhook', [{ status: 200, body: { status: 'success', data: {} } }]);
    const c = client();
    await Promise.all([c.webhooks.get(), c.webhooks.get(), c.webhooks.get()]);
    expect(service.requests.filter((r) => r.path === '/login')).toHaveLength(1);
  });

  it('when the service refuses the token (revoked), then the SDK logs in once more and repeats the call', async () => {
    service.script('/api/consultar/webhook', [
      { status: 401, body: { error: 'unauthorized', message: 'token revoked' } },
      { status: 200, body: { status: 'success', data: {} } },
    ]);
    await client().webhooks.get();
    expect(service.requests.map((r) => r.path)).toEqual([
      '/login',
      '/api/consultar/webhook',
      '/login',
      '/api/consultar/webhook',
    ]);
  });

  it('when a bare token has expired, then TokenExpiredError is raised before anything is sent', async () => {
    const c = client({ credentials: undefined, token: fakeJwt(inHours(-1)) });
    const err = await c.webhooks.get().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TokenExpiredError);
    expect((err as TokenExpiredError).error).toBe('token_expired');
    expect(service.requests).toHaveLength(0);
  });

  it('when the token is within the refresh margin of exp, then a new one is obtained first', async () => {
    let now = 1_800_000_000;
    let n = 0;
    const tokens = new TokenManager({
      credentials: { base: 'acme', password: 'p' },
      refreshBeforeSeconds: 60,
      now: () => now,
      login: async () => ({ token: fakeJwt(now + 28800, ++n), expires_in: 28800 }),
    });
    const first = await tokens.bearer();
    now += 28800 - 61;
    expect(await tokens.bearer()).toBe(first);
    now += 2;
    const second = await tokens.bearer();
    expect(second).not.toBe(first);
    expect(n).toBe(2);
  });
});
