// OpenTelemetry traces. A tracer provider is always registered, so every log line can name its trace and
// span; spans leave the process only when an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT), or
// to the exporter a test passes. Spans are made by hand at the four boundaries that matter (HTTP request,
// job run, database statement, Hacienda call) instead of by monkey-patching instrumentations, which do not
// survive the bundled apps.
import {
  type Attributes,
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  context,
  propagation,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { redactString } from '../redact';

export interface TracingOptions {
  service: string;
  /** OTLP/HTTP base URL (…/v1/traces is added); unset → no export. */
  otlpEndpoint?: string | undefined;
  /** A test's exporter (spans exported one by one, synchronously). */
  exporter?: SpanExporter;
}

export interface Tracing {
  /** Flushes and stops the exporter. */
  shutdown(): Promise<void>;
}

const TRACER = 'cr-einvoice';
let provider: NodeTracerProvider | undefined;

/** Registers the process's tracer provider (once: a second call returns the first's). */
export function startTracing(options: TracingOptions): Tracing {
  if (!provider) {
    const processors: SpanProcessor[] = [];
    if (options.exporter) processors.push(new SimpleSpanProcessor(options.exporter));
    if (options.otlpEndpoint) {
      const url = `${options.otlpEndpoint.replace(/\/+$/, '')}/v1/traces`;
      processors.push(new BatchSpanProcessor(new OTLPTraceExporter({ url })));
    }
    provider = new NodeTracerProvider({
      resource: resourceFromAttributes({ 'service.name': options.service }),
      spanProcessors: processors,
    });
    provider.register({ propagator: new W3CTraceContextPropagator() });
  }
  const registered = provider;
  return { shutdown: () => registered.shutdown() };
}

export function tracer() {
  return trace.getTracer(TRACER);
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** Parent other than the active context (a job continuing the request that enqueued it). */
  parent?: Context;
}

/** Runs `fn` inside a new span that ends with it; a thrown error marks the span and is rethrown. */
export async function withSpan<T>(
  name: string,
  options: SpanOptions,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = options.parent ?? context.active();
  return tracer().startActiveSpan(
    name,
    {
      kind: options.kind ?? SpanKind.INTERNAL,
      ...(options.attributes ? { attributes: options.attributes } : {}),
    },
    parent,
    async (span) => {
      try {
        return await fn(span);
      } catch (err) {
        recordSpanError(span, err);
        throw err;
      } finally {
        span.end();
      }
    },
  );
}

/**
 * Marks `span` failed by `err`: an exception event and ERROR status. The message and stack are redacted as
 * log lines are, because spans leave the process too (OTLP) and an error's text can quote a token.
 */
export function recordSpanError(span: Span, err: unknown): void {
  if (err instanceof Error) {
    span.recordException({
      name: err.name,
      message: redactString(err.message),
      ...(err.stack ? { stack: redactString(err.stack) } : {}),
    });
  } else {
    span.recordException(redactString(String(err)));
  }
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.name : 'error' });
}

/** The active span's W3C `traceparent`, to store with work that continues later (a job). */
export function currentTraceparent(): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** A context whose parent is `traceparent` (from a header or a stored job), or the root. */
export function contextFromTraceparent(traceparent: string | undefined): Context {
  if (!traceparent) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, { traceparent });
}

/** Adds `traceparent` of the active span to outgoing headers. */
export function injectTraceHeaders(headers: Record<string, unknown>): void {
  propagation.inject(context.active(), headers, {
    set: (carrier, key, value) => {
      (carrier as Record<string, unknown>)[key] = value;
    },
  });
}

/** Trace and span ids of the active span, for log lines. */
export function activeTraceIds(): { traceId: string; spanId: string } | undefined {
  const span = trace.getActiveSpan();
  if (!span) return undefined;
  const { traceId, spanId, traceFlags } = span.spanContext();
  if (!traceId || /^0+$/.test(traceId)) return undefined;
  void traceFlags;
  return { traceId, spanId };
}

export { SpanKind, SpanStatusCode };
export type { Span, Context };
