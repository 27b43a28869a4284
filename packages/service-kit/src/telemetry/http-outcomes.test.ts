// What the metrics, the request's span and its log lines say of answers other than a route's success: a
// refusal thrown from a router mounted under a prefix, a request its client abandoned, an unexpected failure.
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { type Express, type RequestHandler, Router } from 'express';
import request from 'supertest';
import { AppError } from '../errors';
import { createHttpApp } from '../http';
import { MemoryTransport, createLogger } from '../logger';
import { renderMetrics } from './metrics';
import { SpanStatusCode, startTracing } from './tracing';

jest.setTimeout(30_000);

const exporter = new InMemorySpanExporter();
startTracing({ service: 'kit-test', exporter });

/** An app with `route` at GET `/api${path}`; `beforeBody` runs first (the tenant-api resolves its tenant there). */
function appWith(
  path: string,
  route: RequestHandler,
  log = new MemoryTransport(),
  beforeBody: RequestHandler[] = [],
): Express {
  return createHttpApp({
    logger: createLogger({ service: 'kit-test', level: 'http', transports: [log] }),
    beforeBody,
    routes: (a) => a.use('/api', Router().get(path, route)),
  });
}

async function seriesOf(route: string): Promise<string[]> {
  return (await renderMetrics()).body
    .split('\n')
    .filter((l) => l.startsWith('http_requests_total{') && l.includes(`route="${route}"`));
}

async function waitFor<T>(what: string, find: () => T | undefined): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

beforeEach(() => exporter.reset());

describe('HTTP outcomes in metrics, spans and logs', () => {
  it('when a route under /api answers 200, refuses with 400 and finds nothing (404), then all three carry its template as route label and span name, and their full path in the access line', async () => {
    const log = new MemoryTransport();
    const app = appWith(
      '/orders/:id',
      (req, res) => {
        if (req.params.id === 'x') throw new AppError('bad_request', 'id: must be a number');
        if (req.params.id === '0') throw new AppError('not_found', 'no order 0');
        res.json({});
      },
      log,
    );
    await request(app).get('/api/orders/1').expect(200);
    await request(app).get('/api/orders/x').expect(400);
    await request(app).get('/api/orders/0').expect(404);

    expect(await seriesOf('/api/orders/:id')).toEqual([
      'http_requests_total{method="GET",route="/api/orders/:id",status="200"} 1',
      'http_requests_total{method="GET",route="/api/orders/:id",status="400"} 1',
      'http_requests_total{method="GET",route="/api/orders/:id",status="404"} 1',
    ]);
    expect(await seriesOf('/orders/:id')).toEqual([]);
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => [s.name, s.attributes['http.route']])).toEqual([
      ['GET /api/orders/:id', '/api/orders/:id'],
      ['GET /api/orders/:id', '/api/orders/:id'],
      ['GET /api/orders/:id', '/api/orders/:id'],
    ]);
    const access = log.lines.map((l) => JSON.parse(l)).filter((l) => l.message === 'request');
    expect(access.map((l) => [l.status, l.path])).toEqual([
      [200, '/api/orders/1'],
      [400, '/api/orders/x'],
      [404, '/api/orders/0'],
    ]);
  });

  it('when the client closes the request before the answer, then it is counted once as 499, its span ends as an error and a warning line says so', async () => {
    let entered!: () => void;
    const handling = new Promise<void>((r) => {
      entered = r;
    });
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    const log = new MemoryTransport();
    const app = appWith(
      '/slow/:id',
      async (_req, res) => {
        entered();
        await released;
        res.json({ late: true });
      },
      log,
    );
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      const abandoned = httpRequest({ host: '127.0.0.1', port, path: '/api/slow/7' });
      abandoned.on('error', () => undefined);
      abandoned.end();
      await handling;
      abandoned.destroy();

      const span = await waitFor('the span', () => exporter.getFinishedSpans()[0]);
      // The handler answers after its client left: nothing more may be counted, traced or logged.
      release();
      await new Promise((r) => setTimeout(r, 100));

      expect(await seriesOf('/api/slow/:id')).toEqual([
        'http_requests_total{method="GET",route="/api/slow/:id",status="499"} 1',
      ]);
      expect(exporter.getFinishedSpans()).toHaveLength(1);
      expect(span.name).toBe('GET /api/slow/:id');
      expect(span.attributes['http.response.status_code']).toBe(499);
      expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'client closed the request' });
      const lines = log.lines.map((l) => JSON.parse(l));
      expect(lines).toEqual([
        expect.objectContaining({
          level: 'warn',
          message: 'request',
          method: 'GET',
          path: '/api/slow/7',
          status: 499,
          clientClosed: true,
        }),
      ]);
    } finally {
      release();
      server.close();
    }
  });

  it('when a route fails unexpectedly, then the "request failed" line names its route template and the tenant', async () => {
    const log = new MemoryTransport();
    const tenant: RequestHandler = (_req, res, next) => {
      res.locals.tenantId = 'acme';
      next();
    };
    const app = appWith(
      '/boom/:id',
      () => {
        throw new Error('the pool is gone');
      },
      log,
      [tenant],
    );
    await request(app).get('/api/boom/1').expect(500);
    const failed = log.lines.map((l) => JSON.parse(l)).find((l) => l.message === 'request failed');
    expect(failed).toMatchObject({
      route: '/api/boom/:id',
      tenantId: 'acme',
      path: '/api/boom/1',
      err: { message: 'the pool is gone' },
    });
  });
});
