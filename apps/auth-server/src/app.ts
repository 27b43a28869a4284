// The auth-server's HTTP app: login, JWKS, logout, revocation list, admin API, health. Never listens.
import type { Express } from 'express';
import { createHttpApp } from '@cr/service-kit';
import { mountAdmin } from './routes/admin';
import { mountLogin } from './routes/login';
import { mountLogout } from './routes/logout';
import { mountPublic } from './routes/public';
import type { AuthServices } from './services';

export function createApp(s: AuthServices): Express {
  return createHttpApp({
    logger: s.logger,
    bodyLimit: '16kb',
    ...(s.trustProxy !== undefined ? { trustProxy: s.trustProxy } : {}),
    readiness: {
      database: async () => {
        await s.db.query('SELECT 1');
        return undefined;
      },
      signingKey: () => (s.keys.currentKey() ? undefined : 'no signing key loaded'),
    },
    routes: (app) => {
      mountPublic(app, s);
      mountLogin(app, s);
      mountLogout(app, s);
      mountAdmin(app, s);
    },
  });
}
