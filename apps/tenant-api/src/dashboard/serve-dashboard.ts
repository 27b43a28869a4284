// The dashboard's files at /app (packages/dashboard, built by Vite): every asset from this service, none
// from a CDN. Hashed assets are cached for a year; any other path under /app is the single page (its router
// reads the path), never cached so a new build is picked up at once. Found in the workspace
// (packages/dashboard/dist) or, in an image, beside the bundle (dist/dashboard, copied by the tenant-api's build).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '@cr/service-kit';
import express, { Router } from 'express';
import { PACKAGE_ROOT } from '../package-root';

/** Where the built dashboard is, or undefined when it has not been built. */
export function findDashboardDir(): string | undefined {
  // The workspace's build first: in a checkout it is the fresh one (dist/dashboard is only the copy the last
  // tenant-api build made); an image has no workspace and uses its copy.
  return [
    join(PACKAGE_ROOT, '..', '..', 'packages', 'dashboard', 'dist'),
    join(PACKAGE_ROOT, 'dist', 'dashboard'),
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
