// Benchmark: requests/s of POST /api/consultar/emisor with full token verification (RS256, kid, claims,
// tenant, revocation) versus the same route with verification bypassed in this harness, on the embedded
// database. Goal: verification costs ≤ 15% of the route's throughput. Writes its section of docs/performance.md.
import { cpus } from 'node:os';
import type { TokenClaims } from '@cr/contracts';
import { createCabysSearch } from '@cr/cabys';
import { SecretBox, createLogger, listen, migrate, openPglite } from '@cr/service-kit';
import { cpuModel, describeOtherWork, loadAverages, startOtherWork } from '@cr/testkit';
import autocannon from 'autocannon';
import { benchAuth, unreachableHacienda, writePerformanceSection } from './support';
import { type TenantApiSettings, composeTenantApi, tenantConfig } from '../src/compose';
import { tenantApiMigrations } from '../src/db/with-tenant';
import { registerIssuer } from '../src/emisor/register-issuer';
import { issuerBody } from '../test/support/issuer-mother';

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);

async function main(): Promise<void> {
  const other = startOtherWork();
  const logger = createLogger({ service: 'tenant-api-bench', level: 'error' });
  const db = await openPglite();
  await migrate(db, tenantApiMigrations());
  const { token, verifier: real } = benchAuth();
  // The bypass trusts the payload unchecked: it exists only in this harness to measure what verifying costs.
  const bypass = {
    verify: async (t: string): Promise<TokenClaims> =>
      JSON.parse(Buffer.from(t.split('.')[1]!, 'base64url').toString('utf8')) as TokenClaims,
  };

  // Only issuers are read here (bench/submission.ts and bench/cabys.ts measure the rest); Hacienda is never
  // called, and its settings point where nothing listens.
  const compose = (verifier: TenantApiSettings['verifier']) =>
    composeTenantApi({
      config: tenantConfig(unreachableHacienda()),
      db,
      logger,
      secrets,
      verifier,
      cabys: createCabysSearch({}),
      checkIssuersWithHacienda: false,
    });
  const secrets = SecretBox.fromSetting(SecretBox.generateSetting('b1'));
  const verified = compose(real);
  await registerIssuer(verified.issuerDeps, { tenantId: 'acme', body: issuerBody() });
  const servers = {
    verified: await listen(verified.app, 0, '127.0.0.1'),
    bypassed: await listen(compose(bypass).app, 0, '127.0.0.1'),
  };

  const run = async (url: string) => {
    const r = await autocannon({
      url: `${url}/api/consultar/emisor`,
      method: 'POST',
      connections: 10,
      duration: DURATION_S,
      headers: {
        host: 'acme.localhost',
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ identificacion: 3101123456 }),
    });
    if (r.non2xx > 0) throw new Error(`${r.non2xx} non-2xx answers`);
    return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 };
  };

  // The verification alone, in a loop: what one request pays for it.
  for (let i = 0; i < 200; i++) await real.verify(token, 'acme');
  const loops = 3000;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < loops; i++) await real.verify(token, 'acme');
  const verifyUs = Number(process.hrtime.bigint() - t0) / 1e3 / loops;

  // Warm up both, then alternate so drift on a shared machine hits both alike.
  await run(servers.verified.url);
  await run(servers.bypassed.url);
  const rows: Array<[string, { rps: number; p50: number; p99: number }]> = [];
  for (let i = 0; i < 2; i++) {
    rows.push(['verified', await run(servers.verified.url)]);
    rows.push(['bypassed', await run(servers.bypassed.url)]);
  }
  await servers.verified.close();
  await servers.bypassed.close();
  await db.close();

  const avg = (name: string) => {
    const r = rows.filter(([n]) => n === name).map(([, v]) => v);
    return {
      rps: r.reduce((s, v) => s + v.rps, 0) / r.length,
      p50: r.reduce((s, v) => s + v.p50, 0) / r.length,
      p99: r.reduce((s, v) => s + v.p99, 0) / r.length,
    };
  };
  const v = avg('verified');
  const b = avg('bypassed');
  const cost = (1 - v.rps / b.rps) * 100;
  const share = (verifyUs / (1e6 / b.rps)) * 100;
  const load = loadAverages();
  const otherWork = describeOtherWork(other());
  const cpu = cpuModel();
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  const section = [
    '## tenant-api (issuers)',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${cpu} (nproc ${cpus().length}), Node ${process.version}; server and autocannon (10 connections) in one process, embedded database (PGlite), ${DURATION_S} s per run, two alternating runs each after a warm-up. Command: \`pnpm --filter @cr/tenant-api bench\`.`,
    '',
    '| POST /api/consultar/emisor | requests/s | p50 ms | p99 ms |',
    '|---|---|---|---|',
    `| token verified (RS256 by kid, iss, aud, exp, tenant, revocation) | ${fmt(v.rps)} | ${v.p50.toFixed(1)} | ${v.p99.toFixed(1)} |`,
    `| verification bypassed in the harness | ${fmt(b.rps)} | ${b.p50.toFixed(1)} | ${b.p99.toFixed(1)} |`,
    `| one verification alone (in a loop, same process) | ${fmt(1e6 / verifyUs)} | ${(verifyUs / 1000).toFixed(3)} | |`,
    '',
    '',
    `Throughput difference verified vs bypassed: ${cost.toFixed(1)}%; one verification (${verifyUs.toFixed(0)} µs) is ${share.toFixed(1)}% of a bypassed request's time (goal ≤ 15%: ${Math.max(cost, share) <= 15 ? 'met' : 'NOT met'}). Load average during the run: ${load}; ${otherWork} (HTTP figures move with other work; the loop figure is the stable one). The route itself is a tenant transaction (set_config + SET LOCAL ROLE + one indexed SELECT) on the single-session embedded engine, which dominates; the key is a cached KeyObject, so a verification is one RSA-2048 public-key operation plus claim checks.`,
    '',
  ].join('\n');

  writePerformanceSection('## tenant-api (issuers)', section);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
