// The tenant-api as a node:cluster (WEB_CONCURRENCY=2): both workers serve requests on the one port and
// share nothing but the database (an issuer registered through one is found through the other), and a
// SIGTERM to the primary drains both workers and ends every process with code 0. More than one process on
// the embedded database is refused at start. A tenant's rate limits hold for the cluster, not per worker.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SecretBox, type TestDatabase, createTestDatabase } from '@cr/service-kit';
import { type AppProcess, REPO_ROOT, freePort, haciendaDataDir, removeTree, startApp } from '@cr/testkit';
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

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
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

  let metricsPort: number;

  beforeAll(async () => {
    db = await createTestDatabase();
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
        HACIENDA_PUBLIC_API_URL: 'http://127.0.0.1:9',
        // Two lookups per tenant a minute, for the whole cluster (a window per worker would give four).
        HACIENDA_LOOKUP_RATE_LIMIT: '2',
        TENANT_HOST: '127.0.0.1',
        LOG_LEVEL: 'http',
      },
      timeoutMs: 120_000,
    });
    const deadline = Date.now() + 120_000;
    while (!proc.output().includes('tenant-api cluster serving')) {
      if (Date.now() > deadline) throw new Error(`the second worker did not start:\n${proc.output()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }, 300_000);

  afterAll(async () => {
    await proc?.stop();
    await db?.close();
    removeTree(dir);
  });

  it('when requests arrive, then both workers serve them from the one database, and SIGTERM stops all', async () => {
    // The primary's children that run main.ts (tsx also keeps an esbuild service process).
    const workerPids = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(proc.child.pid)], {
      encoding: 'utf8',
    })
      .split('\n')
      .filter((l) => l.includes('main.ts'))
      .map((l) => Number(l.trim().split(/\s+/)[0]))
      .filter((n) => n > 0);
    expect(workerPids).toHaveLength(2);

    const token = forge.token('acme');
    const created = await call(proc.port, '/api/enviar/emisor', token, issuerBody());
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
    for (const slot of [0, 1]) {
      expect(out).toMatch(
        new RegExp(`"message":"shutting down".*"worker":${slot}|"worker":${slot}.*"message":"shutting down"`),
      );
    }
    expect(workerPids.filter(alive)).toEqual([]);
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
