// Benchmark of POST /api/enviar/items: accepted submissions/s of a 5-line invoice through HTTP (token check,
// validation, arithmetic, XML, XAdES signature, insert + job in one transaction), POST p50/p99 at half that
// rate, POST-to-webhook latency with the real hacienda-sandbox at zero delay (submit job, callback, status
// job, webhook job, a local receiver), the raw RSA-2048 signing rate and the engine alone measured in the
// same run. Runs on PGlite, and also on PostgreSQL when BENCH_DATABASE_URL names a server (a throw-away
// database is created there). Writes `## tenant-api (submission)`.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { type IncomingMessage, createServer, request as httpRequest } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { DocumentRequest } from '@cr/contracts';
import { buildSignedDocument } from '@cr/hacienda-xml';
import {
  type Db,
  type Logger,
  SecretBox,
  createLogger,
  listen,
  migrate,
  openDatabase,
  parseBody,
} from '@cr/service-kit';
import {
  WITHOUT_IFMA,
  cpuModel,
  describeOtherWork,
  describeSigningPath,
  haciendaDataDir,
  loadAverages,
  rawSigningRate,
  rawSigningRateOnThreads,
  signingPath,
  startApp,
  startOtherWork,
  xsdDir,
} from '@cr/testkit';
import autocannon from 'autocannon';
import { createCabysSearch, loadCabysCatalogue } from '@cr/cabys';
import { pacedLoad } from './paced-load';
import { benchAuth, writePerformanceSection } from './support';
import { composeTenantApi, tenantConfig } from '../src/compose';
import { tenantApiMigrations } from '../src/db/with-tenant';
import { registerIssuer } from '../src/emisor/register-issuer';
import { toEngineIssuer, toSigningKey } from '../src/documents/to-engine-issuer';
import { configureWebhook } from '../src/webhooks/configure-webhook';
import { fiveLineInvoice } from '../test/support/document-mother';
import { issuerBody } from '../test/support/issuer-mother';

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 8);
const E2E_DOCUMENTS = Number(process.env.BENCH_E2E_DOCUMENTS ?? 40);
/**
 * BENCH_XSD_DIR points the app at other XSDs; a directory without them (`/nonexistent`) measures the request
 * path without the gate of ADR 0055, which otherwise validates every signed document (an A/B of its cost).
 */
const XSD_DIR = process.env.BENCH_XSD_DIR;
/**
 * BENCH_CPU_PROF names a directory: the full-rate run's V8 CPU profile is written there, per engine (open it
 * in Chrome's DevTools); the figures are then printed, not written to docs/performance.md.
 */
const PROFILE_DIR = process.env.BENCH_CPU_PROF;
const USER = 'cpj-3-101-123456@stag.comprobanteselectronicos.go.cr';
const PASSWORD = 'Bench-Hacienda-1';
const PIN = '4821';

/** fetch may not set Host; the tenant is in it. */
function postJson(url: string, headers: Record<string, string>, body: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => {
        text += d.toString();
      });
      res.on('end', () => {
        if ((res.statusCode ?? 500) >= 300) reject(new Error(`${res.statusCode}: ${text}`));
        else resolve(JSON.parse(text));
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The V8 profiler of this thread (node:inspector): started now, its profile returned by stop(). */
async function startCpuProfile(): Promise<{ stop: () => Promise<object> }> {
  const session = new Session();
  session.connect();
  const post = <T>(method: string, params?: object) =>
    new Promise<T>((resolve, reject) =>
      session.post(method, params ?? {}, (err, result) => (err ? reject(err) : resolve(result as T))),
    );
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 200 });
  await post('Profiler.start');
  return {
    stop: async () => {
      const { profile } = await post<{ profile: object }>('Profiler.stop');
      session.disconnect();
      return profile;
    },
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

interface Sandbox {
  url: string;
  p12: string;
}

interface EngineResult {
  engine: string;
  engineOnly: number;
  full: { rps: number; p50: number; p99: number; total: number };
  cpuMsPerPost: number;
  half: { rps: number; p50: number; p99: number; total: number };
  webhook: { p50: number; p99: number };
}

/**
 * A fresh database: PGlite on a data directory of its own, as the service opens it (DATA_DIR), or a
 * throw-away database on the PostgreSQL server at `adminUrl`. Not PGlite in memory: its files are typed
 * arrays that grow by copying: 15 document inserts held the database thread for 55–190 ms each in one run,
 * against 2 of 51 and 62 ms on a data directory (docs/performance.md, "tenant-api (submission)").
 */
async function freshDatabase(adminUrl: string | undefined): Promise<{ db: Db; drop: () => Promise<void> }> {
  if (!adminUrl) {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-submission-pglite-'));
    const db = await openDatabase({ databaseUrl: undefined, dataDir });
    return {
      db,
      drop: async () => {
        await db.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const admin = await openDatabase({ databaseUrl: adminUrl, dataDir: undefined });
  const name = `bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await admin.exec(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = await openDatabase({ databaseUrl: url.toString(), dataDir: undefined });
  return {
    db,
    drop: async () => {
      await db.close();
      await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.close();
    },
  };
}

/** A local webhook receiver: answers 200 and resolves whoever waits for a clave's event. */
async function startReceiver() {
  const arrived = new Map<string, number>();
  const waiting = new Map<string, (at: number) => void>();
  const server = createServer((req: IncomingMessage, res) => {
    let text = '';
    req.on('data', (d: Buffer) => {
      text += d.toString();
    });
    req.on('end', () => {
      const at = performance.now();
      res.writeHead(200).end();
      const { clave } = JSON.parse(text) as { clave: string };
      const w = waiting.get(clave);
      if (w) w(at);
      else arrived.set(clave, at);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    next: (clave: string, timeoutMs: number) =>
      new Promise<number>((resolve, reject) => {
        const done = arrived.get(clave);
        if (done !== undefined) return resolve(done);
        const timer = setTimeout(() => reject(new Error(`no webhook for ${clave}`)), timeoutMs);
        waiting.set(clave, (at) => {
          clearTimeout(timer);
          resolve(at);
        });
      }),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/**
 * The real hacienda-sandbox at zero delay, one per engine: its limit of 100 submissions per issuer and
 * minute would otherwise make the second engine's end-to-end phase wait on 429s.
 */
async function startSandbox(): Promise<Sandbox & { stop: () => Promise<void> }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-sandbox-'));
  const app = await startApp({
    app: 'hacienda-sandbox',
    portVar: 'SANDBOX_PORT',
    env: {
      DATA_DIR: dataDir,
      DATABASE_URL: undefined,
      SANDBOX_PROCESSING_DELAY_MS: '0',
      HACIENDA_DATA_DIR: haciendaDataDir(),
      HACIENDA_XSD_DIR: xsdDir(),
      LOG_LEVEL: 'error',
    },
    timeoutMs: 120_000,
  });
  const admin = async (p: string, body: unknown) => {
    const r = await fetch(`${app.url}${p}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (r.status >= 300) throw new Error(`${p}: ${r.status} ${await r.text()}`);
    return r.json() as Promise<Record<string, string>>;
  };
  await admin('/sandbox/usuarios', { username: USER, password: PASSWORD });
  const cert = await admin('/sandbox/certificados', {
    identificacion: '3101123456',
    tipoIdentificacion: '02',
    nombre: 'EMPRESA DE PRUEBA SOCIEDAD ANONIMA',
    pin: PIN,
  });
  const sandbox: Sandbox = { url: app.url, p12: cert.p12! };
  return {
    ...sandbox,
    stop: async () => {
      await app.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function runEngine(
  engine: string,
  adminUrl: string | undefined,
  sandbox: Sandbox,
  logger: Logger,
): Promise<EngineResult> {
  const { db, drop } = await freshDatabase(adminUrl);
  await migrate(db, tenantApiMigrations());
  const secrets = SecretBox.fromSetting(SecretBox.generateSetting('b1'));
  const receiver = await startReceiver();
  const { token, verifier } = benchAuth();
  // As main.ts: the catalogue of HACIENDA_DATA_DIR, where the CABYS check finds the invoice's codes (ADR 0066).
  const catalogue = await loadCabysCatalogue({ dirs: [haciendaDataDir()] });
  const { app, worker, submission, issuerDeps, webhookDeps } = composeTenantApi({
    config: tenantConfig({
      HACIENDA_IDP_URL_TEST: `${sandbox.url}/auth/realms/rut-stag/protocol/openid-connect/token`,
      HACIENDA_IDP_URL_PROD: `${sandbox.url}/auth/realms/rut/protocol/openid-connect/token`,
      HACIENDA_RECEPCION_URL_TEST: `${sandbox.url}/recepcion/v1`,
      HACIENDA_RECEPCION_URL_PROD: `${sandbox.url}/recepcion/v1`,
      HACIENDA_PUBLIC_API_URL: sandbox.url,
      PUBLIC_URL: 'http://127.0.0.1:1',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: true,
      WEBHOOK_TIMEOUT_MS: 5_000,
      JOBS_CONCURRENCY: 8,
      ...(XSD_DIR ? { HACIENDA_XSD_DIR: XSD_DIR } : {}),
    }),
    db,
    logger,
    secrets,
    verifier,
    cabys: createCabysSearch(catalogue ? { index: catalogue.index } : {}),
    checkIssuersWithHacienda: false,
  });
  await registerIssuer(issuerDeps, {
    tenantId: 'acme',
    body: issuerBody({
      usuarioHacienda: USER,
      claveHacienda: Buffer.from(PASSWORD).toString('base64'),
      pinCertificado: PIN,
      certificadoHacienda: sandbox.p12,
    }),
  });
  await configureWebhook(webhookDeps, { tenantId: 'acme', body: { url: receiver.url } });
  const server = await listen(app, 0, '127.0.0.1');
  // Hacienda's callback reaches this server on a non-tenant host (production schedules otherwise).
  submission.publicUrl = server.url;

  // The engine alone on this thread (validation, arithmetic, XML, XAdES), as the ceiling below HTTP and DB.
  const material = await submission.signing.load({ tenantId: 'acme', identificacion: '3101123456' });
  const engineOnly = (() => {
    const issuer = toEngineIssuer(material);
    const key = toSigningKey(material);
    const doc = parseBody(DocumentRequest, fiveLineInvoice(1));
    for (let i = 0; i < 20; i++) buildSignedDocument({ document: doc, issuer, key, now: new Date() });
    const t0 = performance.now();
    let n = 0;
    while (performance.now() - t0 < 3000) {
      buildSignedDocument({ document: doc, issuer, key, now: new Date() });
      n++;
    }
    return n / ((performance.now() - t0) / 1000);
  })();

  let numero = 1;
  const headers = {
    host: 'acme.localhost',
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
  };
  const cannon = async (overallRate?: number) => {
    const r = await autocannon({
      url: `${server.url}/api/enviar/items`,
      method: 'POST',
      connections: 10,
      duration: DURATION_S,
      ...(overallRate ? { overallRate } : {}),
      headers,
      requests: [
        {
          method: 'POST',
          setupRequest: (req) => ({ ...req, body: JSON.stringify(fiveLineInvoice(numero++)) }),
        },
      ],
    });
    if (r.non2xx > 0) throw new Error(`${r.non2xx} non-2xx answers`);
    return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, total: r.requests.total };
  };

  await cannon(); // warm-up (JIT, caches, the opened .p12)
  const profile = PROFILE_DIR ? await startCpuProfile() : undefined;
  const cpu0 = process.cpuUsage();
  const full = await cannon();
  const cpu = process.cpuUsage(cpu0);
  if (profile && PROFILE_DIR) {
    const file = path.join(PROFILE_DIR, `submission-${engine}.cpuprofile`);
    mkdirSync(PROFILE_DIR, { recursive: true }); // as node's --cpu-prof-dir does for the stack's services
    writeFileSync(file, JSON.stringify(await profile.stop()));
    process.stderr.write(`${engine}: CPU profile of the full-rate run in ${file}\n`);
  }
  const cpuMsPerPost = (cpu.user + cpu.system) / 1000 / Math.max(1, full.total);
  const halfRate = Math.max(1, Math.floor(full.rps / 2));
  // A steady half rate (bench/paced-load.ts: autocannon's rate limit sends each second's quota in a burst).
  const paced = await pacedLoad({
    url: `${server.url}/api/enviar/items`,
    method: 'POST',
    headers,
    body: () => JSON.stringify(fiveLineInvoice(numero++)),
    rate: halfRate,
    seconds: DURATION_S,
    connections: 10,
  });
  if (paced.failed > 0) throw new Error(`${paced.failed} of ${paced.sent} requests at half rate failed`);
  const half = { rps: paced.rps, p50: paced.p50, p99: paced.p99, total: paced.ok };
  // The throughput runs' documents are not sent to the sandbox (its per-issuer limit is 100 per minute):
  // only the end-to-end phase below follows documents to Hacienda and to the webhook.
  await db.query("DELETE FROM jobs WHERE queue = 'hacienda.submit'");

  worker.start();
  const latencies: number[] = [];
  let slowest: { clave: string; ms: number } | undefined;
  for (let i = 0; i < E2E_DOCUMENTS; i++) {
    const t0 = performance.now();
    const { clave } = (await postJson(
      `${server.url}/api/enviar/items`,
      headers,
      JSON.stringify(fiveLineInvoice(numero++)),
    )) as { clave: string };
    const at = await receiver.next(clave, 60_000);
    latencies.push(at - t0);
    slowest = !slowest || at - t0 > slowest.ms ? { clave, ms: at - t0 } : slowest;
  }
  latencies.sort((a, b) => a - b);
  if (slowest) {
    // Where the slowest document's time went (stderr only): its events, as the owner role.
    const events = await db.query<{ estado: string; detalle: string | null; created_at: Date }>(
      `SELECT e.estado, e.detalle, e.created_at FROM document_events e JOIN documents d ON d.id = e.document_id
       WHERE d.clave = $1 ORDER BY e.id`,
      [slowest.clave],
    );
    process.stderr.write(`${engine}: slowest POST → webhook ${slowest.ms.toFixed(0)} ms; events:\n`);
    for (const e of events.rows) {
      process.stderr.write(`  ${new Date(e.created_at).toISOString()} ${e.estado} ${e.detalle ?? ''}\n`);
    }
    const jobs = await db.query<Record<string, unknown>>(
      `SELECT j.key, j.attempts, j.last_error, j.created_at, j.updated_at, j.finished_at FROM jobs j
       JOIN documents d ON j.key LIKE '%' || d.id || '%' WHERE d.clave = $1 ORDER BY j.id`,
      [slowest.clave],
    );
    for (const j of jobs.rows) process.stderr.write(`  job ${JSON.stringify(j)}\n`);
  }
  await worker.stop();
  await server.close();
  await receiver.close();
  await drop();
  return {
    engine,
    engineOnly,
    full,
    cpuMsPerPost,
    half,
    webhook: { p50: percentile(latencies, 50), p99: percentile(latencies, 99) },
  };
}

// Each engine runs in a process of its own: one that opens PGlite compiles all its WebAssembly with Liftoff
// only (ADR 0043), so a PostgreSQL run after it in the same process would validate (the XSD gate's libxml2)
// slower than a tenant-api on PostgreSQL does. BENCH_SUBMISSION_ENGINE=PGlite|PostgreSQL set by hand runs one
// engine alone: its figures are printed as JSON, and docs/performance.md is left as it is.
const ENGINE_CHILD = 'BENCH_SUBMISSION_ENGINE';
const RESULT_FILE = 'BENCH_SUBMISSION_RESULT';

function runEngineInChild(engine: string): EngineResult {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-submission-'));
  try {
    const file = path.join(dir, 'result.json');
    const child = spawnSync(process.execPath, ['--import', 'tsx', __filename], {
      env: { ...process.env, [ENGINE_CHILD]: engine, [RESULT_FILE]: file },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    if (child.status !== 0)
      throw new Error(`the ${engine} run failed (exit ${child.status ?? child.signal})`);
    return JSON.parse(readFileSync(file, 'utf8')) as EngineResult;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const logger = createLogger({ service: 'tenant-api-bench', level: 'error' });

  const engines: Array<[string, string | undefined]> = [['PGlite', undefined]];
  if (process.env.BENCH_DATABASE_URL) engines.push(['PostgreSQL', process.env.BENCH_DATABASE_URL]);
  const only = process.env[ENGINE_CHILD];
  if (only) {
    const [engine, url] = engines.find(([name]) => name === only) ?? [];
    if (!engine) throw new Error(`${ENGINE_CHILD}=${only}: no such engine here`);
    const sandbox = await startSandbox();
    try {
      const result = await runEngine(engine, url, sandbox, logger);
      const file = process.env[RESULT_FILE];
      if (file) writeFileSync(file, JSON.stringify(result));
      else process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    } finally {
      await sandbox.stop();
    }
    return;
  }

  const signing = rawSigningRate(3_000);
  // The yardstick on a CPU without AVX-512 IFMA: the same on either kind of host (testkit's signing-path).
  const rsaPath = signingPath();
  const plain = rsaPath.usesIfma ? await rawSigningRateOnThreads(1, 3, { withoutIfma: true }) : signing;
  const plainShare = (rate: number) =>
    rsaPath.usesIfma ? `; ${((rate / plain) * 100).toFixed(0)}% without IFMA` : '';
  const loadStart = loadAverages();
  const other = startOtherWork();
  const results = engines.map(([engine]) => runEngineInChild(engine));

  const load = loadAverages();
  const otherWork = describeOtherWork(other());
  const cpu = cpuModel();
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const row = (label: string, cell: (r: EngineResult) => string) =>
    `| ${label} | ${results.map(cell).join(' | ')} |`;
  const section = [
    '## tenant-api (submission)',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${cpu} (nproc ${cpus().length}), Node ${process.version}; per engine, server, worker and the client (autocannon, 10 connections, at full rate; at half rate a steady paced load over 10 connections, each latency from its request's due time, bench/paced-load.ts) in one process of its own (ADR 0043: a process that opens PGlite runs its WebAssembly, the XSD gate's libxml2 included, on Liftoff only), the real hacienda-sandbox as a separate process with SANDBOX_PROCESSING_DELAY_MS=0, ${DURATION_S} s per HTTP run after a warm-up; the jobs worker is stopped during the HTTP runs and runs for the end-to-end phase. Command: \`pnpm --filter @cr/tenant-api bench\` (with \`BENCH_DATABASE_URL=postgres://…\` it also runs on PostgreSQL, in a throw-away database on that server). Load average at the start / end: ${loadStart} / ${load}; ${otherWork} (wall-time figures move with other work; the CPU time per POST is the steadier figure).${XSD_DIR ? ` The app's XSDs: ${XSD_DIR} (BENCH_XSD_DIR).` : ''}`,
    '',
    `Raw RSA-2048 signing (SHA-256, node:crypto, one thread): ${fmt(signing)} signatures/s; ${describeSigningPath(rsaPath)}${rsaPath.usesIfma ? `: with it hidden from OpenSSL (\`OPENSSL_ia32cap=${WITHOUT_IFMA}\`, a child process), ${fmt(plain)}/s, the same yardstick on a host without it` : ''}.`,
    '',
    `| measure | ${results.map((r) => r.engine).join(' | ')} |`,
    `|---|${results.map(() => '---|').join('')}`,
    row(
      'engine alone (buildSignedDocument: validation, arithmetic, XML, XAdES), one thread',
      (r) =>
        `${fmt(r.engineOnly)} /s (${((r.engineOnly / signing) * 100).toFixed(0)}% of raw signing${plainShare(r.engineOnly)})`,
    ),
    row(
      'accepted POST /api/enviar/items, 5-line invoice (token, validation, arithmetic, XML, XAdES, insert + job)',
      (r) => {
        const share = (r.full.rps / signing) * 100;
        return `${fmt(r.full.rps)} /s (${share.toFixed(0)}% of raw signing${plainShare(r.full.rps)}; goal ≥ 40%: ${met(share >= 40)})`;
      },
    ),
    row(
      'process CPU per accepted POST (server and the in-process client)',
      (r) => `${r.cpuMsPerPost.toFixed(2)} ms`,
    ),
    row(
      'POST latency at full load p50 / p99',
      (r) => `${r.full.p50.toFixed(1)} / ${r.full.p99.toFixed(1)} ms`,
    ),
    row(
      'POST latency at half the full rate p50 / p99',
      (r) =>
        `${fmt(r.full.rps / 2)}/s: ${r.half.p50.toFixed(1)} / ${r.half.p99.toFixed(1)} ms (goal p99 < 50 ms: ${met(r.half.p99 < 50)})`,
    ),
    row(
      `POST → webhook received (submit job, sandbox, callback, status job, webhook job, local receiver; ${E2E_DOCUMENTS} documents one after another) p50 / p99`,
      (r) =>
        `${r.webhook.p50.toFixed(0)} / ${r.webhook.p99.toFixed(0)} ms (goal p99 < 2 s: ${met(r.webhook.p99 < 2000)})`,
    ),
    '',
    'Each document costs one RSA-2048 private-key signature on the request path (the XAdES SignatureValue; the references are SHA-256 digests) plus one token verification (a public-key operation, about 1/30 of a signature), so the raw signing rate is the ceiling before HTTP, validation, XML and the database.',
    '',
    '',
  ].join('\n');

  // A profiled run's figures carry the profiler's own cost: printed, not recorded.
  if (PROFILE_DIR) process.stdout.write(`${section}\n(profiled run: docs/performance.md left as it was)\n`);
  else writePerformanceSection('## tenant-api (submission)', section);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
