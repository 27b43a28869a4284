// What the metrics, spans and logs say of the tenant-api's answers that are not a success: an /api route's
// refusals counted under its template, a sign-in the auth-server hung up on (why, in the log only, and the
// request id both services logged), a 500 whose line names the tenant and the route.
import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { renderMetrics, startTracing } from '@cr/service-kit';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import request from 'supertest';
import { get, post } from './support/client';
import { issuerBody } from './support/issuer-mother';
import { type TestApp, startTestApp } from './support/test-app';

jest.setTimeout(120_000);

const exporter = new InMemorySpanExporter();
startTracing({ service: 'tenant-api', exporter });

/** An auth-server that hangs up on every call, keeping the headers it was sent. */
const calls: IncomingHttpHeaders[] = [];
let authServer: Server;
let ctx: TestApp;

beforeAll(async () => {
  authServer = createServer((req) => {
    calls.push(req.headers);
    req.socket.destroy();
  });
  await new Promise<void>((r) => authServer.listen(0, '127.0.0.1', r));
  const { port } = authServer.address() as AddressInfo;
  ctx = await startTestApp({ authServerUrl: `http://127.0.0.1:${port}` });
});
afterAll(async () => {
  await ctx?.close();
  authServer?.close();
});

const failedLines = () =>
  ctx.log.lines.map((l) => JSON.parse(l)).filter((l) => l.message === 'request failed');

describe('observability of answers that are not a success', () => {
  it('when /api/consultar/emisor answers 200, refuses with 400 and finds nothing (404), then /metrics counts all three under its template', async () => {
    expect((await post(ctx, 'acme', '/api/enviar/emisor', issuerBody())).status).toBe(200);
    expect((await post(ctx, 'acme', '/api/consultar/emisor', { identificacion: 3101123456 })).status).toBe(
      200,
    );
    expect((await post(ctx, 'acme', '/api/consultar/emisor', {})).status).toBe(400);
    expect((await post(ctx, 'acme', '/api/consultar/emisor', { identificacion: 3101999999 })).status).toBe(
      404,
    );

    const series = (await renderMetrics()).body
      .split('\n')
      .filter((l) => l.startsWith('http_requests_total{') && l.includes('consultar/emisor'));
    expect(series).toEqual([
      'http_requests_total{method="POST",route="/api/consultar/emisor",status="200"} 1',
      'http_requests_total{method="POST",route="/api/consultar/emisor",status="400"} 1',
      'http_requests_total{method="POST",route="/api/consultar/emisor",status="404"} 1',
    ]);
  });

  it('when the auth-server hangs up on a sign-in, then 502 says only that it did not answer, and the log line keeps why, under the request id and trace the auth-server was sent', async () => {
    ctx.log.lines.length = 0;
    exporter.reset();
    const res = await request(ctx.app)
      .post('/app/session')
      .set('Host', ctx.host('acme'))
      .set('X-Request-Id', 'req-signin-0001')
      .send({ base: 'acme', password: 'S3cr3t-pass' });

    expect(res.status).toBe(502);
    expect(res.body).toEqual({
      error: 'upstream_error',
      message: 'the auth-server did not answer the sign-in',
      requestId: 'req-signin-0001',
    });
    expect(res.text).not.toMatch(/fetch failed|closed|socket/i);
    const span = exporter.getFinishedSpans().find((s) => s.name === 'POST /app/session');
    expect(calls.map((h) => [h['x-request-id'], String(h.traceparent).split('-')[1]])).toEqual([
      ['req-signin-0001', span?.spanContext().traceId],
    ]);
    expect(failedLines()).toEqual([
      expect.objectContaining({
        requestId: 'req-signin-0001',
        tenantId: 'acme',
        route: '/app/session',
        err: expect.objectContaining({
          message: 'the auth-server did not answer the sign-in',
          cause: expect.objectContaining({
            message: 'fetch failed',
            cause: expect.objectContaining({ message: expect.stringMatching(/other side closed/) }),
          }),
        }),
      }),
    ]);
    expect(ctx.log.text).not.toContain('S3cr3t-pass');
  });

  it('when a request fails on a missing table, then its "request failed" line names the tenant and the route template', async () => {
    ctx.log.lines.length = 0;
    await ctx.db.exec('ALTER TABLE issuers RENAME TO issuers_away');
    try {
      expect((await get(ctx, 'acme', '/api/emisores')).status).toBe(500);
    } finally {
      await ctx.db.exec('ALTER TABLE issuers_away RENAME TO issuers');
    }
    expect(failedLines()).toEqual([
      expect.objectContaining({ tenantId: 'acme', route: '/api/emisores', path: '/api/emisores' }),
    ]);
  });
});
