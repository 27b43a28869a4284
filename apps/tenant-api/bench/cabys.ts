// Benchmark: CABYS searches per second and p50/p99 latency through HTTP (POST /api/hacienda/cabys with a
// verified RS256 token, the full middleware chain) over a mixed query set against the full catalogue, and the
// search function alone for comparison. Issue 15's goal (≥ 2,000 searches/s through HTTP) is judged with the
// service as a process, in "tenant-api (processes)"; this is the request path in one process. Writes its section of
// docs/performance.md.
import { cpus } from 'node:os';
import path from 'node:path';
import { createHaciendaClients } from '@cr/hacienda-client';
import { SecretBox, createLogger, listen, migrate, openPglite } from '@cr/service-kit';
import { cpuModel, describeOtherWork, haciendaDataDir, loadAverages, startOtherWork } from '@cr/testkit';
import autocannon from 'autocannon';
import { benchAuth, unreachableHacienda, writePerformanceSection } from './support';
import { composeTenantApi, tenantConfig } from '../src/compose';
import { tenantApiMigrations } from '../src/db/with-tenant';
import { loadTenantCabys } from '../src/lookups/cabys-catalogue';

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);
const SECTION = '## tenant-api (CABYS over HTTP)';
const QUERIES = [
  'cafe',
  'jugo de tomate',
  'jugo tomate',
  'arroz',
  'servicios de consultoria',
  'computadora portatil',
  'lapices',
  'cerveza',
  'medicamentos',
  'zapatos de cuero',
  'leche',
  'cemento',
  'software',
  'hamburguesa',
  'azucar',
  'transporte de carga',
  'reparacion de vehiculos',
  'telefono celular',
  'pan',
  'aceite de oliva',
  'tomatr', // one typo
  'cafe molido organico',
  '2132100000100', // exact code
  '2132', // category prefix
  'serv',
  'alquiler de oficinas',
  'limpieza',
  'huevos de gallina',
  'queso',
  'gasolina',
];

async function main(): Promise<void> {
  const other = startOtherWork();
  const logger = createLogger({ service: 'tenant-api-bench', level: 'error' });
  const db = await openPglite();
  await migrate(db, tenantApiMigrations());
  // Only the catalogue is searched; Hacienda's settings point where nothing listens.
  const hacienda = createHaciendaClients(unreachableHacienda());
  const publicApi = hacienda.publicApi;
  const cabys = await loadTenantCabys({
    dataDir: path.resolve(__dirname, '.no-imported-copy'),
    haciendaDataDir: process.env.HACIENDA_DATA_DIR ?? haciendaDataDir(),
    publicApi,
    logger,
  });
  if (cabys.source !== 'local') throw new Error('no CABYS catalogue: set HACIENDA_DATA_DIR');

  const { token, verifier } = benchAuth();
  const { app } = composeTenantApi({
    config: tenantConfig(unreachableHacienda()),
    db,
    logger,
    secrets: SecretBox.fromSetting(SecretBox.generateSetting('b1')),
    verifier,
    hacienda,
    cabys,
    checkIssuersWithHacienda: false,
  });
  const server = await listen(app, 0, '127.0.0.1');

  // The function alone: every query, many rounds.
  for (const q of QUERIES) await cabys.search(q);
  const samples: number[] = [];
  for (let round = 0; round < 50; round++) {
    for (const q of QUERIES) {
      const t0 = process.hrtime.bigint();
      await cabys.search(q, { limit: 50 });
      samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }
  samples.sort((a, b) => a - b);
  const pct = (p: number) => samples[Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))]!;
  const fnPerSec = 1000 / (samples.reduce((s, v) => s + v, 0) / samples.length);

  let i = 0;
  const run = () =>
    autocannon({
      url: `${server.url}/api/hacienda/cabys`,
      connections: 10,
      duration: DURATION_S,
      requests: [
        {
          method: 'POST',
          headers: {
            host: 'acme.localhost',
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
          },
          setupRequest: (req) => ({
            ...req,
            body: JSON.stringify({ name: QUERIES[i++ % QUERIES.length] }),
          }),
        },
      ],
    });
  await run(); // warm-up
  const r = await run();
  await server.close();
  await db.close();
  if (r.non2xx > 0) throw new Error(`${r.non2xx} non-2xx answers`);

  const load = loadAverages();
  const otherWork = describeOtherWork(other());
  const cpu = cpuModel();
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  const rps = r.requests.average;
  const section = [
    SECTION,
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${cpu} (nproc ${cpus().length}), Node ${process.version}; server and autocannon (10 connections) in one process, ${DURATION_S} s after a warm-up run; ${QUERIES.length} mixed queries in rotation (words, multi-word, accents-free, one typo, plural, a 13-digit code, a category prefix, a 4-letter prefix), limit 50, over the full catalogue (cabys.json from HACIENDA_DATA_DIR). Command: \`pnpm --filter @cr/tenant-api bench\`.`,
    '',
    '| CABYS search | searches/s | p50 ms | p99 ms |',
    '|---|---|---|---|',
    `| POST /api/hacienda/cabys (token verified, JSON in/out) | ${fmt(rps)} | ${r.latency.p50.toFixed(1)} | ${r.latency.p99.toFixed(1)} |`,
    `| the search function alone (same process, sequential) | ${fmt(fnPerSec)} | ${pct(50).toFixed(3)} | ${pct(99).toFixed(3)} |`,
    '',
    `Issue 15's goal, ≥ 2,000 searches/s through HTTP, is judged with the tenant-api as a process ("tenant-api (processes)"); here the server shares its process with the client. Load average during the run: ${load}; ${otherWork} (HTTP figures move with other work). The HTTP figure includes the bearer token's check (its RS256 signature once per token, ADR 0056); a search over the local index involves no database.`,
    '',
  ].join('\n');

  writePerformanceSection('## tenant-api (CABYS over HTTP)', section);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
