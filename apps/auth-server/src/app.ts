// The auth-server's HTTP app: login, JWKS, logout, revocation list, admin API, health, API docs. Never listens.
import express, { type Express } from 'express';
import { buildAuthServerOpenApi } from '@cr/contracts';
import { createHttpApp } from '@cr/service-kit';
import { mountAdmin } from './routes/admin';
import { docsRouter } from '@cr/service-kit';
import { mountLogin } from './routes/login';
import { mountLogout } from './routes/logout';
import { mountJwks, mountPublic } from './routes/public';
import type { AuthServices } from './services';

/**
 * The database probe for readiness, stale-while-revalidate: under a login flood the embedded database's
 * single session is queued with login queries, and a probe waiting in that queue would make /health slow
 * exactly when it matters. The last result (at most a few seconds old) answers at once while a fresh
 * probe runs behind it; the very first probe is awaited.
 */
function createDatabaseProbe(s: AuthServices): () => Promise<string | undefined> {
  let last: { at: number; result: string | undefined } | undefined;
  let running: Promise<string | undefined> | undefined;
  const probe = () => {
    running ??= s.db
      .ping()
      .then(
        () => undefined,
        (err: unknown) => (err instanceof Error ? err.message : 'unreachable'),
      )
      .then((result) => {
        last = { at: Date.now(), result };
        running = undefined;
        return result;
      });
    return running;
  };
  return async () => {
    const now = Date.now();
    if (last && now - last.at < 5000) {
      if (now - last.at > 1000) void probe();
      return last.result;
    }
    return probe();
  };
}

export function createApp(s: AuthServices): Express {
  // The JWKS is the hot path of every verifier and a static public document: it is answered before the
  // per-request plumbing (request id, child logger, helmet), with the one header that matters for it.
  const outer = express();
  outer.disable('x-powered-by');
  outer.set('etag', false);
  mountJwks(outer, s);
  const database = createDatabaseProbe(s);
  const inner = createHttpApp({
    logger: s.logger,
    bodyLimit: '16kb',
    ...(s.trustProxy !== undefined ? { trustProxy: s.trustProxy } : {}),
    healthToken: s.healthToken,
    readiness: {
      database,
      signingKey: () => (s.keys.currentKey() ? undefined : 'no signing key loaded'),
    },
    routes: (app) => {
      mountPublic(app, s);
      mountLogin(app, s);
      mountLogout(app, s);
      mountAdmin(app, s);
      app.use(docsRouter(buildAuthServerOpenApi(), 'auth-server'));
    },
  });
  outer.use(inner);
  // express hides a mounted app inside a closure; listed here so a route walker (the OpenAPI coverage
  // test) can see the inner app's routes too.
  outer.locals.mountedApps = [inner];
  return outer;
}
