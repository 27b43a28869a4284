import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'tsup';
import { appBundle } from '../../infra/docker/tsup.config.base';

// The dashboard's built files (packages/dashboard, built first by turbo's ^build) go beside the bundle, as
// dist/dashboard: the image has no workspace to find them in, and /app serves them from there.
const DASHBOARD = join(__dirname, '..', '..', 'packages', 'dashboard', 'dist');

// The worker threads are files of their own beside main.js (P12Pool starts dist/p12-worker.js, the
// ReceivedXmlPool dist/received-xml-worker.js).
export default defineConfig(
  appBundle({
    entry: {
      main: 'src/main.ts',
      'p12-worker': 'src/emisor/p12-worker.ts',
      'received-xml-worker': 'src/recepcion/received-xml-worker.ts',
    },
    async onSuccess() {
      if (!existsSync(join(DASHBOARD, 'index.html'))) {
        throw new Error('packages/dashboard/dist is missing: build it first (turbo run build does)');
      }
      cpSync(DASHBOARD, join(__dirname, 'dist', 'dashboard'), { recursive: true });
    },
  }),
);
