// Gateway routing test: the real nginx with the repository's config (plain variant, `localtest` domains).
// STAND-INS: the two upstreams here are tiny echo servers that take the place of the auth-server and the
// tenant-api ONLY in this routing test, so that it checks what nginx forwards (Host, X-Forwarded-*,
// X-Request-Id) independently of the apps. The full-flow test runs the real apps behind the same gateway.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Gateway, findNginx, gatewayRequest, startGateway } from '../src';
import { requireResource } from '@cr/testkit';

interface Echo {
  upstream: string;
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  bodyBytes: number;
}

function startEcho(name: string): Promise<{ server: Server; port: number }> {
  return new Promise((resolvePort) => {
    const server = createServer((req, res) => {
      let bodyBytes = 0;
      req.on('data', (c: Buffer) => {
        bodyBytes += c.length;
      });
      req.on('end', () => {
        const echo: Echo = {
          upstream: name,
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          bodyBytes,
        };
        res.setHeader('content-type', 'application/json');
        res.setHeader('x-powered-by', 'stand-in');
        res.end(JSON.stringify(echo));
      });
    });
    server.listen(0, '127.0.0.1', () =>
      resolvePort({ server, port: (server.address() as AddressInfo).port }),
    );
  });
}

/** The access log once it has `count` lines (nginx writes a line just after responding). */
async function logLines(gw: Gateway, count: number): Promise<Array<Record<string, unknown>>> {
  for (let i = 0; i < 50; i++) {
    const lines = gw.accessLog();
    if (lines.length >= count) return lines;
    await new Promise((r) => setTimeout(r, 20));
  }
  return gw.accessLog();
}

const haveNginx = requireResource('nginx (apt-get install nginx)', findNginx() !== undefined);
const describeWithNginx = haveNginx ? describe : describe.skip;

describeWithNginx('gateway routing (stand-in upstreams)', () => {
  let auth: { server: Server; port: number };
  let tenant: { server: Server; port: number };
  let gw: Gateway;

  beforeAll(async () => {
    auth = await startEcho('auth-server');
    tenant = await startEcho('tenant-api');
    gw = await startGateway({
      domain: 'localtest',
      authPort: auth.port,
      tenantPort: tenant.port,
      // Small limits so the test reaches them in a few requests.
      loginRate: '1r/m',
      loginBurst: 2,
    });
  });

  afterAll(async () => {
    await gw?.stop();
    auth?.server.close();
    tenant?.server.close();
  });

  test('when a request names auth.localtest, then it reaches the auth-server with forwarding headers', async () => {
    const res = await gatewayRequest(gw.httpPort, { host: 'auth.localtest', path: '/.well-known/jwks.json' });
    expect(res.status).toBe(200);
    const echo = res.json<Echo>();
    expect(echo.upstream).toBe('auth-server');
    expect(echo.url).toBe('/.well-known/jwks.json');
    expect(echo.headers.host).toBe('auth.localtest');
    expect(echo.headers['x-forwarded-host']).toBe('auth.localtest');
    expect(echo.headers['x-forwarded-proto']).toBe('http');
    expect(echo.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  test('when a request names acme.api.localtest, then the tenant-api gets the tenant host and a request id', async () => {
    const res = await gatewayRequest(gw.httpPort, {
      host: 'acme.api.localtest',
      method: 'POST',
      path: '/api/consultar/emisor',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.9' },
      body: JSON.stringify({ identificacion: '3101123456' }),
    });
    expect(res.status).toBe(200);
    const echo = res.json<Echo>();
    expect(echo.upstream).toBe('tenant-api');
    expect(echo.method).toBe('POST');
    expect(echo.headers.host).toBe('acme.api.localtest');
    expect(echo.headers['x-forwarded-host']).toBe('acme.api.localtest');
    // The edge replaces a client's X-Forwarded-For: the apps throttle on an address nobody can forge.
    expect(echo.headers['x-forwarded-for']).toBe('127.0.0.1');
    const requestId = echo.headers['x-request-id'];
    expect(typeof requestId).toBe('string');
    expect(requestId).toMatch(/^[0-9a-f]{32}$/);
    expect(res.headers['x-request-id']).toBe(requestId);
  });

  test('when the client sends a sane X-Request-Id, then it is passed on unchanged; a hostile one is replaced', async () => {
    const kept = await gatewayRequest(gw.httpPort, {
      host: 'globex.api.localtest',
      path: '/health/live',
      headers: { 'x-request-id': 'erp-batch-42.7' },
    });
    expect(kept.json<Echo>().headers['x-request-id']).toBe('erp-batch-42.7');
    const replaced = await gatewayRequest(gw.httpPort, {
      host: 'globex.api.localtest',
      path: '/health/live',
      headers: { 'x-request-id': 'x"} <script>; drop' },
    });
    expect(replaced.json<Echo>().headers['x-request-id']).toMatch(/^[0-9a-f]{32}$/);
    const tooLong = await gatewayRequest(gw.httpPort, {
      host: 'globex.api.localtest',
      path: '/health/live',
      headers: { 'x-request-id': 'a'.repeat(129) },
    });
    expect(tooLong.json<Echo>().headers['x-request-id']).toMatch(/^[0-9a-f]{32}$/);
    // The apps take 8 to 128 characters: a shorter id is replaced here, so every log names the same one.
    const tooShort = await gatewayRequest(gw.httpPort, {
      host: 'globex.api.localtest',
      path: '/health/live',
      headers: { 'x-request-id': 'abc1234' },
    });
    const shortId = tooShort.json<Echo>().headers['x-request-id'];
    expect(shortId).toMatch(/^[0-9a-f]{32}$/);
    expect(tooShort.headers['x-request-id']).toBe(shortId);
  });

  test("when the client sends a trace context, then it is not passed on: the apps' traces start at the gateway", async () => {
    const res = await gatewayRequest(gw.httpPort, {
      host: 'globex.api.localtest',
      path: '/health/live',
      headers: {
        traceparent: '00-0000000000000000000000000000dead-000000000000beef-00',
        tracestate: 'vendor=x',
      },
    });
    expect(res.json<Echo>().headers).not.toHaveProperty('traceparent');
    expect(res.json<Echo>().headers).not.toHaveProperty('tracestate');
  });

  test.each([
    ['an unknown host', 'www.localtest'],
    ['a nested tenant label', 'a.b.api.localtest'],
    ['a label with an underscore', 'ac_me.api.localtest'],
    ['the bare api host', 'api.localtest'],
    ['another domain', 'acme.api.example.com'],
  ])('when a request names %s, then the gateway answers 404 JSON itself', async (_what, host) => {
    const res = await gatewayRequest(gw.httpPort, {
      host,
      path: '/api/enviar/items',
      method: 'POST',
      body: '{}',
    });
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json<{ error: string; message: string }>();
    expect(body.error).toBe('not_found');
    expect(body.message).toEqual(expect.any(String));
  });

  test('when a body exceeds the tenant limit (256k), then 413 JSON and the tenant-api never sees it', async () => {
    const small = await gatewayRequest(gw.httpPort, {
      host: 'acme.api.localtest',
      method: 'POST',
      path: '/api/enviar/emisor',
      body: 'x'.repeat(200 * 1024),
    });
    expect(small.status).toBe(200);
    expect(small.json<Echo>().bodyBytes).toBe(200 * 1024);
    const big = await gatewayRequest(gw.httpPort, {
      host: 'acme.api.localtest',
      method: 'POST',
      path: '/api/enviar/emisor',
      body: 'x'.repeat(300 * 1024),
    });
    expect(big.status).toBe(413);
    expect(big.json<{ error: string }>().error).toBe('payload_too_large');
  });

  test('when a login body exceeds the auth limit (16k), then 413 JSON', async () => {
    const res = await gatewayRequest(gw.httpPort, {
      host: 'auth.localtest',
      method: 'POST',
      path: '/logout',
      body: 'x'.repeat(20 * 1024),
    });
    expect(res.status).toBe(413);
    expect(res.json<{ error: string }>().error).toBe('payload_too_large');
  });

  // nginx refuses these itself before any app sees them; its own pages are text/html.
  test.each([
    [
      'the request line is over the limit (a 10 KB path)',
      414,
      'bad_request',
      /request line is too long/,
      { path: `/${'a'.repeat(10_000)}` },
    ],
    [
      'a header is over the limit (10 KB)',
      400,
      'bad_request',
      /header is too large/,
      { path: '/', headers: { 'x-big': 'b'.repeat(10_000) } },
    ],
    ['the path carries an encoded NUL (%00)', 400, 'bad_request', /malformed/, { path: '/api/a%00b' }],
    ['the method is TRACE', 405, 'not_found', /no route for TRACE/, { path: '/', method: 'TRACE' }],
    [
      "the path is one of the gateway's internal error pages",
      404,
      'not_found',
      /not found/,
      { path: '/.gateway-errors/bad-request' },
    ],
  ])('when %s, then %s JSON {error, message} on every host', async (_what, status, error, message, req) => {
    for (const host of ['acme.api.localtest', 'auth.localtest', 'www.localtest']) {
      const res = await gatewayRequest(gw.httpPort, { host, ...req });
      expect([host, res.status]).toEqual([host, status]);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f]{32}$/);
      expect(res.json()).toEqual({ error, message: expect.stringMatching(message) });
    }
  });

  test('when one address posts /login faster than the limit, then 429 JSON with Retry-After', async () => {
    const statuses: number[] = [];
    let throttled: Awaited<ReturnType<typeof gatewayRequest>> | undefined;
    for (let i = 0; i < 5; i++) {
      const res = await gatewayRequest(gw.httpPort, {
        host: 'auth.localtest',
        method: 'POST',
        path: '/login',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ base: 'acme', password: 'not-the-password' }),
      });
      statuses.push(res.status);
      if (res.status === 429) throttled = res;
    }
    // rate 1r/m with burst 2: three pass at once, the rest are refused at the gateway.
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    // Express routes these to /login as well: the limit covers them.
    for (const path of ['/LOGIN', '/login/', '/Login/']) {
      const res = await gatewayRequest(gw.httpPort, {
        host: 'auth.localtest',
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ base: 'acme', password: 'not-the-password' }),
      });
      expect([path, res.status]).toEqual([path, 429]);
    }
    expect(throttled?.headers['retry-after']).toBe('60');
    expect(throttled?.json<{ error: string; message: string }>()).toEqual({
      error: 'too_many_requests',
      message: expect.any(String),
    });
    // Other auth routes are not limited.
    const jwks = await gatewayRequest(gw.httpPort, {
      host: 'auth.localtest',
      path: '/.well-known/jwks.json',
    });
    expect(jwks.status).toBe(200);
  });

  test('when one address signs in to the dashboard faster than the login limit, then 429 JSON; reading and ending a session are not limited', async () => {
    // The same budget as POST /login (rate 1r/m, burst 2): whatever an earlier test left of it, at most three
    // sign-ins pass before the refusal.
    const statuses: number[] = [];
    // Spelled as express also routes it: the limit must not depend on the spelling.
    const spellings = ['/app/session', '/APP/Session', '/app/session/', '/App/session/'];
    while (statuses.length < 5 && statuses.at(-1) !== 429) {
      const res = await gatewayRequest(gw.httpPort, {
        host: 'acme.api.localtest',
        method: 'POST',
        path: spellings[statuses.length % spellings.length]!,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ base: 'acme', password: 'not-the-password' }),
      });
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.headers['retry-after']).toBe('60');
        expect(res.json<{ error: string }>().error).toBe('too_many_requests');
      }
    }
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.length).toBeLessThanOrEqual(4);
    // The budget is spent: every spelling is refused, none slips past to the tenant-api.
    for (const path of spellings) {
      const res = await gatewayRequest(gw.httpPort, {
        host: 'acme.api.localtest',
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ base: 'acme', password: 'not-the-password' }),
      });
      expect([path, res.status]).toEqual([path, 429]);
    }
    for (const method of ['GET', 'DELETE', 'GET']) {
      const res = await gatewayRequest(gw.httpPort, {
        host: 'acme.api.localtest',
        method,
        path: '/app/session',
      });
      expect([method, res.status]).toEqual([method, 200]);
      expect(res.json<Echo>()).toMatchObject({ upstream: 'tenant-api', url: '/app/session' });
    }
  });

  test('when requests pass, then the access log is JSON with the request id and never the Authorization header', async () => {
    await gatewayRequest(gw.httpPort, {
      host: 'acme.api.localtest',
      path: '/api/consultar/documento?token=query-secret',
      headers: { authorization: 'Bearer super-secret-token', 'x-request-id': 'log-check-1' },
    });
    // nginx writes the line after the response; give it a moment without sleeping blindly.
    let entry: Record<string, unknown> | undefined;
    for (let i = 0; i < 50 && !entry; i++) {
      entry = gw.accessLog().find((e) => e.request_id === 'log-check-1');
      if (!entry) await new Promise((r) => setTimeout(r, 20));
    }
    expect(entry).toMatchObject({
      host: 'acme.api.localtest',
      method: 'GET',
      path: '/api/consultar/documento',
      status: 200,
    });
    // Hacienda's callback carries the document's only key in its path.
    const callbackToken = 'q3Zr8_x-Lm2nB7vK9pQwE4tY1uI0oA5sD6fG8hJ2kL3';
    const before = gw.accessLog().length;
    await gatewayRequest(gw.httpPort, {
      host: 'acme.api.localtest',
      method: 'POST',
      path: `/Hacienda/callback/${callbackToken}`,
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    const lines = await logLines(gw, before + 1);
    expect(lines.at(-1)).toMatchObject({ path: '/hacienda/callback/[REDACTED]' });
    const raw = JSON.stringify(gw.accessLog());
    expect(raw).not.toContain('super-secret-token');
    expect(raw).not.toContain('query-secret');
    expect(raw).not.toContain(callbackToken);
  });

  test('when /admin or /revocations is asked for on the public auth host, then 404 JSON and the auth-server never sees it', async () => {
    const before = gw.accessLog().length;
    // Express matches paths without regard to case, so the gateway must too.
    const paths = [
      '/admin/clients',
      '/admin',
      '/admin/keys/rotate',
      '/admin%2Fclients',
      '/ADMIN/clients',
      '/Admin',
      '/aDmIn/keys/rotate',
      '/%41dmin/clients',
      // The revocation list names bases whose password changed or that were disabled: internal only.
      '/revocations',
      '/revocations?since=0',
      '/Revocations/',
    ];
    for (const path of paths) {
      const res = await gatewayRequest(gw.httpPort, {
        host: 'auth.localtest',
        method: 'POST',
        path,
        headers: { authorization: 'Bearer admin-token-guess', 'content-type': 'application/json' },
        body: '{}',
      });
      expect([path, res.status]).toEqual([path, 404]);
      expect(res.json<{ error: string }>().error).toBe('not_found');
    }
    const lines = await logLines(gw, before + paths.length);
    expect(lines.slice(before).map((l) => l.upstream_addr)).toEqual(paths.map(() => ''));
  });

  test('when the internal admin listener is asked, then /admin/ reaches the auth-server and nothing else does', async () => {
    const admin = await gatewayRequest(gw.adminPort, {
      host: 'anything',
      method: 'POST',
      path: '/admin/clients',
      body: '{}',
    });
    expect(admin.status).toBe(200);
    expect(admin.json<Echo>()).toMatchObject({ upstream: 'auth-server', url: '/admin/clients' });
    for (const path of ['/login', '/.well-known/jwks.json', '/api/consultar/emisor']) {
      const other = await gatewayRequest(gw.adminPort, { host: 'auth.localtest', path });
      expect([path, other.status]).toEqual([path, 404]);
    }
  });

  test('when one address floods the auth host, then 429 JSON beyond its rate', async () => {
    const strict = await startGateway({
      domain: 'localtest',
      authPort: auth.port,
      tenantPort: tenant.port,
      authRate: '1r/m',
      authBurst: 2,
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await gatewayRequest(strict.httpPort, {
          host: 'auth.localtest',
          path: '/.well-known/jwks.json',
        });
        statuses.push(res.status);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      // The tenant hosts have their own limits: untouched.
      const tenantHost = await gatewayRequest(strict.httpPort, {
        host: 'acme.api.localtest',
        path: '/health/live',
      });
      expect(tenantHost.status).toBe(200);
    } finally {
      await strict.stop();
    }
  });

  test('when an upstream is down, then 502 JSON from the gateway', async () => {
    const down = await startGateway({ domain: 'localtest', authPort: 9, tenantPort: tenant.port });
    try {
      const res = await gatewayRequest(down.httpPort, { host: 'auth.localtest', path: '/health/live' });
      expect(res.status).toBe(502);
      expect(res.json<{ error: string }>().error).toBe('upstream_error');
    } finally {
      await down.stop();
    }
  });
});
