// Starts a worker thread from its bundle beside main.js (`dist/<name>.js` in the image and under `pnpm start`)
// or, when there is none (tests, tsx), from its TypeScript source through tsx.
import { existsSync } from 'node:fs';
import { Worker, type WorkerOptions } from 'node:worker_threads';

export interface WorkerScript {
  built: string;
  source: string;
}

export function startWorkerThread(script: WorkerScript, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  if (existsSync(script.built)) return new Worker(script.built, options);
  const tsx = require.resolve('tsx/cjs/api');
  return new Worker(
    `require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(script.source)});`,
    {
      ...options,
      eval: true,
    },
  );
}
