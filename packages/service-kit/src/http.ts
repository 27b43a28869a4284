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
      /** The template of the route the request matched, recorded as it matched (recordRouteTemplate). */
      routeTemplate?: string;
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
 * Records the template of each route the request matches ('/api/documentos/:clave') at the moment the router
 * sets `req.route`, while `req.baseUrl` still holds the mount path: an error leaves the sub-router before the
 * error handler answers, and the router then resets `req.baseUrl`, so read at `finish` a refused request's
 * template would lose its '/api' and be counted under another label than the same route's successes.
 */
function recordRouteTemplate(req: Parameters<RequestHandler>[0], res: Parameters<RequestHandler>[1]): void {
  let route: unknown;
  Object.defineProperty(req, 'route', {
    configurable: true,
    enumerable: true,
    get: () => route,
    set(value: unknown) {
      route = value;
      const path = (value as { path?: unknown } | undefined)?.path;
      if (typeof path === 'string') res.locals.routeTemplate = `${req.baseUrl}${path}`;
    },
  });
}

/** The label of the metrics: the route template, so the label set stays bounded; 'unmatched' for 404s. */
function routeLabel(res: Parameters<RequestHandler>[1]): string {
  return res.locals.routeTemplate ?? res.locals.metricsRoute ?? 'unmatched';
}

/** nginx's status for a request whose client went away before the answer was sent (a gateway's time-out too). */
const CLIENT_CLOSED = 499;

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
    recordRouteTemplate(req, res);
    // Read now: inside a mounted router `req.path` loses the mount path, and an answer may finish there.
    const path = req.path;
    const started = process.hrtime.bigint();
    const parent = contextFromTraceparent(req.get('traceparent'));
    tracer().startActiveSpan(
      `${req.method} request`,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': req.method, 'url.path': redactString(path) },
      },
      parent,
      (span) => {
        // 'close' follows 'finish' for every answer, and comes alone when the client left first: each
        // request is recorded once, that one as 499.
        let recorded = false;
        const record = () => {
          if (recorded) return;
          recorded = true;
          const clientClosed = !res.writableFinished;
          const status = clientClosed ? CLIENT_CLOSED : res.statusCode;
          const seconds = Number(process.hrtime.bigint() - started) / 1e9;
          const route = routeLabel(res);
          const labels = { method: req.method, route, status: String(status) };
          metrics.http.requests.inc(labels);
          metrics.http.duration.observe(labels, seconds);
          span.updateName(`${req.method} ${route}`);
          span.setAttribute('http.route', route);
          span.setAttribute('http.response.status_code', status);
          span.setAttribute('request.id', requestId);
          if (clientClosed)
            span.setStatus({ code: SpanStatusCode.ERROR, message: 'client closed the request' });
          else if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
          // Below the logger's level (`http` under the default `info`) not even the line is built. A request
          // abandoned midway (often the gateway's time-out) is a warning: its work may still be running.
          const level = status >= 500 ? 'error' : clientClosed ? 'warn' : 'http';
          if (res.locals.log.isLevelEnabled(level)) {
            res.locals.log.log(level, 'request', {
              method: req.method,
              path,
              status,
              ms: Math.round(seconds * 1e4) / 10,
              ...(clientClosed ? { clientClosed: true } : {}),
            });
          }
        };
        res.on('finish', record);
        res.on('close', record);
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
    if (status >= 500) {
      // The route's template and the tenant (the tenant-api's, from the host) when known: the line an
      // alert on a route's 5xx or a tenant's complaint is searched by.
      const { routeTemplate, tenantId } = res.locals;
      log.error('request failed', {
        err,
        method: req.method,
        path: req.path,
        ...(routeTemplate ? { route: routeTemplate } : {}),
        ...(typeof tenantId === 'string' ? { tenantId } : {}),
      });
    } else log.debug('request refused', { error: body.error, message: body.message });
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
