// Express plumbing shared by the services, in the order STYLE.md fixes: request id → helmet → JSON body with
// a size limit → (auth and routes, mounted by the service) → JSON 404 → error handler that never leaks.
import { randomUUID } from 'node:crypto';
import express, { type ErrorRequestHandler, type Express as ExpressApp, type RequestHandler } from 'express';
import helmet from 'helmet';
import { AppError, toHttpResponse } from './errors';
import { type HealthCheck, mountHealth } from './health';
import { jsonBody } from './json-body';
import type { Logger } from './logger';
import { redactString } from './redact';
import { runWithRequestContext } from './telemetry/context';
import { metrics } from './telemetry/metrics';
import { SpanKind, SpanStatusCode, contextFromTraceparent, tracer } from './telemetry/tracing';
import type { TrustProxySetting } from './trust-proxy';

declare global {
  namespace Express {
    interface Locals {
      requestId: string;
      log: Logger;
      /** The route label of the metrics when no express route matched (static files: '/app'). */
      metricsRoute?: string;
    }
  }
}

export interface HttpAppOptions {
  logger: Logger;
  /** Largest accepted JSON body, e.g. '16kb' or 262144. */
  bodyLimit?: string | number;
  /** Express `trust proxy` (`parseTrustProxy(TRUST_PROXY)`); only behind a gateway that sets X-Forwarded-*. */
  trustProxy?: TrustProxySetting;
  /** Readiness checks for /health/ready and /health (names only) and /health/details (reasons). */
  readiness?: Record<string, HealthCheck>;
  /** HEALTH_TOKEN: opens /health/details; unset → that route does not exist. */
  healthToken?: string | undefined;
  /** Middleware that must run before the JSON body parser (e.g. tenant resolution that refuses early). */
  beforeBody?: RequestHandler[];
  /** Mounts the service's routes. */
  routes: (app: ExpressApp) => void;
}

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/**
 * The route template a request matched ('/api/documentos/:clave'), so the metrics' label set stays bounded;
 * 'unmatched' for 404s and anything that no route took.
 */
function routeLabel(req: Parameters<RequestHandler>[0], res: Parameters<RequestHandler>[1]): string {
  const path = (req as { route?: { path?: unknown } }).route?.path;
  if (typeof path === 'string') return `${req.baseUrl}${path}`;
  return res.locals.metricsRoute ?? 'unmatched';
}

/**
 * The request's id (the caller's X-Request-Id when it looks safe, else a new one), its server span (the
 * caller's traceparent as parent), the context every later log line of the request reads its id from,
 * the access log line and the HTTP metrics.
 */
export function requestIdMiddleware(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    const requestId = incoming && SAFE_REQUEST_ID.test(incoming) ? incoming : `req_${randomUUID()}`;
    res.locals.requestId = requestId;
    res.locals.log = logger.child({ requestId });
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    const parent = contextFromTraceparent(req.get('traceparent'));
    tracer().startActiveSpan(
      `${req.method} request`,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': req.method, 'url.path': redactString(req.path) },
      },
      parent,
      (span) => {
        res.on('finish', () => {
          const seconds = Number(process.hrtime.bigint() - started) / 1e9;
          const route = routeLabel(req, res);
          const labels = { method: req.method, route, status: String(res.statusCode) };
          metrics.http.requests.inc(labels);
          metrics.http.duration.observe(labels, seconds);
          span.updateName(`${req.method} ${route}`);
          span.setAttribute('http.route', route);
          span.setAttribute('http.response.status_code', res.statusCode);
          span.setAttribute('request.id', requestId);
          if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
          // Below the logger's level (`http` under the default `info`) not even the line is built.
          const level = res.statusCode >= 500 ? 'error' : 'http';
          if (res.locals.log.isLevelEnabled(level)) {
            res.locals.log.log(level, 'request', {
              method: req.method,
              path: req.path,
              status: res.statusCode,
              ms: Math.round(seconds * 1e4) / 10,
            });
          }
        });
        runWithRequestContext({ requestId }, () => next());
      },
    );
  };
}

export function notFoundHandler(): RequestHandler {
  return (req, _res, next) => next(new AppError('not_found', `no route for ${req.method} ${req.path}`));
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const requestId = res.locals.requestId;
    const { status, body, headers } = toHttpResponse(err, requestId);
    const log = res.locals.log ?? logger;
    if (status >= 500) log.error('request failed', { err, method: req.method, path: req.path });
    else log.debug('request refused', { error: body.error, message: body.message });
    if (res.headersSent) return;
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    res.status(status).json(body);
  };
}

export function createHttpApp(options: HttpAppOptions): ExpressApp {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (options.trustProxy !== undefined) app.set('trust proxy', options.trustProxy);
  app.use(requestIdMiddleware(options.logger));
  app.use(helmet());
  mountHealth(app, options.readiness ?? {}, { detailsToken: options.healthToken });
  for (const mw of options.beforeBody ?? []) app.use(mw);
  app.use(jsonBody({ limit: options.bodyLimit ?? '100kb' }));
  options.routes(app);
  app.use(notFoundHandler());
  app.use(errorHandler(options.logger));
  return app;
}
