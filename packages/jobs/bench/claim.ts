// Claim benchmark: what a worker's claim costs on the embedded PGlite (and on PostgreSQL with
// BENCH_DATABASE_URL), the tenant-api's most expensive statement in the pipeline bench. A worker with the
// tenant-api's four submission queues claims and records jobs round after round, in three shapes: one tenant
// with two due jobs a round (the pipeline's), fifty tenants with a backlog of a thousand, and nothing due.
// Time per statement kind is taken at the Db the worker is given; the ratio is to raw RSA signing measured
// in the same run. Rewrites the `jobs (claim)` section of docs/performance.md.
// `pnpm --filter @cr/jobs bench`.
import { cpus } from 'node:os';
import { type Db, createTestDatabase, migrate, openPglite } from '@cr/service-kit';
import {
  describeOtherWork,
  loadAverages,
  describeSigningPath,
  rawSigningRate,
  startOtherWork,
  writePerformanceSection,
} from '@cr/testkit';
import { Worker, enqueue, jobsMigrations } from '../src';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1_500);
const QUEUES = ['submit', 'status', 'recepcion', 'deadline'];

type Kind = 'claim' | 'record' | 'other';
const kindOf = (sql: string): Kind =>
  sql.includes('jobs_record(') ? 'record' : sql.includes('jobs_claim(') ? 'claim' : 'other';

/** The worker's Db, timing each statement it sends by kind (what the worker does is unchanged). */
function timed(db: Db) {
  const spent = { claim: 0, record: 0, other: 0 };
  const calls = { claim: 0, record: 0, other: 0 };
  const wrapped: Db = Object.assign(Object.create(db) as Db, {
    query: async (sql: string, params?: unknown[]) => {
      const kind = kindOf(sql);
      const t0 = performance.now();
      try {
        return await db.query(sql, params);
      } finally {
        spent[kind] += performance.now() - t0;
        calls[kind] += 1;
      }
    },
  });
  const reset = () => {
    for (const k of ['claim', 'record', 'other'] as const) {
      spent[k] = 0;
      calls[k] = 0;
    }
  };
  return { db: wrapped, spent, calls, reset };
}

interface Shape {
  name: string;
  tenants: number;
  /** Jobs enqueued per round (spread over the tenants and queues). */
  perRound: number;
  /** Jobs waiting before the rounds start. */
  backlog: number;
}

const SHAPES: Shape[] = [
  { name: 'one tenant, 2 due a round', tenants: 1, perRound: 2, backlog: 0 },
  { name: '50 tenants, backlog 1,000, 8 a round', tenants: 50, perRound: 8, backlog: 1_000 },
  { name: 'nothing due', tenants: 1, perRound: 0, backlog: 0 },
];

async function measureShape(raw: Db, shape: Shape) {
  await raw.exec('DELETE FROM jobs; DELETE FROM job_lanes;');
  let n = 0;
  const add = (count: number) =>
    raw.transaction(async (tx) => {
      for (let i = 0; i < count; i++, n++) {
        await enqueue(tx, {
          queue: QUEUES[n % QUEUES.length]!,
          tenant: `tenant-${n % shape.tenants}`,
          payload: { n },
        });
      }
    });
  await add(shape.backlog);
  const clock = timed(raw);
  const worker = new Worker({
    db: clock.db,
    concurrency: 8,
    queues: Object.fromEntries(QUEUES.map((q) => [q, { handler: async () => undefined }])),
  });
  const round = async () => {
    if (shape.perRound > 0) await add(shape.perRound);
    await worker.runOnce();
  };
  for (let i = 0; i < 100; i++) await round();
  clock.reset();
  const t0 = performance.now();
  for (let i = 0; i < ROUNDS; i++) await round();
  const wall = performance.now() - t0;
  return {
    shape,
    claimMs: clock.spent.claim / clock.calls.claim,
    recordMs: clock.calls.record ? clock.spent.record / clock.calls.record : 0,
    jobsPerClaim: clock.calls.record / clock.calls.claim,
    otherPerRound: clock.calls.other / ROUNDS,
    claimsPerSecond: (clock.calls.claim / clock.spent.claim) * 1000,
    roundMs: wall / ROUNDS,
  };
}

async function engine(label: string, url: string | undefined) {
  const db = url ? await createTestDatabase(url) : await openPglite();
  try {
    await migrate(db, jobsMigrations);
    const rows = [];
    for (const shape of SHAPES) rows.push({ label, ...(await measureShape(db, shape)) });
    return rows;
  } finally {
    await db.close();
  }
}

async function main(): Promise<void> {
  const loadBefore = loadAverages();
  const other = startOtherWork();
  const rsa = rawSigningRate();
  const rows = await engine('PGlite', undefined);
  if (process.env.BENCH_DATABASE_URL)
    rows.push(...(await engine('PostgreSQL', process.env.BENCH_DATABASE_URL)));
  const loadAfter = loadAverages();
  const otherWork = describeOtherWork(other());
  const table = rows.map(
    (r) =>
      `| ${r.label} | ${r.shape.name} | ${r.claimMs.toFixed(2)} | ${r.jobsPerClaim.toFixed(2)} | ${r.recordMs.toFixed(2)} | ${r.roundMs.toFixed(2)} | ${((r.claimsPerSecond / rsa) * 100).toFixed(1)}% |`,
  );
  const section = [
    '## jobs (claim)',
    '',
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${cpus()[0]?.model.trim()} (${cpus().length} cores), Node ${process.version}; load average before ${loadBefore}, after ${loadAfter}; ${otherWork}. ${ROUNDS} rounds per shape after 100 for warm-up: a worker with four queues and 8 slots claims (\`runOnce\`), its no-op handlers finish, their outcomes are recorded; the jobs of a round are enqueued before it. Times are taken where the worker calls its Db (PGlite: through its thread); a round's records overlap, so \`record ms\` includes waiting for the others. Raw RSA-2048 signing in the same run: ${rsa.toFixed(0)}/s on one thread (${describeSigningPath()}). Command: \`pnpm --filter @cr/jobs bench\` (\`BENCH_DATABASE_URL\` adds PostgreSQL).`,
    '',
    '| engine | shape | claim ms | jobs per claim | record ms | round ms | claims/s of raw RSA rate |',
    '|---|---|---|---|---|---|---|',
    ...table,
    '',
  ].join('\n');
  console.info(section);
  writePerformanceSection('## jobs (claim)', section);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
