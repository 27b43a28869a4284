// The services as separate processes on loopback, as they run for real, for the benchmarks and the soak
// run that need the whole path (HTTP, cluster, jobs, Hacienda, webhooks, e-mail) and each service's memory:
// the hacienda-sandbox at zero delay (its per-issuer limit lifted), optionally the auth-server (tokens by
// login, keys by JWKS; else a local PEM), and the tenant-api, each from `dist/main.js` (built first: the
// form `pnpm start` and the images run, ADR 0033) or from `src/main.ts` under tsx (`form: 'tsx'`). With a
// PostgreSQL URL every service gets a throw-away database of its own on that server (dropped at stop);
// without one each runs on PGlite.
import { type ChildProcess, spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type IncomingMessage, createServer, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  type ServiceName,
  buildAppBundles,
  bundleNodePath,
  ensureDerivedDatabases,
  serviceDatabases,
  serviceMemoryEnv,
  treeRss,
} from '@cr/devstack';
import { SecretBox, openPostgres } from '@cr/service-kit';
import { REPO_ROOT, freePort, haciendaDataDir, xsdDir } from '@cr/testkit';
import autocannon from 'autocannon';
import jwt from 'jsonwebtoken';
import { fiveLineInvoice } from '../test/support/document-mother';
import { issuerBody } from '../test/support/issuer-mother';
import { startSmtpSink } from './smtp-sink';
import { BENCH_AUDIENCE, BENCH_ISSUER } from './support';

export type ServiceForm = 'tsx' | 'dist';

export interface StackOptions {
  /** A PostgreSQL server (admin URL): throw-away databases there. Unset: PGlite everywhere. */
  databaseUrl?: string | undefined;
  /** Tenant-api processes (WEB_CONCURRENCY). */
  webConcurrency?: number;
  /** Tenant-api processes that run the jobs only (JOBS_PROCESSES); default the service's. */
  jobsProcesses?: number;
  /** Start the auth-server and take tokens from a login (else a local PEM signs the token). */
  withAuthServer?: boolean;
  form?: ServiceForm;
  /** Extra settings for the tenant-api. */
  tenantEnv?: Record<string, string>;
  /**
   * The dist form only: a directory holding another build of the tenant-api's bundle (main.js and what
   * sits beside it), to run instead of the working tree's (bench/ab.ts). It must sit inside apps/tenant-api,
   * where the bundle finds its package root.
   */
  tenantBuild?: string;
  /**
   * The sandbox's nice value (Linux, `nice -n`; default 0, the services' own). The sandbox stands for
   * Hacienda, whose CPU in production is not on the service's cores: at 19 it takes what they leave.
   */
  sandboxNice?: number;
}

export interface RunningService {
  name: string;
  url: string;
  child: ChildProcess;
  output(): string;
}

export interface Stack {
  tenantUrl: string;
  /** Headers of a tenant `acme` JSON request with a valid token. */
  headers: Record<string, string>;
  services: RunningService[];
  /** Webhooks received so far (one per document event the tenant-api delivers). */
  webhooks(): number;
  /** E-mails received so far (one per accepted document whose receptor has an address). */
  mails(): number;
  /** Resident memory of each service (its process tree), in bytes. */
  rss(): Record<string, number>;
  /** On PostgreSQL: each service's throw-away database (name). */
  databases: Record<string, string>;
  /** The auth-server, when started: a login as acme (for load on it). */
  login?: () => Promise<number>;
  stop(): Promise<void>;
}

const USER = 'cpj-3-101-123456@stag.comprobanteselectronicos.go.cr';
const PASSWORD = 'Bench-Hacienda-1';
const PIN = '4821';
const CLIENT_PASSWORD = 'acme-bench-password-1234';

function request(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => {
        text += d.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

async function ok(url: string, options: Parameters<typeof request>[1]): Promise<Record<string, string>> {
  const r = await request(url, options);
  if (r.status >= 300) throw new Error(`${options.method ?? 'GET'} ${url}: ${r.status} ${r.text}`);
  return r.text ? (JSON.parse(r.text) as Record<string, string>) : {};
}

/** The three apps' bundles, built once per bench process (turbo replays its cache when nothing changed). */
let bundlesBuilt = false;
function buildBundles(): void {
  if (bundlesBuilt) return;
  if (!buildAppBundles(REPO_ROOT, ['auth-server', 'hacienda-sandbox', 'tenant-api'])) {
    throw new Error('the build of the app bundles failed');
  }
  bundlesBuilt = true;
}

async function startService(
  app: ServiceName,
  form: ServiceForm,
  port: number,
  env: Record<string, string | undefined>,
  {
    readyPath = '/health/ready',
    build,
    nice = 0,
  }: { readyPath?: string; build?: string | undefined; nice?: number } = {},
): Promise<RunningService> {
  const dir = path.join(REPO_ROOT, 'apps', app);
  const entry =
    form === 'dist'
      ? path.join(build ?? path.join(dir, 'dist'), 'main.js')
      : path.join(dir, 'src', 'main.ts');
  if (!existsSync(entry)) throw new Error(`no ${entry}${form === 'dist' ? ' (build first)' : ''}`);
  // BENCH_CPU_PROF=<dir>: each service writes a V8 CPU profile there when it exits (where the time goes).
  const profile = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${path.join(process.env.BENCH_CPU_PROF, app)}`]
    : [];
  // BENCH_HEAP_DIR=<dir>: SIGUSR2 makes a service write a heap snapshot there (what holds the memory).
  // Node does not create the directory, and a signal with nowhere to write kills the service.
  const heapDir = process.env.BENCH_HEAP_DIR ? path.join(process.env.BENCH_HEAP_DIR, app) : undefined;
  if (heapDir) mkdirSync(heapDir, { recursive: true });
  const heap = heapDir ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${heapDir}`] : [];
  // BENCH_PERF=1: each service writes /tmp/perf-<pid>.map, so Linux `perf` names the JavaScript functions it
  // samples: CPU time only, the kernel's share included, where --cpu-prof's samples also count the time a
  // thread waits for a core.
  const perf = process.env.BENCH_PERF ? ['--perf-basic-prof-only-functions'] : [];
  // BENCH_TENANT_NODE_FLAGS: Node or V8 flags for the tenant-api alone (`--max-semi-space-size=16`), after the
  // heap flags NODE_OPTIONS gives it, so they win: an A/B of a V8 setting without a build of its own.
  const flags =
    app === 'tenant-api' ? (process.env.BENCH_TENANT_NODE_FLAGS ?? '').split(' ').filter(Boolean) : [];
  const args = [
    ...flags,
    ...profile,
    ...perf,
    ...heap,
    ...(form === 'dist' ? ['--enable-source-maps', entry] : ['--import', 'tsx', entry]),
  ];
  const childEnv: Record<string, string> = {};
  // METRICS_PORT 0: an ephemeral port, so a bench or soak runs beside a `pnpm start` that holds 9400-9402.
  // NODE_OPTIONS and malloc's setting: the memory `pnpm start` gives the service (ADR 0031, ADR 0045), not the
  // bench's own NODE_OPTIONS.
  const settings = {
    ...process.env,
    ...serviceMemoryEnv(app),
    ...(form === 'dist' ? { NODE_PATH: bundleNodePath(REPO_ROOT, process.env.NODE_PATH) } : {}),
    METRICS_PORT: '0',
    ...env,
  };
  for (const [k, v] of Object.entries(settings)) {
    if (v !== undefined) childEnv[k] = v;
  }
  // Through `nice`, so every thread the process starts has the value (Linux keeps one per thread).
  const [command, commandArgs] =
    nice > 0 ? ['nice', ['-n', String(nice), process.execPath, ...args]] : [process.execPath, args];
  const child = spawn(command, commandArgs, { cwd: dir, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (d: Buffer) => {
    out = (out + d.toString()).slice(-200_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 600_000; // generous: a loaded machine starts a service slowly
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${app} exited with ${child.exitCode}:\n${out}`);
    const r = await request(url + readyPath, {}).catch(() => undefined);
    if (r?.status === 200) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${app} did not become ready:\n${out}`);
    }
    await new Promise((res) => setTimeout(res, 200));
  }
  return { name: app, url, child, output: () => out };
}

function stopService(s: RunningService): Promise<void> {
  return new Promise((done) => {
    if (s.child.exitCode !== null || s.child.signalCode !== null) return done();
    s.child.once('exit', () => done());
    s.child.kill('SIGTERM');
    setTimeout(() => s.child.kill('SIGKILL'), 30_000).unref();
  });
}

/** A local webhook receiver that answers 200 and counts. */
async function startReceiver() {
  let count = 0;
  const server = createServer((req: IncomingMessage, res) => {
    req.resume();
    req.on('end', () => {
      count += 1;
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    count: () => count,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const form = options.form ?? 'dist';
  if (form === 'dist') buildBundles();
  const scratch = mkdtempSync(path.join(tmpdir(), 'bench-stack-'));
  const services: RunningService[] = [];
  const cleanups: Array<() => Promise<void>> = [];
  const receiver = await startReceiver();
  cleanups.push(receiver.close);
  const smtp = await startSmtpSink();
  cleanups.push(smtp.close);
  cleanups.push(async () => rmSync(scratch, { recursive: true, force: true }));

  // Databases: one throw-away base database, and a database per service derived from it (as `pnpm start`).
  let dbUrls: Record<string, string | undefined> = {};
  if (options.databaseUrl) {
    const admin = openPostgres({ connectionString: options.databaseUrl, max: 1 });
    const base = `bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
    await admin.exec(`CREATE DATABASE ${base}`);
    const baseUrl = new URL(options.databaseUrl);
    baseUrl.pathname = `/${base}`;
    const dbs = serviceDatabases({ DATABASE_URL: baseUrl.toString() });
    await ensureDerivedDatabases(baseUrl.toString(), dbs);
    dbUrls = Object.fromEntries(dbs.map((d) => [d.service, d.url]));
    cleanups.unshift(async () => {
      for (const name of [base, ...dbs.map((d) => new URL(d.url).pathname.slice(1))]) {
        await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }
      await admin.close();
    });
  }

  const stopAll = async () => {
    for (const s of [...services].reverse()) await stopService(s);
    for (const c of cleanups) await c().catch(() => undefined);
  };

  try {
    const sandboxPort = await freePort();
    const sandbox = await startService(
      'hacienda-sandbox',
      form,
      sandboxPort,
      {
        SANDBOX_PORT: String(sandboxPort),
        DATA_DIR: path.join(scratch, 'sandbox'),
        DATABASE_URL: dbUrls['hacienda-sandbox'],
        SANDBOX_PROCESSING_DELAY_MS: '0',
        SANDBOX_RECEPCION_RATE_LIMIT: '100000000',
        SANDBOX_PUBLIC_RATE_LIMIT: '100000000',
        HACIENDA_DATA_DIR: haciendaDataDir(),
        HACIENDA_XSD_DIR: xsdDir(),
        LOG_LEVEL: 'error',
      },
      { readyPath: '/health/live', nice: options.sandboxNice ?? 0 },
    );
    services.push(sandbox);
    const admin = (p: string, body: unknown) =>
      ok(`${sandbox.url}${p}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    await admin('/sandbox/usuarios', { username: USER, password: PASSWORD });
    const cert = await admin('/sandbox/certificados', {
      identificacion: '3101123456',
      tipoIdentificacion: '02',
      nombre: 'EMPRESA DE PRUEBA SOCIEDAD ANONIMA',
      pin: PIN,
    });

    // Tokens: a login at a real auth-server, or a local key the tenant-api trusts through a PEM file.
    let token: string;
    let authEnv: Record<string, string>;
    let login: Stack['login'];
    if (options.withAuthServer) {
      const authPort = await freePort();
      const authUrl = `http://127.0.0.1:${authPort}`;
      const adminToken = randomBytes(24).toString('base64url');
      const auth = await startService('auth-server', form, authPort, {
        AUTH_PORT: String(authPort),
        AUTH_ISSUER: authUrl,
        AUTH_AUDIENCE: BENCH_AUDIENCE,
        AUTH_ADMIN_TOKEN: adminToken,
        DATA_DIR: path.join(scratch, 'auth'),
        DATABASE_URL: dbUrls['auth-server'],
        NODE_ENV: 'development',
        LOG_LEVEL: 'error',
      });
      services.push(auth);
      await ok(`${authUrl}/admin/clients`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
        body: JSON.stringify({ base: 'acme', password: CLIENT_PASSWORD }),
      });
      const loginBody = JSON.stringify({ base: 'acme', password: CLIENT_PASSWORD });
      login = async () =>
        (
          await request(`${authUrl}/login`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: loginBody,
          })
        ).status;
      token = (
        await ok(`${authUrl}/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: loginBody,
        })
      ).token as string;
      authEnv = { AUTH_ISSUER: authUrl, AUTH_JWKS_URL: `${authUrl}/.well-known/jwks.json` };
    } else {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const pem = path.join(scratch, 'auth.pem');
      writeFileSync(pem, publicKey.export({ type: 'spki', format: 'pem' }).toString());
      const iat = Math.floor(Date.now() / 1000);
      token = jwt.sign(
        {
          iss: BENCH_ISSUER,
          aud: BENCH_AUDIENCE,
          sub: 'acme',
          base: 'acme',
          jti: 'bench-1',
          iat,
          exp: iat + 86400,
        },
        privateKey,
        { algorithm: 'RS256', keyid: 'bench' },
      );
      authEnv = { AUTH_ISSUER: BENCH_ISSUER, AUTH_PUBLIC_KEY_PATH: pem };
    }

    const tenantPort = await freePort();
    const tenantUrl = `http://127.0.0.1:${tenantPort}`;
    const tenant = await startService(
      'tenant-api',
      form,
      tenantPort,
      {
        TENANT_PORT: String(tenantPort),
        TENANT_HOST: '127.0.0.1',
        ...authEnv,
        AUTH_AUDIENCE: BENCH_AUDIENCE,
        DATA_DIR: path.join(scratch, 'tenant'),
        DATABASE_URL: dbUrls['tenant-api'],
        WEB_CONCURRENCY: String(options.webConcurrency ?? 1),
        ...(options.jobsProcesses === undefined ? {} : { JOBS_PROCESSES: String(options.jobsProcesses) }),
        SECRETS_KEY: SecretBox.generateSetting('b1'),
        PUBLIC_URL: tenantUrl,
        HACIENDA_IDP_URL_TEST: `${sandbox.url}/auth/realms/rut-stag/protocol/openid-connect/token`,
        HACIENDA_IDP_URL_PROD: `${sandbox.url}/auth/realms/rut/protocol/openid-connect/token`,
        HACIENDA_RECEPCION_URL_TEST: `${sandbox.url}/recepcion/v1`,
        HACIENDA_RECEPCION_URL_PROD: `${sandbox.url}/recepcion/v1`,
        HACIENDA_PUBLIC_API_URL: sandbox.url,
        HACIENDA_DATA_DIR: haciendaDataDir(),
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        // As `pnpm start` (its mail catcher): the receptor's e-mail, with the PDF, is sent.
        SMTP_URL: smtp.url,
        // One issuer sends everything here: its 100-per-minute submission limit is lifted (as the sandbox's
        // is), so the jobs' keep-up figure measures the pipeline, not the limit.
        HACIENDA_SUBMISSIONS_PER_MINUTE: '100000000',
        // And its budget of e-mails through the platform's SMTP server (1,000 a day by default): past it the
        // e-mails wait for a slot, and the bench waiting for them would measure the budget, not the pipeline.
        MAIL_PLATFORM_LIMIT: '1000000',
        NODE_ENV: 'development',
        LOG_LEVEL: 'error',
        ...options.tenantEnv,
      },
      { build: options.tenantBuild },
    );
    services.push(tenant);
    const headers = {
      host: 'acme.localhost',
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
    };
    await ok(`${tenantUrl}/api/enviar/emisor`, {
      method: 'POST',
      headers,
      body: JSON.stringify(
        issuerBody({
          usuarioHacienda: USER,
          claveHacienda: Buffer.from(PASSWORD).toString('base64'),
          pinCertificado: PIN,
          certificadoHacienda: cert.p12 as string,
        }),
      ),
    });
    await ok(`${tenantUrl}/api/configurar/webhook`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: receiver.url }),
    });
    return {
      tenantUrl,
      headers,
      services,
      webhooks: receiver.count,
      mails: smtp.count,
      rss: () => Object.fromEntries(services.map((s) => [s.name, treeRss(s.child.pid as number).bytes])),
      databases: Object.fromEntries(
        Object.entries(dbUrls).map(([service, url]) => [service, new URL(url as string).pathname.slice(1)]),
      ),
      ...(login ? { login } : {}),
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** autocannon with a callback for every answer's status (its promise form offers no events). */
export function load(
  options: autocannon.Options,
  onResponse?: (status: number) => void,
): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (err, result) => (err ? reject(err) : resolve(result)));
    if (onResponse) instance.on('response', (_client, status: number) => onResponse(status));
  });
}

/** The next consecutive number of each stack's invoices: every load on one stack posts new documents. */
const invoiceNumbers = new WeakMap<Stack, number>();

/** The body of the stack's next 5-line invoice, with a number of its own. */
export function nextInvoiceBody(stack: Stack): string {
  const numero = invoiceNumbers.get(stack) ?? 1;
  invoiceNumbers.set(stack, numero + 1);
  return JSON.stringify(fiveLineInvoice(numero));
}

/** autocannon's request options posting 5-line invoices as the stack's tenant, each with a number of its own. */
export function invoicePosts(
  stack: Stack,
): Pick<autocannon.Options, 'url' | 'method' | 'headers' | 'requests'> {
  return {
    url: `${stack.tenantUrl}/api/enviar/items`,
    method: 'POST',
    headers: stack.headers,
    requests: [
      {
        method: 'POST',
        setupRequest: (req) => ({ ...req, body: nextInvoiceBody(stack) }),
      },
    ],
  };
}

const CABYS_QUERIES = [
  'cafe',
  'servicios de consultoria',
  'arroz',
  'computadora',
  'leche',
  '4391',
  'zapatos',
  'software',
];

/** autocannon's request options searching CABYS as the stack's tenant, a few queries in rotation. */
export function cabysPosts(
  stack: Stack,
): Pick<autocannon.Options, 'url' | 'method' | 'headers' | 'requests'> {
  let i = 0;
  return {
    url: `${stack.tenantUrl}/api/hacienda/cabys`,
    method: 'POST',
    headers: stack.headers,
    requests: [
      {
        method: 'POST',
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({ name: CABYS_QUERIES[i++ % CABYS_QUERIES.length] }),
        }),
      },
    ],
  };
}

/** Posts `amount` invoices (10 connections); how many were accepted. */
export async function postInvoices(stack: Stack, amount: number): Promise<number> {
  const r = await load({ ...invoicePosts(stack), connections: 10, amount });
  return r['2xx'];
}

/**
 * Polls every `stepMs` until the stack's receiver has had `count` webhooks in all (and, with `mails`, its SMTP
 * sink as many e-mails); false when `capMs` passed first.
 */
export async function deliveriesReach(
  stack: Stack,
  count: number,
  { mails = false, capMs = 600_000, stepMs = 100 }: { mails?: boolean; capMs?: number; stepMs?: number } = {},
): Promise<boolean> {
  const t0 = Date.now();
  const reached = () => stack.webhooks() >= count && (!mails || stack.mails() >= count);
  while (!reached()) {
    if (Date.now() - t0 > capMs) return false;
    await new Promise((r) => setTimeout(r, stepMs));
  }
  return true;
}
