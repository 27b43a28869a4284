// The Prometheus metrics of the process (prom-client): one registry, every metric defined here once so the
// names stay consistent across services and the Grafana dashboard and alert rules in infra/ can rely on
// them. Code that owns a fact records it (`metrics.hacienda.requests.inc(...)`); facts that live in the
// database (documents by state, queued jobs, expiring certificates) are read at scrape time by collectors
// a service registers (`onScrape`).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Logger } from '../logger';

export const metricsRegistry = new Registry();
// Event-loop delay (nodejs_eventloop_lag_*), RSS (process_resident_memory_bytes), heap, GC, handles.
collectDefaultMetrics({ register: metricsRegistry, eventLoopMonitoringPrecision: 20 });

const registers = [metricsRegistry];
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

type ScrapeCollector = () => Promise<void>;
const collectors = new Map<string, ScrapeCollector>();
/** Collectors whose last run failed: their failure was logged once, their recovery will be. */
const failing = new Set<string>();
let scrapeLogger: Logger | undefined;
let refreshing: Promise<void> | undefined;

/** Where collector failures are logged (startTelemetry passes the service's logger). */
export function reportScrapeFailuresTo(logger: Logger | undefined): void {
  scrapeLogger = logger;
}

/**
 * Runs one collector and says how it went in metrics_collector_up. A failed read (the database is
 * unreachable) leaves its gauges at their last values, which the queue alerts would go on trusting: the
 * 0 is what an alert reads instead. Logged once when a streak of failures starts and once when it ends,
 * not at every scrape.
 */
async function runCollector(name: string, collect: ScrapeCollector): Promise<void> {
  try {
    await collect();
  } catch (err) {
    metrics.collectors.up.set({ collector: name }, 0);
    if (!failing.has(name)) {
      failing.add(name);
      scrapeLogger?.error('metrics: a scrape-time collector failed; its gauges keep their last values', {
        collector: name,
        err,
      });
    }
    return;
  }
  metrics.collectors.up.set({ collector: name }, 1);
  if (failing.delete(name))
    scrapeLogger?.info('metrics: a scrape-time collector works again', { collector: name });
}

/**
 * Runs every scrape-time collector once per scrape: each database-backed gauge awaits this from its
 * prom-client `collect`, so the values are fresh whether the registry is read here or, in a tenant-api
 * cluster, by the primary's aggregator asking each worker. A failing collector does not fail the scrape.
 */
function refreshScrapeCollectors(): Promise<void> {
  refreshing ??= Promise.all([...collectors.entries()].map(([name, collect]) => runCollector(name, collect)))
    .then(() => undefined)
    .finally(() => {
      refreshing = undefined;
    });
  return refreshing;
}

// Facts read from the shared database are the same in every cluster worker: aggregated with max, not sum.
const fromDatabase = { collect: refreshScrapeCollectors, aggregator: 'max' as const };

/**
 * Runs `collect` before every scrape (reads from the database, sets gauges). Named, so composing a service
 * twice in one process (tests) replaces instead of doubling; a failing collector does not fail the scrape.
 */
export function onScrape(name: string, collect: ScrapeCollector): () => void {
  collectors.set(name, collect);
  return () => {
    if (collectors.get(name) !== collect) return;
    collectors.delete(name);
    failing.delete(name);
    metrics.collectors.up.remove({ collector: name });
  };
}

export const metrics = {
  http: {
    requests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by method, route template and status',
      labelNames: ['method', 'route', 'status'] as const,
      registers,
    }),
    duration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from request to response, by method, route template and status',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
  },
  documents: {
    submitted: new Counter({
      name: 'einvoice_documents_submitted_total',
      help: 'Documents accepted for submission (signed and queued), by kind',
      labelNames: ['kind'] as const,
      registers,
    }),
    transitions: new Counter({
      name: 'einvoice_document_transitions_total',
      help: 'Documents entering a state (enviado, aceptado, rechazado, error), by kind',
      labelNames: ['kind', 'state'] as const,
      registers,
    }),
    byState: new Gauge({
      name: 'einvoice_documents',
      help: 'Documents stored, by kind and state (read at scrape time)',
      labelNames: ['kind', 'state'] as const,
      registers,
      ...fromDatabase,
    }),
  },
  certificates: {
    expiring: new Gauge({
      name: 'einvoice_certificates_expiring',
      help: 'Issuer certificates expiring within the warning window (CERT_EXPIRY_WARNING_DAYS), expired included',
      registers,
      ...fromDatabase,
    }),
    expired: new Gauge({
      name: 'einvoice_certificates_expired',
      help: 'Issuer certificates already expired',
      registers,
      ...fromDatabase,
    }),
  },
  hacienda: {
    requests: new Counter({
      name: 'hacienda_requests_total',
      help: "Calls to Hacienda's services, by endpoint and outcome (HTTP status class, timeout or network)",
      labelNames: ['endpoint', 'outcome'] as const,
      registers,
    }),
    duration: new Histogram({
      name: 'hacienda_request_duration_seconds',
      help: "Latency of calls to Hacienda's services, by endpoint and outcome",
      labelNames: ['endpoint', 'outcome'] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    errors: new Counter({
      name: 'hacienda_request_errors_total',
      help: 'Calls to Hacienda that failed: timeout, network, or a 5xx answer',
      labelNames: ['endpoint', 'kind'] as const,
      registers,
    }),
  },
  jobs: {
    queued: new Gauge({
      name: 'jobs_queued',
      help: 'Jobs in the queue table, by queue and state (pending, running, failed; read at scrape time)',
      labelNames: ['queue', 'state'] as const,
      registers,
      ...fromDatabase,
    }),
    oldestDueAge: new Gauge({
      name: 'jobs_oldest_due_age_seconds',
      help: 'Age of the oldest job that is due and not yet running, by queue (0 when none)',
      labelNames: ['queue'] as const,
      registers,
      ...fromDatabase,
    }),
    running: new Gauge({
      name: 'jobs_running',
      help: 'Handlers running now in this process',
      registers,
    }),
    finished: new Counter({
      name: 'jobs_runs_total',
      help: 'Job runs, by queue and outcome (done, retry, fail)',
      labelNames: ['queue', 'outcome'] as const,
      registers,
    }),
    duration: new Histogram({
      name: 'job_run_duration_seconds',
      help: 'Time a job handler ran, by queue',
      labelNames: ['queue'] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
  },
  webhooks: {
    deliveries: new Counter({
      name: 'webhook_deliveries_total',
      help: 'Webhook delivery attempts, by outcome (delivered, retry, failed)',
      labelNames: ['outcome'] as const,
      registers,
    }),
  },
  auth: {
    tokenVerifications: new Counter({
      name: 'token_verifications_total',
      help: 'Bearer token verifications, by outcome (valid or the reason refused)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    logins: new Counter({
      name: 'auth_logins_total',
      help: 'Login attempts, each counted once, by outcome (success, invalid, throttled, error)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    loginsSlowed: new Counter({
      name: 'auth_logins_slowed_total',
      help: 'Logins held back because their base is under attack (each also counted once in auth_logins_total)',
      registers,
    }),
  },
  collectors: {
    up: new Gauge({
      name: 'metrics_collector_up',
      help: "Whether a scrape-time collector's last run worked (1) or failed (0: the gauges it sets keep their last values), by collector",
      labelNames: ['collector'] as const,
      registers,
      // A cluster worker that cannot read the database makes the whole service's value 0.
      aggregator: 'min',
      collect: refreshScrapeCollectors,
    }),
  },
  db: {
    connections: new Gauge({
      name: 'db_pool_connections',
      help: 'Database pool: connections open, idle, and statements or clients waiting for one',
      labelNames: ['state'] as const,
      registers,
      // Per process: a cluster's pools add up.
      collect: refreshScrapeCollectors,
    }),
  },
};

/** The text exposition of every metric (the database-backed gauges refresh themselves first). */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  return { contentType: metricsRegistry.contentType, body: await metricsRegistry.metrics() };
}
