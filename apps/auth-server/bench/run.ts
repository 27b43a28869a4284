// `pnpm bench`: logins/s, JWKS requests/s, token signing/s against raw RSA-2048 crypto.sign, and /health
// p99 while logins saturate the CPU, against BOTH engines: the embedded PGlite, and a real PostgreSQL when
// BENCH_DATABASE_URL names a server (a throwaway database is created for the run and dropped after). The
// server is `src/main.ts` in its own process on loopback with OWASP argon2 parameters; autocannon drives it
// from this (separate) process. With `taskset`, the JWKS phase pins the server to CPU 0 and this process to
// CPU 1, so "one core" means one core; the login flood gives the server both cores (HASH_CONCURRENCY =
// cores − 1, as deployed), then confines it to one core; /health is probed by a process of its own during
// both floods. A preloaded monitor (bench/loop-monitor.ts) reports the server's event-loop
// delay per phase. Every phase is bounded in time. Writes `## auth-server` in docs/performance.md; what the
// figures showed is written under that section's notes marker, which a run keeps.
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { SecretBox, createLogger, migrate, openPglite, openPostgres, readMigrations } from '@cr/service-kit';
import { cpuModel, describeOtherWork, startOtherWork, writePerformanceSection } from '@cr/testkit';
import { createAuthServices } from '../src/services';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

function rate(fn: () => void, ms: number): number {
  const end = performance.now() + ms;
  let n = 0;
  const started = performance.now();
  while (performance.now() < end) {
    fn();
    n++;
  }
  return n / ((performance.now() - started) / 1000);
}

async function measureSigning(): Promise<{ raw: number; token: number }> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const input = Buffer.from(`${'e'.repeat(36)}.${'p'.repeat(300)}`);
  const raw = rate(() => sign('sha256', input, privateKey), 3000);

  const db = await openPglite();
  await migrate(db, readMigrations(join(__dirname, '..', 'migrations')));
  const services = await createAuthServices({
    db,
    secretBox: new SecretBox([{ id: 'b1', key: randomBytes(32) }]),
    logger: createLogger({ service: 'bench', level: 'silent' }),
  });
  const token = rate(() => services.tokens.issue('acme'), 3000);
  await db.close();
  return { raw, token };
}

function run(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(opts, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

function machine(): string {
  return `${cpuModel()}, ${cpus().length} cores (nproc), Node ${process.version}`;
}

interface ProbeStats {
  n: number;
  failures: number;
  p50: number;
  p99: number;
  max: number;
}

/**
 * /health latencies from a process of its own (bench/health-probe.ts), started and ready before `during`
 * runs, measuring for as long as it lasts; optionally pinned to `cpuList`.
 */
async function probeHealth<T>(
  url: string,
  cpuList: string | undefined,
  during: () => Promise<T>,
): Promise<[T, ProbeStats]> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(__dirname, 'health-probe.ts'), url, String(SECONDS * 1000)],
    {
      cwd: join(__dirname, '..'),
      env: { ...process.env, NODE_OPTIONS: '' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  if (cpuList) pin(child.pid!, cpuList);
  let out = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.startsWith('ready\n')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the /health probe exited with ${code}: ${out}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await ready;
  const result = await during();
  await exited;
  const stats = JSON.parse(out.trim().split('\n').pop()!) as ProbeStats;
  return [result, stats];
}

interface LoopStats {
  p50: number;
  p99: number;
  max: number;
}

interface Server {
  url: string;
  pid: number;
  loop(cmd: 'loop-reset' | 'loop-stats'): Promise<LoopStats>;
  stop(): Promise<void>;
}

const HAS_TASKSET = spawnSync('taskset', ['-V'], { stdio: 'ignore' }).status === 0;

/** Pins every thread of a process to the given CPUs; false when taskset is missing or refuses. */
function pin(pid: number, cpuList: string): boolean {
  if (!HAS_TASKSET || cpus().length < 2) return false;
  return spawnSync('taskset', ['-a', '-p', '-c', cpuList, String(pid)], { stdio: 'ignore' }).status === 0;
}

async function startServer(env: Record<string, string | undefined>): Promise<Server> {
  const port = await freePort();
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...env })) if (v !== undefined) childEnv[k] = v;
  childEnv.AUTH_PORT = String(port);
  childEnv.NODE_OPTIONS = '';
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--import', './bench/loop-monitor.ts', 'src/main.ts'],
    { cwd: join(__dirname, '..'), env: childEnv, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] },
  );
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`auth-server exited with ${child.exitCode}:\n${out}`);
    try {
      if ((await fetch(`${url}/health/ready`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`auth-server did not become ready in time:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid: child.pid!,
    loop: (cmd) =>
      new Promise((resolve) => {
        child.once('message', (m) => resolve(m as LoopStats));
        child.send(cmd);
      }),
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

interface EngineResult {
  engine: string;
  jwks: autocannon.Result;
  jwksLoop: LoopStats;
  jwksPinned: boolean;
  logins: autocannon.Result;
  flood: autocannon.Result;
  health: ProbeStats;
  floodLoop: LoopStats;
  load: number;
  /** The same flood with the server confined to one core (its hashing thread shares it with the loop). */
  oneCore?: { flood: autocannon.Result; health: ProbeStats; floodLoop: LoopStats };
}

async function benchEngine(engine: string, databaseUrl: string | undefined): Promise<EngineResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'auth-bench-'));
  const adminToken = randomBytes(24).toString('base64url');
  const app = await startServer({
    DATA_DIR: dataDir,
    AUTH_ADMIN_TOKEN: adminToken,
    LOG_LEVEL: 'warn',
    AUTH_HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
  });
  try {
    const password = 'bench-password-0123456789';
    const created = await fetch(`${app.url}/admin/clients`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ base: 'bench', password }),
    });
    if (created.status !== 201) throw new Error(`could not create the bench client: ${created.status}`);

    // One core for the server, the other for the load generator.
    const jwksPinned = pin(app.pid, '0') && pin(process.pid, '1');
    await run({ url: `${app.url}/.well-known/jwks.json`, connections: 10, duration: 1 });
    await app.loop('loop-reset');
    const jwks = await run({ url: `${app.url}/.well-known/jwks.json`, connections: 20, duration: SECONDS });
    const jwksLoop = await app.loop('loop-stats');
    if (jwksPinned) {
      const all = `0-${cpus().length - 1}`;
      pin(app.pid, all);
      pin(process.pid, all);
    }
    process.stdout.write(
      `[${engine}] JWKS: ${jwks.requests.average.toFixed(0)} req/s, p99 ${jwks.latency.p99} ms${jwksPinned ? ' (server pinned to CPU 0)' : ''}; loop delay p99 ${jwksLoop.p99.toFixed(1)} ms\n`,
    );

    const loginOpts: autocannon.Options = {
      url: `${app.url}/login`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ base: 'bench', password }),
      connections: 16,
      duration: SECONDS,
    };
    const logins = await run(loginOpts);
    process.stdout.write(
      `[${engine}] logins: ${(logins['2xx'] / SECONDS).toFixed(0)}/s (non-2xx ${logins.non2xx}), p99 ${logins.latency.p99} ms\n`,
    );

    await app.loop('loop-reset');
    const [flood, health] = await probeHealth(app.url, undefined, () =>
      run({ ...loginOpts, connections: 64 }),
    );
    const floodLoop = await app.loop('loop-stats');
    const load = loadavg()[0]!;
    process.stdout.write(
      `[${engine}] /health under a login flood (${(flood['2xx'] / SECONDS).toFixed(0)} logins/s): p50 ${health.p50.toFixed(1)} ms, p99 ${health.p99.toFixed(1)} ms, max ${health.max.toFixed(0)} ms (failures ${health.failures}); server loop delay p99 ${floodLoop.p99.toFixed(1)} ms, max ${floodLoop.max.toFixed(0)} ms; load average ${load.toFixed(1)}\n`,
    );

    // One core for the server: its argon2 thread and its event loop share it, as in a one-CPU container.
    let oneCore: EngineResult['oneCore'];
    if (pin(app.pid, '0') && pin(process.pid, '1')) {
      await app.loop('loop-reset');
      const [flood1, health1] = await probeHealth(app.url, '1', () => run({ ...loginOpts, connections: 64 }));
      oneCore = { flood: flood1, health: health1, floodLoop: await app.loop('loop-stats') };
      const all = `0-${cpus().length - 1}`;
      pin(app.pid, all);
      pin(process.pid, all);
      process.stdout.write(
        `[${engine}] /health under a login flood, server on one core (${(flood1['2xx'] / SECONDS).toFixed(0)} logins/s): p50 ${health1.p50.toFixed(1)} ms, p99 ${health1.p99.toFixed(1)} ms, max ${health1.max.toFixed(0)} ms (failures ${health1.failures})\n`,
      );
    }
    return { engine, jwks, jwksLoop, jwksPinned, logins, flood, health, floodLoop, load, oneCore };
  } finally {
    await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A throwaway database on the server named by BENCH_DATABASE_URL, dropped after the run. */
async function withBenchDatabase<T>(adminUrl: string, fn: (url: string) => Promise<T>): Promise<T> {
  const name = `auth_bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const admin = openPostgres({ connectionString: adminUrl, max: 1 });
  await admin.exec(`CREATE DATABASE ${name}`);
  try {
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return await fn(url.toString());
  } finally {
    await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.close();
  }
}

const met = (ok: boolean) => (ok ? 'met' : '**not met**');

function rows(r: EngineResult): string {
  const jwks = r.jwks.requests.average;
  const healthRow = (label: string, flood: autocannon.Result, h: ProbeStats, loop: LoopStats, extra = '') =>
    `| ${r.engine} | /health p99 while 64 connections flood /login${label} (${(flood['2xx'] / SECONDS).toFixed(0)} logins/s) | ${h.p99.toFixed(1)} ms (p50 ${h.p50.toFixed(1)} ms, max ${h.max.toFixed(0)} ms; server loop delay p99 ${loop.p99.toFixed(1)} ms, max ${loop.max.toFixed(0)} ms${extra}) | < 20 ms: ${met(h.p99 < 20 && h.failures === 0)} |`;
  return [
    `| ${r.engine} | JWKS requests/s (20 connections${r.jwksPinned ? ', server pinned to one core' : ', not pinned'}) | ${jwks.toFixed(0)} (p99 ${r.jwks.latency.p99} ms; loop delay p99 ${r.jwksLoop.p99.toFixed(1)} ms) | ≥ 5,000: ${met(jwks >= 5000)} |`,
    `| ${r.engine} | logins/s (16 connections, argon2id verify + sign + DB) | ${(r.logins['2xx'] / SECONDS).toFixed(0)} (p99 ${r.logins.latency.p99} ms) | bounded by argon2 |`,
    healthRow('', r.flood, r.health, r.floodLoop, `; load average ${r.load.toFixed(1)}`),
    ...(r.oneCore
      ? [healthRow(', server on one core', r.oneCore.flood, r.oneCore.health, r.oneCore.floodLoop)]
      : []),
  ].join('\n');
}

async function main(): Promise<void> {
  const other = startOtherWork();
  const signing = await measureSigning();
  process.stdout.write(
    `raw RSA-2048 sign: ${signing.raw.toFixed(0)}/s; token issue: ${signing.token.toFixed(0)}/s\n`,
  );
  const results: EngineResult[] = [await benchEngine('PGlite', undefined)];
  const pgUrl = process.env.BENCH_DATABASE_URL;
  if (pgUrl) results.push(await withBenchDatabase(pgUrl, (url) => benchEngine('PostgreSQL', url)));
  else process.stdout.write('BENCH_DATABASE_URL is not set: PostgreSQL skipped\n');

  const signingRatio = signing.token / signing.raw;
  const otherWork = describeOtherWork(other());
  const section = `## auth-server

Measured ${new Date().toISOString().slice(0, 10)} on ${machine()}; ${otherWork}. The load average (1 min),
which counts this bench's own processes too, is given next to the latency figure. Server:
\`src/main.ts\` as its own process on loopback, argon2id m=19456 KiB t=2 p=1, HASH_CONCURRENCY = cores − 1;
load from autocannon in the separate bench process (${SECONDS} s per phase), /health requested every 10 ms by a
process of its own (bench/health-probe.ts)${HAS_TASKSET ? '; JWKS with the server pinned to CPU 0 and the load generator to CPU 1 (`taskset`)' : ''}.
Event-loop delay is sampled inside the server (\`monitorEventLoopDelay\`, 10 ms resolution, so ~10 ms is the floor).
${pgUrl ? '' : '\nPostgreSQL was not measured in this run (BENCH_DATABASE_URL unset).\n'}
| engine | metric | result | goal |
| --- | --- | --- | --- |
| — | token signing/s (TokenService.issue: claims + compact JWS with node:crypto) | ${signing.token.toFixed(0)} | |
| — | raw RSA-2048 \`crypto.sign\`/s, same run | ${signing.raw.toFixed(0)} | |
| — | signing / raw | ${Math.floor(signingRatio * 100)}% | ≥ 80%: ${met(signingRatio >= 0.8)} |
${results.map(rows).join('\n')}
`;
  writePerformanceSection('## auth-server', section);
  process.stdout.write(section);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
