// What each service's main.ts starts for observability: tracing (exported only when configured), the
// /metrics listener on its own port, and the database pool gauges.
import type { Db } from '../db/types';
import type { Logger } from '../logger';
import { AggregatorRegistry } from 'prom-client';
import { collectDbPoolMetrics } from './db-metrics';
import { metricsRegistry, reportScrapeFailuresTo } from './metrics';
import { startMetricsServer } from './metrics-server';
import { startTracing } from './tracing';

export interface TelemetrySettings {
  METRICS_PORT: number;
  METRICS_HOST: string;
  OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
}

export async function startTelemetry(options: {
  service: string;
  settings: TelemetrySettings;
  logger: Logger;
  db?: Db;
  /**
   * In a node:cluster, a worker serves no /metrics of its own (a scrape would reach one worker at random):
   * it answers the primary, whose listener serves the sum over the workers (`startClusterMetrics`).
   */
  clusterWorker?: boolean;
}): Promise<{ metricsUrl: string | undefined; stop: () => Promise<void> }> {
  const { settings, logger } = options;
  const tracing = startTracing({
    service: options.service,
    otlpEndpoint: settings.OTEL_EXPORTER_OTLP_ENDPOINT,
  });
  metricsRegistry.setDefaultLabels({ service: options.service });
  reportScrapeFailuresTo(logger);
  const stopPool = options.db ? collectDbPoolMetrics(options.db) : () => undefined;
  if (options.clusterWorker) {
    // prom-client installs a worker's answer to the primary's requests only in the constructor.
    const answersPrimary = new AggregatorRegistry();
    void answersPrimary;
    AggregatorRegistry.setRegistries([metricsRegistry]);
    return {
      metricsUrl: undefined,
      async stop() {
        stopPool();
        await tracing.shutdown().catch(() => undefined);
      },
    };
  }
  const server = await startMetricsServer({
    port: settings.METRICS_PORT,
    host: settings.METRICS_HOST,
    logger,
  });
  // The bound address, not the loopback URL: an operator must see when /metrics is open beyond the machine.
  logger.info(`metrics listening on ${server.listening}`, {
    tracesExported: settings.OTEL_EXPORTER_OTLP_ENDPOINT ? settings.OTEL_EXPORTER_OTLP_ENDPOINT : false,
  });
  return {
    metricsUrl: server.url,
    async stop() {
      stopPool();
      await server.close();
      await tracing.shutdown().catch(() => undefined);
    },
  };
}

/** The primary of a node:cluster: /metrics serves every worker's registry, summed (gauges of the database: max). */
export async function startClusterMetrics(options: {
  settings: TelemetrySettings;
  logger: Logger;
}): Promise<{ metricsUrl: string; stop: () => Promise<void> }> {
  const aggregate = new AggregatorRegistry();
  const server = await startMetricsServer({
    port: options.settings.METRICS_PORT,
    host: options.settings.METRICS_HOST,
    logger: options.logger,
    render: async () => ({ contentType: aggregate.contentType, body: await aggregate.clusterMetrics() }),
  });
  options.logger.info(`metrics of the cluster's workers listening on ${server.listening}`);
  return { metricsUrl: server.url, stop: () => server.close() };
}
