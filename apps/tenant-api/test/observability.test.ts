// /metrics and traces after a real submission: an invoice goes to Hacienda (a local fake over HTTP, the
// client package's) and back, its webhook is delivered, then a scrape of the metrics port shows every
// counter on that path moved, the request's trace runs from the HTTP span through the jobs to the database
// and Hacienda calls, and every log line of the request and of the jobs it caused carries its request id.
import { type MetricsServer, startMetricsServer, startTracing } from '@cr/service-kit';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { FakeHacienda } from '../../../packages/hacienda-client/test/fake-hacienda';
import { post } from './support/client';
import { documentBody } from './support/document-mother';
import { issuerBody } from './support/issuer-mother';
import { type TestApp, startTestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';

jest.setTimeout(180_000);

const USER = 'cpj-3-101-123456@stag.comprobanteselectronicos.go.cr';
const PASSWORD = 'S3cr3t-Hacienda!';

/** `name{labels} value` lines of the text exposition, summed over the series whose labels include `match`. */
function sample(text: string, name: string, match: Record<string, string> = {}): number {
  let total = 0;
  let found = false;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const labels = Object.fromEntries(
      [...(m[2] ?? '').matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]),
    );
    if (Object.entries(match).every(([k, v]) => labels[k] === v)) {
      total += Number(m[3]);
      found = true;
    }
  }
  return found ? total : Number.NaN;
}

describe('observability after a submission', () => {
  const exporter = new InMemorySpanExporter();
  let fake: FakeHacienda;
  let ctx: TestApp;
  let metricsServer: MetricsServer;
  let receiver: WebhookReceiver;

  async function scrape(): Promise<string> {
    const res = await fetch(metricsServer.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    return res.text();
  }

  beforeAll(async () => {
    startTracing({ service: 'tenant-api', exporter });
    fake = new FakeHacienda();
    await fake.start();
    fake.users.set(USER, PASSWORD);
    ctx = await startTestApp({ hacienda: fake.settings, startWorker: true });
    metricsServer = await startMetricsServer({ port: 0, host: '127.0.0.1' });
    receiver = await new WebhookReceiver().start();
    const registered = await post(ctx, 'acme', '/api/enviar/emisor', issuerBody({ usuarioHacienda: USER }));
    expect(registered.status).toBe(200);
    expect((await post(ctx, 'acme', '/api/configurar/webhook', { url: receiver.url })).status).toBe(200);
  });
  afterAll(async () => {
    await metricsServer?.close();
    await receiver?.stop();
    await ctx?.close();
    await fake?.stop();
  });

  async function waitFor(what: string, done: () => Promise<boolean> | boolean): Promise<void> {
    const deadline = Date.now() + 60_000;
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** Posts an invoice, lets the fake Hacienda accept it, and waits for its webhook. */
  async function submitAndAccept(numero: number): Promise<{ clave: string; requestId: string }> {
    const res = await post(ctx, 'acme', '/api/enviar/items', documentBody('invoice', numero));
    expect(res.status).toBe(200);
    const clave: string = res.body.clave;
    await waitFor('recepción', () => fake.received.has(clave));
    fake.received.get(clave)!.estado = 'aceptado';
    await waitFor('the webhook', () => receiver.received.some((w) => w.body.includes(clave)));
    const found = await post(ctx, 'acme', '/api/consultar/documento', { clave });
    expect(found.body.data.estado).toBe('aceptado');
    return { clave, requestId: String(res.headers['x-request-id']) };
  }

  it('when an invoice is accepted and its webhook delivered, then the scraped counters moved', async () => {
    const before = await scrape();
    await submitAndAccept(1);
    // The webhook job's run is counted once its result is recorded, a moment after the receiver saw it.
    await waitFor(
      'the webhook job',
      async () => sample(await scrape(), 'jobs_runs_total', { queue: 'webhook.deliver' }) >= 1,
    );
    const after = await scrape();
    const moved = (name: string, labels: Record<string, string> = {}) =>
      (sample(after, name, labels) || 0) - (sample(before, name, labels) || 0);

    expect(moved('einvoice_documents_submitted_total', { kind: '1' })).toBe(1);
    expect(moved('einvoice_document_transitions_total', { kind: '1', state: 'enviado' })).toBe(1);
    expect(moved('einvoice_document_transitions_total', { kind: '1', state: 'aceptado' })).toBe(1);
    expect(moved('http_requests_total', { method: 'POST', route: '/api/enviar/items', status: '200' })).toBe(
      1,
    );
    expect(moved('http_request_duration_seconds_count', { route: '/api/enviar/items' })).toBe(1);
    expect(moved('hacienda_requests_total', { endpoint: 'recepcion POST /recepcion', outcome: '2xx' })).toBe(
      1,
    );
    expect(moved('hacienda_request_duration_seconds_count', { endpoint: 'recepcion POST /recepcion' })).toBe(
      1,
    );
    expect(moved('jobs_runs_total', { queue: 'webhook.deliver', outcome: 'done' })).toBe(1);
    expect(moved('jobs_runs_total', { outcome: 'done' })).toBeGreaterThanOrEqual(3);
    expect(moved('webhook_deliveries_total', { outcome: 'delivered' })).toBe(1);
    expect(moved('token_verifications_total', { outcome: 'valid' })).toBeGreaterThanOrEqual(2);
    // Read from the database at scrape time.
    expect(sample(after, 'einvoice_documents', { kind: '1', state: 'aceptado' })).toBe(1);
    expect(sample(after, 'einvoice_certificates_expiring')).toBe(0);
    expect(sample(after, 'jobs_queued', { state: 'failed' }) || 0).toBe(0);
    expect(sample(after, 'db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
    // The process itself.
    expect(sample(after, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(sample(after, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('when a token is refused, then the verification counter names why', async () => {
    const before = await scrape();
    const res = await post(ctx, 'acme', '/api/consultar/webhook', {}, ctx.forge.token('other'));
    expect(res.status).toBe(401);
    const after = await scrape();
    expect(
      sample(after, 'token_verifications_total', { outcome: 'tenant' }) -
        (sample(before, 'token_verifications_total', { outcome: 'tenant' }) || 0),
    ).toBe(1);
  });

  it('when a document is submitted, then one trace spans HTTP, the jobs, the database and Hacienda, and every log line carries the request id', async () => {
    exporter.reset();
    ctx.log.lines.length = 0;
    const { requestId } = await submitAndAccept(2);
    // The webhook job's span ends after its result is recorded, a moment after it logs the delivery.
    for (let i = 0; i < 200; i++) {
      if (exporter.getFinishedSpans().some((s) => s.name === 'job webhook.deliver')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const spans = exporter.getFinishedSpans();
    const server = spans.find(
      (s) => s.name === 'POST /api/enviar/items' && s.attributes['request.id'] === requestId,
    );
    expect(server).toBeDefined();
    const traceId = server!.spanContext().traceId;
    const inTrace = spans.filter((s) => s.spanContext().traceId === traceId).map((s) => s.name);
    if (!inTrace.includes('job hacienda.submit'))
      process.stderr.write(
        `${JSON.stringify(spans.filter((s) => !s.name.startsWith('db')).map((s) => [s.name, s.spanContext().traceId, s.parentSpanContext?.traceId]))}\n`,
      );
    expect(inTrace).toEqual(expect.arrayContaining(['job hacienda.submit', 'job webhook.deliver']));
    expect(inTrace.some((n) => n.startsWith('job ') && n.includes('status'))).toBe(true);
    expect(inTrace).toContain('hacienda recepcion POST /recepcion');
    // Hacienda's call is a child of the submission job's span (the IdP token is cached from the first test).
    const haciendaCall = spans.find(
      (s) => s.name === 'hacienda recepcion POST /recepcion' && s.spanContext().traceId === traceId,
    );
    const submitJob = spans.find(
      (s) => s.name === 'job hacienda.submit' && s.spanContext().traceId === traceId,
    );
    expect(haciendaCall?.parentSpanContext?.spanId).toBe(submitJob?.spanContext().spanId);
    expect(inTrace.filter((n) => n.startsWith('db ')).length).toBeGreaterThan(5);
    // A database span of the request is a child of the request's span.
    const dbOfRequest = spans.find(
      (s) => s.name === 'db INSERT' && s.parentSpanContext?.spanId === server!.spanContext().spanId,
    );
    expect(
      dbOfRequest ?? spans.find((s) => s.name.startsWith('db ') && s.spanContext().traceId === traceId),
    ).toBeDefined();

    const lines = ctx.log.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const received = lines.find((l) => l.message === 'document received');
    const final = lines.find((l) => l.message === 'document final state');
    const delivered = lines.find((l) => l.message === 'webhook delivered');
    for (const line of [received, final, delivered]) {
      expect(line).toMatchObject({ requestId, traceId });
    }
    // Nothing was logged without a request id (HTTP lines, use cases, jobs alike).
    expect(lines.filter((l) => !l.requestId)).toEqual([]);
  });
});
