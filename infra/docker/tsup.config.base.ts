// Shared bundling settings for the apps' container builds. An app's `tsup.config.ts` is:
//
//   import { defineConfig } from 'tsup';
//   import { appBundle } from '../../infra/docker/tsup.config.base';
//   export default defineConfig(appBundle());
//
// and its package.json gets `"build": "tsup"` (tsup as a devDependency). Output: dist/main.js (CommonJS).
// Internal packages (@cr/*) are TypeScript source, so they are bundled into main.js. Every third-party
// package stays external and is loaded at run time from the node_modules that `pnpm deploy --prod` installs
// (hoisted, see the Dockerfiles): native addons (argon2), WASM (PGlite) and packages that read their own
// files keep working. Files an app reads at run time (migrations, templates) must be found relative to the
// package root, not to __dirname of a source file: the bundle lives in dist/.

import { join } from 'node:path';

interface ResolveArgs {
  path: string;
}
interface PluginBuild {
  onResolve(
    options: { filter: RegExp },
    callback: (args: ResolveArgs) => { path: string; external: boolean } | undefined,
  ): void;
}

/** esbuild plugin: every bare import that is not @cr/* is external. */
export const externalThirdParty = {
  name: 'external-third-party',
  setup(build: PluginBuild): void {
    build.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@cr/') ? undefined : { path: args.path, external: true },
    );
  },
};

/**
 * Only the bundle's own source map is loaded (ADR 0032). `node --enable-source-maps` parses and keeps the
 * map of every module that names one, and the third-party packages we load ship theirs with their sources
 * inside (fontkit, PGlite, xml-crypto, OpenTelemetry…): 6.3 MB of the tenant-api's heap at rest, for stack
 * frames inside libraries that are readable JavaScript anyway. The banner turns maps off before the first
 * require; the footer turns them back on once the bundle's top level has run. main.js's own map was loaded
 * when Node compiled it, so our frames still name the TypeScript lines. A process started without
 * --enable-source-maps is left as it was. Node ≥ 20.7 (`process.sourceMapsEnabled`); older ones skip it.
 * The banner repeats "use strict": a statement before esbuild's own directive would make it a no-op.
 */
export const LIBRARY_SOURCE_MAPS_OFF = {
  banner: {
    js: '"use strict";\nconst __crLibraryMapsOff = process.sourceMapsEnabled === true;\nif (__crLibraryMapsOff) process.setSourceMapsEnabled(false);',
  },
  footer: { js: 'if (__crLibraryMapsOff) process.setSourceMapsEnabled(true);' },
};

/**
 * The thread that runs an app's embedded PGlite (ADR 0039) is a file of its own beside main.js: every app that
 * opens a database bundles it, whatever entries it adds.
 */
export const PGLITE_WORKER_ENTRY = {
  'pglite-worker': join(__dirname, '..', '..', 'packages', 'service-kit', 'src', 'db', 'pglite-worker.ts'),
};

export function appBundle(overrides: { entry?: Record<string, string> } & Record<string, unknown> = {}) {
  return {
    outDir: 'dist',
    format: ['cjs'] as 'cjs'[],
    platform: 'node' as const,
    target: 'node20',
    sourcemap: true,
    // A map names our TypeScript files and lines without holding their text: Node keeps the bundle's map parsed
    // for as long as the process runs, and the sources inside it were 1.5 MB of the tenant-api's heap (ADR 0032).
    esbuildOptions(options: { sourcesContent?: boolean }) {
      options.sourcesContent = false;
    },
    clean: true,
    splitting: false,
    // tsup would otherwise leave @cr/* external (they are dependencies) and bundle their third-party imports.
    noExternal: [/^@cr\//],
    esbuildPlugins: [externalThirdParty],
    ...LIBRARY_SOURCE_MAPS_OFF,
    ...overrides,
    entry: { main: 'src/main.ts', ...PGLITE_WORKER_ENTRY, ...overrides.entry },
  };
}
