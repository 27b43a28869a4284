// The dashboard's files at /app (packages/dashboard, built by Vite): every asset from this service, none
// from a CDN. Hashed assets are cached for a year; any other path under /app is the single page (its router
// reads the path), never cached so a new build is picked up at once. Found beside the bundle in an image
// (dist/dashboard, copied by the tenant-api's build) or in the workspace (packages/dashboard/dist).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '@cr/service-kit';
import express, { Router } from 'express';
import { PACKAGE_ROOT } from '../package-root';

/** Where the built dashboard is, or undefined when it has not been built. */
export function findDashboardDir(): string | undefined {
  return [
    join(PACKAGE_ROOT, 'dist', 'dashboard'),
    join(PACKAGE_ROOT, '..', '..', 'packages', 'dashboard', 'dist'),
  ].find((dir) => existsSync(join(dir, 'index.html')));
}

export function dashboardRouter(dir: string | undefined): Router {
  const router = Router();
  if (!dir) {
    router.use((req, _res, next) => {
      if (req.method !== 'GET' && req.method !== 'HEAD') return next();
      next(
        new AppError(
          'service_unavailable',
          'the dashboard is not built: run pnpm --filter @cr/dashboard build',
        ),
      );
    });
    return router;
  }
  router.use(
    '/assets',
    express.static(join(dir, 'assets'), {
      index: false,
      fallthrough: false,
      immutable: true,
      maxAge: '365d',
    }),
  );
  const index = join(dir, 'index.html');
  router.use((req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index);
  });
  return router;
}
