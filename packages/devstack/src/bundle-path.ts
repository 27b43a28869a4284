// Where an app bundle run from the workspace finds its third-party packages. The bundles (tsup,
// infra/docker/tsup.config.base.ts) keep them external; the images deploy them hoisted beside the bundle.
// In the workspace an app's node_modules holds only its direct dependencies, not those of the workspace
// packages bundled into it, but pnpm keeps every installed package hoisted in node_modules/.pnpm/node_modules.
import { delimiter, join } from 'node:path';

/** NODE_PATH for `node dist/main.js` in the workspace at `repoRoot`; an inherited NODE_PATH is kept after it. */
export function bundleNodePath(repoRoot: string, inherited?: string): string {
  const hoisted = join(repoRoot, 'node_modules', '.pnpm', 'node_modules');
  return inherited ? `${hoisted}${delimiter}${inherited}` : hoisted;
}
