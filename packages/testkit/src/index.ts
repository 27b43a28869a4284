// Test helpers. Apps never import each other, so a test that needs another app (a real auth-server for
// tokens, the Hacienda sandbox) starts it as its own process from the repository, exactly as `pnpm start` does.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { listensOn } from './port-owner';

export const REPO_ROOT = resolve(__dirname, '../../..');
export const SHARED_DIR = resolve(REPO_ROOT, '..', 'shared');

export function xsdDir(): string {
  return process.env.HACIENDA_XSD_DIR ?? join(SHARED_DIR, 'hacienda', 'xsd');
}

export function haciendaDataDir(): string {
  return process.env.HACIENDA_DATA_DIR ?? join(SHARED_DIR, 'hacienda', 'cabys');
}

export function samplesDir(): string {
  return process.env.HACIENDA_SAMPLES_DIR ?? join(SHARED_DIR, 'hacienda', 'samples');
}

/**
 * Whether an outside resource a test needs is present. Outside CI a missing one skips the test with a
 * message; under CI=true it is a failure, so CI can never pass by skipping.
 */
export function requireResource(what: string, present: boolean): boolean {
  if (present) return true;
  if (process.env.CI === 'true') throw new Error(`${what} is required under CI=true but is missing`);
  process.stderr.write(`skipping: ${what} is not available\n`);
  return false;
}

export function hasFile(path: string): boolean {
  return existsSync(path);
}

export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolvePort(port));
    });
  });
}

export interface AppProcess {
  url: string;
  port: number;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

export interface StartAppOptions {
  /** Directory name under apps/, e.g. 'auth-server'. */
  app: string;
  /** Name of the port setting the app reads, e.g. 'AUTH_PORT'. */
  portVar: string;
  env?: Record<string, string | undefined>;
  /** Path polled until it answers 200. */
  readyPath?: string;
  /** How often it is polled (default 100 ms). */
  pollMs?: number;
  timeoutMs?: number;
  /** Where each try's port comes from (default freePort). */
  choosePort?: () => Promise<number>;
}

/** Ports startApp tries before giving up: another process can take each one before the child binds it. */
const START_ATTEMPTS = 5;

/**
 * Starts `apps/<app>/src/main.ts` with tsx on a free port and waits until it is ready. The port is free when
 * chosen, not when the child binds it: where another process took it meanwhile (the child fails with
 * EADDRINUSE, or the ready answer came from a socket the child does not hold), it starts again on another.
 */
export async function startApp(options: StartAppOptions): Promise<AppProcess> {
  const main = join(REPO_ROOT, 'apps', options.app, 'src', 'main.ts');
  if (!existsSync(main)) throw new Error(`no app at ${main}`);
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  const taken: string[] = [];
  for (;;) {
    const started = await startOnPort(options, main, await (options.choosePort ?? freePort)(), deadline);
    if ('url' in started) return started;
    taken.push(started.taken);
    if (taken.length >= START_ATTEMPTS)
      throw new Error(
        `${options.app} found no free port in ${taken.length} tries (${taken.join('; ')}):\n${started.output}`,
      );
  }
}

async function startOnPort(
  options: StartAppOptions,
  main: string,
  port: number,
  deadline: number,
): Promise<AppProcess | { taken: string; output: string }> {
  const env: Record<string, string> = {};
  // The metrics listener on a free port too: several copies of an app run at once in tests.
  for (const [k, v] of Object.entries({ METRICS_PORT: '0', ...process.env, ...options.env }))
    if (v !== undefined) env[k] = v;
  env[options.portVar] = String(port);
  env.NODE_OPTIONS = '';
  const child = spawn(process.execPath, ['--import', 'tsx', main], {
    cwd: join(REPO_ROOT, 'apps', options.app),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const url = `http://127.0.0.1:${port}`;
  const readyPath = options.readyPath ?? '/health/ready';
  for (;;) {
    if (child.exitCode !== null) {
      if (out.includes('EADDRINUSE')) return { taken: `port ${port} was in use`, output: out };
      throw new Error(`${options.app} exited with ${child.exitCode}:\n${out}`);
    }
    try {
      const r = await fetch(url + readyPath);
      if (r.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${options.app} did not become ready in time:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, options.pollMs ?? 100));
  }
  if (child.pid !== undefined && listensOn(child.pid, port) === false) {
    child.kill('SIGKILL');
    await exited;
    return { taken: `another process answered on port ${port}`, output: out };
  }
  return {
    url,
    port,
    child,
    output: () => out,
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
  };
}
export { writePerformanceSection } from './performance-doc';
export { loadAverages } from './load-average';
export { rawSigningRate } from './raw-signing';
export { cpuModel } from './cpu-model';
export { widestLoopGap, type LoopGap } from './loop-gap';
export {
  childPids,
  machineCpuSeconds,
  mainThreadCpuSeconds,
  namedCpuSeconds,
  startOutsideCpu,
  treeCpuSeconds,
  type MachineCpu,
  type OutsideCpu,
} from './process-cpu';
export { QUIET_CORES, describeOtherWork, startOtherWork } from './other-work';
export {
  WITHOUT_IFMA,
  describeSigningPath,
  rawSigningRateOnThreads,
  signingPath,
  type SigningPath,
} from './signing-path';
export { processesHolding, removeTree } from './remove-tree';
export { latch, type Latch } from './latch';
export { reachable, whoReaches } from './loopback-only';
export { startTcpProxy, type TcpProxy } from './tcp-proxy';
