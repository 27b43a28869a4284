// The published package: ESM (.mjs) and CommonJS (.cjs) with their type declarations, one entry for the
// client and one for the Node-only localhost fetch. Nothing is bundled from node_modules: it needs none.
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', localhost: 'src/localhost.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  target: 'node20',
  platform: 'neutral',
  external: ['node:http', 'node:https'],
  sourcemap: true,
  clean: true,
  treeshake: true,
  outExtension: ({ format }) => ({ js: format === 'esm' ? '.mjs' : '.cjs' }),
});
