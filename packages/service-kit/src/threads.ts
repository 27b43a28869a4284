// Starts the process's worker threads: from a bundle beside main.js (`dist/<name>.js` in the image and under
// `pnpm start`), from the TypeScript source through tsx when there is none (tests, tsx), or from inline
// JavaScript.
//
// Each thread states its young generation (ADR 0044). V8 applies `--max-semi-space-size`, which NODE_OPTIONS
// sets for the main thread (ADR 0031), to every isolate the process creates, and the flag wins over a
// Worker's `resourceLimits.maxYoungGenerationSizeMb`: under it the embedded database's thread had 4 MB
// semi-spaces where it asks for a 2 MB young generation. The flag is cleared before the first thread starts;
// the main isolate, created already, keeps the size it was created with.
import { existsSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { type ResourceLimits, Worker, type WorkerOptions } from 'node:worker_threads';

export type WorkerScript = { built: string; source: string } | { inline: string };

export interface ThreadOptions extends Omit<WorkerOptions, 'eval' | 'resourceLimits'> {
  resourceLimits: ResourceLimits & { maxYoungGenerationSizeMb: number };
}

/**
 * The young generation ADR 0031 gives the main thread (4 MB semi-spaces; V8 counts three of them), for a
 * thread whose work allocates as a request's does (a .p12's key derivation, a supplier's XML).
 */
export const REQUEST_YOUNG_GENERATION_MB = 12;

/**
 * The young generation of a thread whose own garbage is its messages (a statement and its rows, a hash): V8's
 * throughput default (tens of MB of semi-spaces) would only hold garbage there. For the embedded database's
 * thread, 2 MB kept the process's RSS 28 MB lower and ran 3,000 transactions no slower (ADR 0039).
 */
export const MESSAGE_YOUNG_GENERATION_MB = 2;

let semiSpaceFlagCleared = false;

export function startWorkerThread(script: WorkerScript, options: ThreadOptions): Worker {
  if (!semiSpaceFlagCleared) {
    // 0 is the flag's default: each new isolate is sized by its own resource limits.
    setFlagsFromString('--max-semi-space-size=0');
    semiSpaceFlagCleared = true;
  }
  if ('inline' in script) return new Worker(script.inline, { ...options, eval: true });
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
