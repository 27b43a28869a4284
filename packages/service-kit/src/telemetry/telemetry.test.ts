// The shared plumbing: a request's id reaches log lines written through the root logger deep in a use
// case; its span is the parent of the database statements it runs; /metrics answers on its own port with
// the request counted under its route template, and nothing else.
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import request from 'supertest';
import { createTestDatabase } from '../db/open';
import { createHttpApp } from '../http';
import { MemoryTransport, createLogger } from '../logger';
import { startMetricsServer } from './metrics-server';
import { startTracing } from './tracing';

jest.setTimeout(120_000);

const exporter = new InMemorySpanExporter();
startTracing({ service: 'kit-test', exporter });

describe('telemetry', () => {
  it('when a route logs through the root logger and queries the database, then the line carries the request id and the statement is a child of the request span', async () => {
    const db = await createTestDatabase();
    const log = new MemoryTransport();
    const logger = createLogger({ service: 'kit-test', level: 'info', transports: [log] });
    const app = createHttpApp({
      logger,
      routes(a) {
        a.get('/things/:id', async (_req, res) => {
          await db.query('SELECT 1 AS one');
          await new Promise((r) => setTimeout(r, 5));
          logger.info('deep in a use case');
          res.json({ ok: true });
        });
      },
    });
    try {
      const res = await request(app).get('/things/42').set('X-Request-Id', 'req_test-0001');
      expect(res.status).toBe(200);
      const line = log.lines.map((l) => JSON.parse(l)).find((l) => l.message === 'deep in a use case');
      expect(line).toMatchObject({
        requestId: 'req_test-0001',
        traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
      });
      const spans = exporter.getFinishedSpans();
      const server = spans.find((s) => s.name === 'GET /things/:id');
      expect(server?.attributes['request.id']).toBe('req_test-0001');
      const statement = spans.find((s) => s.name === 'db SELECT');
      expect(statement?.parentSpanContext?.spanId).toBe(server?.spanContext().spanId);
      expect(line.traceId).toBe(server?.spanContext().traceId);
    } finally {
      await db.close();
    }
  });

  it("when a caller sends a traceparent, then the request's span continues that trace", async () => {
    const app = createHttpApp({
      logger: createLogger({ service: 'kit-test', level: 'silent' }),
      routes: (a) => a.get('/x', (_req, res) => res.json({})),
    });
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    await request(app).get('/x').set('traceparent', `00-${traceId}-00f067aa0ba902b7-01`);
    const span = exporter.getFinishedSpans().find((s) => s.name === 'GET /x');
    expect(span?.spanContext().traceId).toBe(traceId);
  });

  it('when /metrics is scraped on its port, then the request is counted under its route template; other paths are 404', async () => {
    const app = createHttpApp({
      logger: createLogger({ service: 'kit-test', level: 'silent' }),
      routes: (a) => a.get('/orders/:id', (_req, res) => res.json({})),
    });
    await request(app).get('/orders/1');
    await request(app).get('/orders/2');
    await request(app).get('/nowhere');
    const server = await startMetricsServer({ port: 0, host: '127.0.0.1' });
    try {
      const text = await (await fetch(server.url)).text();
      expect(text).toMatch(/http_requests_total\{method="GET",route="\/orders\/:id",status="200"\} 2/);
      expect(text).toMatch(/http_requests_total\{method="GET",route="unmatched",status="404"\} 1/);
      expect(text).not.toContain('/orders/1');
      expect(text).toContain('process_resident_memory_bytes');
      expect((await fetch(server.url.replace('/metrics', '/'))).status).toBe(404);
      expect((await fetch(server.url, { method: 'POST' })).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});
