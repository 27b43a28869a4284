import { defineConfig } from 'tsup';
import { appBundle } from '../../infra/docker/tsup.config.base';

// The .p12 worker thread is its own file beside main.js (P12Pool starts dist/p12-worker.js).
export default defineConfig(
  appBundle({ entry: { main: 'src/main.ts', 'p12-worker': 'src/emisor/p12-worker.ts' } }),
);
