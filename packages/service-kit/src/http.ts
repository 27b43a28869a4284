// Express plumbing shared by the services, in the order STYLE.md fixes: request id → helmet → JSON body with
// a size limit → (auth and routes, mounted by the service) → JSON 404 → error handler that never leaks.
import { randomUUID } from 'node:crypto';
import express, { type ErrorRequestHandler, type Express as ExpressApp, type RequestHandler } from 'express';
import helmet from 'helmet';
import { AppError, toHttpResponse } from './errors';
import { type HealthCheck, mountHealth } from './health';
import type { Logger } from './logger';
import type { TrustProxySetting } from './trust-proxy';

declare global {
  namespace Express {
    interface Locals {
      requestId: string;
      log: Logger;
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

export function requestIdMiddleware(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    const requestId = incoming && SAFE_REQUEST_ID.test(incoming) ? incoming : `req_${randomUUID()}`;
    res.locals.requestId = requestId;
    res.locals.log = logger.child({ requestId });
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      res.locals.log.log(res.statusCode >= 500 ? 'error' : 'http', 'request', {
        method: req.method,
        path: req.path,
        status: res.statusCode,
        ms: Math.round(ms * 10) / 10,
      });
    });
    next();
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
  app.use(express.json({ limit: options.bodyLimit ?? '100kb', strict: true }));
  options.routes(app);
  app.use(notFoundHandler());
  app.use(errorHandler(options.logger));
  return app;
}
