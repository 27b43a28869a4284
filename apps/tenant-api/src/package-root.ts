// The app's package directory (the one holding its package.json and migrations/), found by walking up from
// this file: the same answer whether it runs from src/ under tsx or bundled into dist/main.js (also in the
// container image, where the package lives at /app). Files read at run time are resolved from here, never
// from __dirname of a source file, whose depth differs once bundled.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const PACKAGE_NAME = '@cr/tenant-api';

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const name = (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name;
      if (name === PACKAGE_NAME) return dir;
    }
    if (dirname(dir) === dir) throw new Error(`package root of ${PACKAGE_NAME} not found above ${start}`);
  }
}

/** Absolute path of the app's package directory. */
export const PACKAGE_ROOT = findPackageRoot(__dirname);

/** The app's SQL migrations directory. */
export const MIGRATIONS_DIR = join(PACKAGE_ROOT, 'migrations');
