// The observability settings every service reads (docs/configuration.md): where /metrics listens and where
// traces go.
import { Type } from '@sinclair/typebox';

export function telemetrySettingsProperties(defaultMetricsPort: number) {
  return {
    /** Port of GET /metrics (Prometheus), separate from the public one; 0 picks a free port. */
    METRICS_PORT: Type.Integer({ default: defaultMetricsPort, minimum: 0, maximum: 65535 }),
    /**
     * Loopback unless asked, like the public listener (docs/security.md item 12): the images set 0.0.0.0 so
     * Prometheus can scrape them through the container network.
     */
    METRICS_HOST: Type.String({ default: '127.0.0.1' }),
    /** OTLP/HTTP collector (e.g. http://otel-collector:4318); unset → traces are not exported. */
    OTEL_EXPORTER_OTLP_ENDPOINT: Type.Optional(Type.String({ format: 'uri' })),
  };
}
