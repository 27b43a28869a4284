// The tenant-api as a node:cluster (WEB_CONCURRENCY=2): both workers serve requests on the one port and
// share nothing but the database (an issuer registered through one is found through the other), the jobs run
// in a third process of their own at a lower priority (ADR 0060), woken by the servers through the primary,
// and a SIGTERM to the primary drains every worker and ends every process with code 0. More than one process
// on the embedded database is refused at start. A tenant's rate limits hold for the cluster, not per worker.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SecretBox, type TestDatabase, createTestDatabase } from '@cr/service-kit';
import { type AppProcess, REPO_ROOT, freePort, haciendaDataDir, removeTree, startApp } from '@cr/testkit';
import { WORKER_ROLE_ENV } from '../src/cluster/jobs-process';
import { documentBody } from './support/document-mother';
import { haciendaSettingsFor, sandboxAdmin, startFlowSandbox } from './support/hacienda-sandbox';
import { issuerBody } from './support/issuer-mother';
import { TEST_AUDIENCE, TEST_ISSUER, TokenForge } from './support/token-forge';

/** One request on a connection of its own, so the primary hands each to the next worker. */
function call(port: number, path: string, token: string, body: unknown) {
  return new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const data = Buffer.from(JSON.stringify(body));
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent: false,
        headers: {
          host: 'acme.localhost',
          connection: 'close',
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': data.length,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** The nice value of every thread of a process (Linux keeps one per thread; getPriority takes a thread id). */
function threadNiceValues(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => getPriority(Number(tid)));
}

/** The role the primary gave a worker, from its environment. */
function roleOf(pid: number): string | undefined {
  const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  return env.find((e) => e.startsWith(`${WORKER_ROLE_ENV}=`))?.split('=')[1];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
const SANDBOX_USER = 'cpj-3-101-123456@stag.comprobanteselectronicos.go.cr';
if (!onPostgres) {
  console.warn(
    'cluster: TEST_DATABASE_URL unset; a cluster needs PostgreSQL (the two-worker test is skipped)',
  );
}

(onPostgres ? describe : describe.skip)('tenant-api cluster of two workers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tenant-cluster-'));
  const forge = new TokenForge();
  let db: TestDatabase;
  let proc: AppProcess;
  let sandbox: AppProcess;

  let metricsPort: number;
  const token = forge.token('acme');
  /** The issuer's registration, through whichever worker took it (beforeAll). */
  let created: Awaited<ReturnType<typeof call>>;

  beforeAll(async () => {
    db = await createTestDatabase();
    sandbox = await startFlowSandbox(join(dir, 'sandbox'), 120_000);
    await sandboxAdmin(sandbox.url, '/sandbox/usuarios', {
      username: SANDBOX_USER,
      password: 'S3cr3t-Hacienda!',
    });
    writeFileSync(join(dir, 'auth.pem'), forge.publicKeyPem);
    metricsPort = await freePort();
    proc = await startApp({
      app: 'tenant-api',
      portVar: 'TENANT_PORT',
      env: {
        WEB_CONCURRENCY: '2',
        METRICS_PORT: String(metricsPort),
        DATABASE_URL: db.url,
        AUTH_PUBLIC_KEY_PATH: join(dir, 'auth.pem'),
        AUTH_ISSUER: TEST_ISSUER,
        AUTH_AUDIENCE: TEST_AUDIENCE,
        DATA_DIR: join(dir, 'data'),
        SECRETS_KEY: SecretBox.generateSetting('c1'),
        HACIENDA_DATA_DIR: haciendaDataDir(),
        ...haciendaSettingsFor(sandbox.url),
        HACIENDA_PUBLIC_API_URL: 'http://127.0.0.1:9',
        // Only a wake-up from a server gets a document submitted within the test's wait, not a poll.
        JOBS_POLL_INTERVAL_MS: '120000',
        // Two lookups per tenant a minute, for the whole cluster (a window per worker would give four).
        HACIENDA_LOOKUP_RATE_LIMIT: '2',
        TENANT_HOST: '127.0.0.1',
        LOG_LEVEL: 'http',
      },
      timeoutMs: 120_000,
    });
    const deadline = Date.now() + 120_000;
    while (!proc.output().includes('tenant-api cluster serving')) {
      if (Date.now() > deadline) throw new Error(`a worker did not start:\n${proc.output()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    // The issuer both tests use, with a certificate of the sandbox's CA.
    const cert = (await sandboxAdmin(sandbox.url, '/sandbox/certificados', {
      identificacion: '3101123456',
      tipoIdentificacion: '02',
      nombre: 'EMPRESA DE PRUEBA SOCIEDAD ANONIMA',
      pin: '1234',
    })) as { p12: string };
    created = await call(
      proc.port,
      '/api/enviar/emisor',
      token,
      issuerBody({ usuarioHacienda: SANDBOX_USER, pinCertificado: '1234', certificadoHacienda: cert.p12 }),
    );
  }, 300_000);

  afterAll(async () => {
    await proc?.stop();
    await sandbox?.stop();
    await db?.close();
    removeTree(dir);
  });

  // The primary's children that run main.ts (tsx also keeps an esbuild service process).
  const workerPids = () =>
    execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(proc.child.pid)], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.includes('main.ts'))
      .map((l) => Number(l.trim().split(/\s+/)[0]))
      .filter((n) => n > 0);

  async function estadoOf(clave: string): Promise<string> {
    const found = await call(proc.port, '/api/consultar/documento', token, { clave });
    expect(found.status).toBe(200);
    return (found.body.data as { estado: string }).estado;
  }

  async function leavesPendiente(clave: string, withinMs: number): Promise<string> {
    const deadline = Date.now() + withinMs;
    for (;;) {
      const estado = await estadoOf(clave);
      if (estado !== 'pendiente') return estado;
      if (Date.now() > deadline) throw new Error(`${clave} stayed pendiente:\n${proc.output().slice(-4000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('when documents arrive, then the jobs process alone submits them, niced, woken by the servers', async () => {
    const pids = workerPids();
    expect(pids).toHaveLength(3);
    const jobsPids = pids.filter((pid) => roleOf(pid) === 'jobs');
    expect(jobsPids).toHaveLength(1);
    const jobsPid = jobsPids[0] as number;
    expect(pids.filter((pid) => roleOf(pid) === 'web')).toHaveLength(2);
    // Every thread of the jobs process at JOBS_NICE's default, the servers' at the priority they were
    // started with (the primary's: this test's, unless it runs under nice itself).
    const started = getPriority(proc.child.pid as number);
    const jobsNice = Math.max(10, started);
    expect(new Set(threadNiceValues(jobsPid))).toEqual(new Set([jobsNice]));
    for (const pid of pids.filter((p) => p !== jobsPid)) {
      expect(new Set(threadNiceValues(pid))).toEqual(new Set([started]));
    }

    expect(created.status).toBe(200);

    // With the jobs process stopped, the servers accept a document and leave its submission to it.
    process.kill(jobsPid, 'SIGSTOP');
    let first: Awaited<ReturnType<typeof call>>;
    try {
      first = await call(proc.port, '/api/enviar/items', token, documentBody('invoice', 1));
      expect(first.status).toBe(200);
      await new Promise((r) => setTimeout(r, 2_000));
      expect(await estadoOf(first.body.clave as string)).toBe('pendiente');
    } finally {
      process.kill(jobsPid, 'SIGCONT');
    }
    await leavesPendiente(first.body.clave as string, 20_000);
    // Running, it is woken by the next document at once: the poll (JOBS_POLL_INTERVAL_MS) is two minutes.
    const second = await call(proc.port, '/api/enviar/items', token, documentBody('invoice', 2));
    expect(second.status).toBe(200);
    await leavesPendiente(second.body.clave as string, 20_000);

    // A jobs process that dies is replaced, and its successor is woken as it was.
    const running = () => proc.output().split('tenant-api jobs worker running').length - 1;
    expect(running()).toBe(1);
    process.kill(jobsPid, 'SIGKILL');
    const deadline = Date.now() + 60_000;
    while (running() < 2) {
      if (Date.now() > deadline)
        throw new Error(`no jobs process replaced it:\n${proc.output().slice(-4000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const successors = workerPids().filter((pid) => roleOf(pid) === 'jobs');
    expect(successors).toHaveLength(1);
    expect(successors[0]).not.toBe(jobsPid);
    expect(new Set(threadNiceValues(successors[0] as number))).toEqual(new Set([jobsNice]));
    const third = await call(proc.port, '/api/enviar/items', token, documentBody('invoice', 3));
    expect(third.status).toBe(200);
    await leavesPendiente(third.body.clave as string, 20_000);
  }, 180_000);

  it('when requests arrive, then both workers serve them from the one database, and SIGTERM stops all', async () => {
    const pids = workerPids();
    expect(pids).toHaveLength(3);
    expect(created.status).toBe(200);
    for (let i = 0; i < 6; i += 1) {
      const found = await call(proc.port, '/api/consultar/emisor', token, { identificacion: 3101123456 });
      expect(found.status).toBe(200);
    }
    const served = new Set(
      proc
        .output()
        .split('\n')
        .filter(
          (l) => l.startsWith('{') && l.includes('"message":"request"') && l.includes('consultar/emisor'),
        )
        .map((l) => (JSON.parse(l) as { worker?: number }).worker),
    );
    expect(served).toEqual(new Set([0, 1]));
    // Four lookups, handed to the workers in turn: the first two take the tenant's two slots (and then fail,
    // as no Hacienda listens); the other two are refused by whichever worker gets them.
    const lookups: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      const r = await call(proc.port, '/api/hacienda/contribuyente', token, { identificacion: '3101123456' });
      lookups.push(r.status);
    }
    expect(lookups.slice(0, 2)).not.toContain(429);
    expect(lookups.slice(2)).toEqual([429, 429]);
    // A worker refused a lookup before it had granted two itself: the window is the cluster's.
    const lookupLines = () =>
      proc
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{') && l.includes('"message":"request"') && l.includes('contribuyente'))
        .map((l) => JSON.parse(l) as { worker: number; status: number });
    // The workers' log lines reach the primary's output a moment after their responses.
    for (let wait = 0; lookupLines().length < 4 && wait < 50; wait += 1) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const served4 = lookupLines();
    expect(served4).toHaveLength(4);
    const grantedBy = (w: number) => served4.filter((l) => l.worker === w && l.status !== 429).length;
    expect(served4.some((l) => l.status === 429 && grantedBy(l.worker) < 2)).toBe(true);
    // One /metrics for the cluster, in the primary: the six lookups served by two workers add up.
    const scraped = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(scraped).toMatch(
      /http_requests_total\{[^}]*route="\/api\/consultar\/emisor"[^}]*status="200"[^}]*\} 6\n/,
    );

    await proc.stop();
    expect(proc.child.exitCode).toBe(0);
    const out = proc.output();
    for (const slot of [0, 1, 2]) {
      expect(out).toMatch(
        new RegExp(`"message":"shutting down".*"worker":${slot}|"worker":${slot}.*"message":"shutting down"`),
      );
    }
    expect(pids.filter(alive)).toEqual([]);
  }, 120_000);
});

describe('tenant-api cluster on the embedded database', () => {
  it('when WEB_CONCURRENCY asks for two processes without DATABASE_URL, then it refuses to start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tenant-cluster-embedded-'));
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    delete env.DATABASE_URL;
    Object.assign(env, {
      NODE_OPTIONS: '',
      WEB_CONCURRENCY: '2',
      SECRETS_KEY: SecretBox.generateSetting('c2'),
      AUTH_PUBLIC_KEY_PATH: join(dir, 'missing.pem'),
      DATA_DIR: join(dir, 'data'),
      TENANT_PORT: '0',
    });
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(REPO_ROOT, 'apps/tenant-api/src/main.ts')],
      {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    removeTree(dir);
    expect(code).toBe(2);
    expect(stderr).toContain('WEB_CONCURRENCY: 2 processes need DATABASE_URL');
  }, 60_000);
});
