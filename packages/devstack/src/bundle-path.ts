// App bundles run from the workspace (`pnpm start`, the bench stacks): building them, and where they find
// their third-party packages. The bundles (tsup, infra/docker/tsup.config.base.ts) keep them external; the
// images deploy them hoisted beside the bundle.
// In the workspace an app's node_modules holds only its direct dependencies, not those of the workspace
// packages bundled into it, but pnpm keeps every installed package hoisted in node_modules/.pnpm/node_modules.
import { spawnSync } from 'node:child_process';
import { delimiter, join } from 'node:path';

/**
 * Builds the apps' bundles with turbo, as the images and the bundle check do: their workspace packages and
 * the dashboard (which the tenant-api's bundle carries as dist/dashboard) first; turbo replays its cache when
 * nothing changed. Its output goes to this process's; returns whether the build succeeded.
 */
export function buildAppBundles(repoRoot: string, apps: string[]): boolean {
  const filters = ['@cr/dashboard', ...apps.map((app) => `@cr/${app}`)].flatMap((f) => ['--filter', f]);
  const built = spawnSync(
    join(repoRoot, 'node_modules', '.bin', 'turbo'),
    ['run', 'build', ...filters, '--output-logs=errors-only'],
    { cwd: repoRoot, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  return built.status === 0;
}

/** NODE_PATH for `node dist/main.js` in the workspace at `repoRoot`; an inherited NODE_PATH is kept after it. */
export function bundleNodePath(repoRoot: string, inherited?: string): string {
  const hoisted = join(repoRoot, 'node_modules', '.pnpm', 'node_modules');
  return inherited ? `${hoisted}${delimiter}${inherited}` : hoisted;
}
