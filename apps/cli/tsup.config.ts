// One self-contained CommonJS file with a shebang: the SDK is bundled in, so `dist/cr.cjs` runs with node
// alone (it is what the package's `bin` points at and what the tests start as a child process).
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { cr: 'src/main.ts' },
  format: ['cjs'],
  target: 'node20',
  platform: 'node',
  noExternal: ['@cr-einvoice/sdk'],
  banner: { js: '#!/usr/bin/env node' },
  outExtension: () => ({ js: '.cjs' }),
  clean: true,
  sourcemap: true,
});
