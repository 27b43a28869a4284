// The dashboard's build: one hashed JS and CSS file under /app/assets, served by the tenant-api (no CDN).
// Preact's automatic JSX runtime through esbuild; no dev-server plugin is needed for a production build.
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/app/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, target: 'es2022', assetsInlineLimit: 0 },
});
