// Proves each app's container build runs (pnpm --filter @cr/e2e check:bundles; also part of check:infra):
//   1. `pnpm --filter <app> build` (tsup, infra/docker/tsup.config.base.ts) → apps/<app>/dist/main.js;
//   2. `pnpm deploy --prod` of the app exactly as its Dockerfile does, then an image-like directory holding
//      only what the Dockerfile's runtime stage copies from /out (package.json, node_modules, dist, …);
//   3. `node dist/main.js` there, as the image's CMD, with NODE_ENV=production, the embedded database in a
//      temporary DATA_DIR and a free port, until /health/live answers 200 (and, for the tenant-api, the
//      dashboard's page and assets at /app; for the auth-server, a client created and logged in, which
//      runs argon2 on its threads); then SIGTERM, which must end it cleanly (exit code 0).
// No Docker needed: this catches what breaks only once bundled (a file read relative to a source file, a
// dependency missing from the production install, a native addon or WASM file not found).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort, haciendaDataDir, xsdDir } from '@cr/testkit';

const REPO = resolve(__dirname, '../../..');

interface AppBundle {
  app: string;
  portVar: string;
  /** Settings beyond port, DATA_DIR and NODE_ENV=production that the app needs to start. */
  env: () => Record<string, string>;
  /** What else the running image must serve; a problem's description, or undefined. */
  probe?: (port: number) => Promise<string | undefined>;
  /**
   * Worker-thread bundles beside main.js that must load in the image (each says it is ready). Not
   * dist/pglite-worker.js: every app opens its embedded database through it, so the app starting proves it.
   */
  threads?: string[];
}

/** A GET on 127.0.0.1 with a Host header of our choosing (fetch will not send one). */
function getWithHost(port: number, host: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => {
        body += d.toString();
      });
      res.on('end', () => done({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', fail);
    req.end();
  });
}

/**
 * A worker thread's bundle started in the image directory, as the app starts it, until it posts
 * `{ ready: true }`: its own requires resolve against the image's node_modules only.
 */
async function probeThread(image: string, file: string): Promise<string | undefined> {
  const script = `const { Worker } = require('node:worker_threads');
const w = new Worker(${JSON.stringify(join(image, 'dist', file))});
w.once('message', (m) => { if (!m || m.ready !== true) process.exit(3); w.terminate().then(() => process.exit(0)); });
w.once('error', (e) => { console.error(e && e.message); process.exit(2); });
setTimeout(() => process.exit(4), 60000);`;
  const r = await run(process.execPath, ['-e', script], image);
  return r.code === 0
    ? undefined
    : `dist/${file} did not load as a worker thread (exit ${r.code}): ${r.output}`;
}

/** The dashboard's page and every asset it names, from the image's dist/dashboard, on a tenant's host. */
async function probeDashboard(port: number): Promise<string | undefined> {
  const host = `acme.localhost:${port}`;
  const page = await getWithHost(port, host, '/app/');
  if (page.status !== 200) return `GET /app/ answered ${page.status}: ${page.body.slice(0, 200)}`;
  const assets = [...page.body.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+)"/g)].map((m) => m[1] as string);
  if (assets.length < 2)
    return `GET /app/ names ${assets.length} assets under /app/assets (a script and a stylesheet expected)`;
  for (const asset of assets) {
    const r = await getWithHost(port, host, asset);
    if (r.status !== 200) return `GET ${asset} answered ${r.status}`;
  }
  return undefined;
}

const secretsKey = () => `k1:${randomBytes(32).toString('base64')}`;

const authAdminToken = randomBytes(24).toString('base64url');

/**
 * A client created and logged in through the image: its password is hashed and verified by the argon2
 * threads, which load @node-rs/argon2 (a native addon) from the deployed node_modules only on first use.
 */
async function probeLogin(port: number): Promise<string | undefined> {
  const url = `http://127.0.0.1:${port}`;
  const password = randomBytes(18).toString('base64url');
  const created = await fetch(`${url}/admin/clients`, {
    method: 'POST',
    headers: { authorization: `Bearer ${authAdminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ base: 'bundle-check', password }),
  });
  if (created.status !== 201)
    return `POST /admin/clients answered ${created.status}: ${await created.text()}`;
  const login = await fetch(`${url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ base: 'bundle-check', password }),
  });
  const body = await login.text();
  if (login.status !== 200 || !/"token":"ey/.test(body))
    return `POST /login answered ${login.status}: ${body}`;
  return undefined;
}

/**
 * A throwaway CA for HACIENDA_CA_BUNDLE, which the tenant-api requires in production (answers from Hacienda
 * are not checked here; the setting only has to name a readable CA bundle).
 */
function throwawayCaBundle(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'bundle-ca-')), 'ca.pem');
  const made = spawnSync('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    '/dev/null',
    '-subj',
    '/CN=bundle check CA',
    '-days',
    '2',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-out',
    file,
  ]);
  if (made.status !== 0) throw new Error(`openssl could not make a CA: ${made.stderr?.toString()}`);
  return file;
}

export const APP_BUNDLES: AppBundle[] = [
  {
    app: 'auth-server',
    portVar: 'AUTH_PORT',
    env: () => ({ SECRETS_KEY: secretsKey(), AUTH_ADMIN_TOKEN: authAdminToken }),
    probe: probeLogin,
  },
  {
    app: 'tenant-api',
    portVar: 'TENANT_PORT',
    // Nothing listens there: the app starts and retries the keys on demand (readiness says so, liveness not).
    env: () => ({
      SECRETS_KEY: secretsKey(),
      AUTH_JWKS_URL: 'http://127.0.0.1:9/.well-known/jwks.json',
      PUBLIC_URL: 'http://callbacks.api.localtest',
      PROVEEDOR_SISTEMAS: '3101123456',
      HACIENDA_DATA_DIR: haciendaDataDir(),
      HACIENDA_CA_BUNDLE: throwawayCaBundle(),
    }),
    probe: probeDashboard,
    threads: ['p12-worker.js', 'received-xml-worker.js'],
  },
  {
    app: 'hacienda-sandbox',
    portVar: 'SANDBOX_PORT',
    env: () => ({ HACIENDA_XSD_DIR: xsdDir(), HACIENDA_DATA_DIR: haciendaDataDir() }),
  },
];

interface Outcome {
  ok: boolean;
  lines: string[];
}

interface Run {
  code: number | null;
  output: string;
}

function run(cmd: string, args: string[], cwd: string): Promise<Run> {
  return new Promise((done) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, NODE_OPTIONS: '' } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.on('error', (err) => done({ code: -1, output: `${output}${err.message}` }));
    child.on('exit', (code) => done({ code, output }));
  });
}

/** What the Dockerfile's runtime stage copies from the deploy output: `COPY --from=build /out/<x> ./<x>`. */
export function runtimeCopies(dockerfile: string): string[] {
  return [...dockerfile.matchAll(/^COPY --from=build \/out\/(\S+)\s/gm)].map((m) => m[1] as string);
}

/** The `pnpm … deploy …` flags of the Dockerfile (between `pnpm` and the /out target), so both agree. */
export function deployArgs(dockerfile: string, app: string): string[] {
  const line = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .find((l) => l.includes(`--filter @cr/${app} --prod deploy`));
  const m = line?.match(/pnpm (--filter \S+ --prod deploy[^\n]*?) \/out\b/);
  if (!m?.[1]) throw new Error(`${app}.Dockerfile: no "pnpm --filter @cr/${app} --prod deploy … /out" line`);
  // The store is the build stage's cache mount; here pnpm's own store is the right one.
  return m[1].split(/\s+/).filter((a, i, all) => a !== '--store-dir' && all[i - 1] !== '--store-dir');
}

async function waitLive(url: string, child: ChildProcess, timeoutMs: number): Promise<string | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) return `exited with ${child.exitCode} before answering`;
    try {
      const r = await fetch(`${url}/health/live`);
      if (r.status === 200) return undefined;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) return `no 200 from /health/live within ${timeoutMs} ms`;
    await new Promise((r) => setTimeout(r, 100));
  }
}

function stop(child: ChildProcess, timeoutMs: number): Promise<number | null | 'timeout'> {
  return new Promise((done) => {
    if (child.exitCode !== null) return done(child.exitCode);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      done('timeout');
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      done(code);
    });
    child.kill('SIGTERM');
  });
}

/**
 * A bundle's source map names our TypeScript files, so stack traces in the logs do, without carrying their
 * text: Node keeps the map for the life of the process (ADR 0032). A problem's description, or undefined.
 */
export function bundleMapProblem(mapFile: string): string | undefined {
  const map = JSON.parse(readFileSync(mapFile, 'utf8')) as { sources?: string[]; sourcesContent?: unknown };
  if (map.sourcesContent !== undefined) return `${mapFile} carries its sources' text (sourcesContent)`;
  if (!map.sources?.some((source) => source.endsWith('.ts'))) return `${mapFile} names no TypeScript file`;
  return undefined;
}

/** Deploys the (already built) app into `work` as its image would hold it, starts it and stops it. */
export async function checkBundle(bundle: AppBundle, work: string): Promise<Outcome> {
  const { app } = bundle;
  const lines: string[] = [];
  const fail = (msg: string): Outcome => ({ ok: false, lines: [...lines, `bundles: FAIL ${app}: ${msg}`] });
  const started = Date.now();
  const dockerfile = readFileSync(join(REPO, 'infra', 'docker', `${app}.Dockerfile`), 'utf8');
  if (!existsSync(join(REPO, 'apps', app, 'dist', 'main.js'))) return fail('dist/main.js was not built');
  // Every bundle tsup wrote beside main.js (the threads' too), whatever entries the app adds.
  const dist = join(REPO, 'apps', app, 'dist');
  const maps = readdirSync(dist).filter((file) => file.endsWith('.js.map'));
  if (!maps.includes('main.js.map')) return fail('dist/main.js.map was not built');
  for (const file of maps) {
    const mapProblem = bundleMapProblem(join(dist, file));
    if (mapProblem) return fail(mapProblem);
  }

  const out = join(work, 'out');
  const deployed = await run('pnpm', [...deployArgs(dockerfile, app), '--prefer-offline', out], REPO);
  if (deployed.code !== 0) return fail(`pnpm deploy failed:\n${deployed.output}`);
  rmSync(join(out, 'node_modules', '@cr'), { recursive: true, force: true });
  rmSync(join(out, 'node_modules', '.bin'), { recursive: true, force: true });
  // The image: only what the runtime stage copies; no sources, so nothing can quietly read them.
  const image = join(work, 'app');
  mkdirSync(image);
  for (const entry of runtimeCopies(dockerfile)) {
    if (!existsSync(join(out, entry)))
      return fail(`the Dockerfile copies /out/${entry}, which deploy did not produce`);
    renameSync(join(out, entry), join(image, entry));
  }

  const deployedAfter = Date.now() - started;
  const port = await freePort();
  const dataDir = join(work, 'data');
  mkdirSync(dataDir);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? work,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
    METRICS_PORT: '0',
    [bundle.portVar]: String(port),
    ...bundle.env(),
  };
  const child = spawn(process.execPath, ['--enable-source-maps', 'dist/main.js'], {
    cwd: image,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  // A first start creates its embedded cluster and migrates it: seconds on a quiet machine, minutes on a
  // loaded CI one.
  const problem =
    (await waitLive(`http://127.0.0.1:${port}`, child, 180_000)) ?? (await bundle.probe?.(port));
  const liveAfter = Date.now() - started - deployedAfter;
  const exit = await stop(child, 10_000);
  if (problem) return fail(`node dist/main.js ${problem}:\n${output}`);
  for (const file of bundle.threads ?? []) {
    const threadProblem = await probeThread(image, file);
    if (threadProblem) return fail(threadProblem);
  }
  if (exit !== 0) return fail(`SIGTERM did not end it cleanly (exit ${exit}):\n${output}`);
  lines.push(
    `bundles: ${app}: source maps without their sources' text; deployed as its image in ${deployedAfter} ms, node dist/main.js live in ${liveAfter} ms, stopped cleanly${bundle.threads ? `; threads ${bundle.threads.join(', ')} load` : ''}`,
  );
  return { ok: true, lines };
}

/** Builds the three apps, then checks the bundles side by side (deploying is mostly waiting on the disk). */
export async function checkBundles(): Promise<Outcome> {
  // The dashboard first: the tenant-api's build copies it into its dist/ (turbo orders the same way).
  const dashboard = await run('pnpm', ['--filter', '@cr/dashboard', 'build'], REPO);
  if (dashboard.code !== 0)
    return { ok: false, lines: [`bundles: FAIL dashboard build:\n${dashboard.output}`] };
  const filters = APP_BUNDLES.flatMap((b) => ['--filter', `@cr/${b.app}`]);
  const built = await run('pnpm', [...filters, 'build'], REPO);
  if (built.code !== 0) return { ok: false, lines: [`bundles: FAIL pnpm build:\n${built.output}`] };
  const outcomes = await Promise.all(
    APP_BUNDLES.map(async (bundle) => {
      const work = mkdtempSync(join(tmpdir(), `cr-bundle-${bundle.app}-`));
      try {
        return await checkBundle(bundle, work);
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    }),
  );
  return {
    ok: outcomes.every((o) => o.ok),
    lines: ['bundles: built dist/main.js of the three apps (tsup)', ...outcomes.flatMap((o) => o.lines)],
  };
}

if (require.main === module) {
  checkBundles().then(
    (o) => {
      for (const line of o.lines) process.stdout.write(`${line}\n`);
      process.stdout.write(o.ok ? 'bundle checks: ok\n' : 'bundle checks: FAILED\n');
      process.exit(o.ok ? 0 : 1);
    },
    (err: unknown) => {
      process.stderr.write(`bundle checks: ${String(err)}\n`);
      process.exit(1);
    },
  );
}
