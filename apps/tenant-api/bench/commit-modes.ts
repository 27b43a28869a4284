// What a submission's commit costs on PostgreSQL under each durability setting (ADR 0023): CONNECTIONS
// clients each committing transactions shaped like a submission (an 11 KB document row and a job row),
// with synchronous_commit on (the default: wait for the WAL flush), on with group commit tuned
// (commit_delay/commit_siblings, so one flush carries several commits), and off (no wait; a crash may lose
// the last few hundred milliseconds of acknowledged commits). Modes alternate in short slices so machine
// noise spreads over all of them. Needs BENCH_DATABASE_URL (a superuser: commit_delay is a superuser
// setting); creates and drops a throw-away database. Writes `## PostgreSQL commit modes`.
import { randomBytes } from 'node:crypto';
import { openPostgres } from '@cr/service-kit';
import { loadAverages } from '@cr/testkit';
import { writePerformanceSection } from './support';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const SLICE_S = Number(process.env.BENCH_SLICE_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const MODES: Record<string, string[]> = {
  'synchronous_commit = on (default)': ['SET LOCAL synchronous_commit = on'],
  'on, commit_delay = 100 µs, commit_siblings = 3': [
    'SET LOCAL synchronous_commit = on',
    'SET LOCAL commit_delay = 100',
    'SET LOCAL commit_siblings = 3',
  ],
  'synchronous_commit = off': ['SET LOCAL synchronous_commit = off'],
};

async function main(): Promise<void> {
  const adminUrl = process.env.BENCH_DATABASE_URL;
  if (!adminUrl) throw new Error('BENCH_DATABASE_URL: a PostgreSQL server is required');
  const admin = openPostgres({ connectionString: adminUrl, max: 1 });
  const name = `bench_commit_${randomBytes(3).toString('hex')}`;
  await admin.exec(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = openPostgres({ connectionString: url.toString(), max: CONNECTIONS });
  const load0 = loadAverages();
  const fsync = (await db.query<{ fsync: string }>('SHOW fsync')).rows[0]?.fsync;
  try {
    await db.exec(`CREATE TABLE docs (id bigserial PRIMARY KEY, xml text NOT NULL, created_at timestamptz DEFAULT now());
                   CREATE TABLE jobs (id bigserial PRIMARY KEY, payload jsonb NOT NULL, run_at timestamptz DEFAULT now())`);
    const xml = randomBytes(8_400).toString('base64'); // ≈ 11 KB, as a signed 5-line invoice
    const commits: Record<string, number> = Object.fromEntries(Object.keys(MODES).map((m) => [m, 0]));
    const seconds: Record<string, number> = Object.fromEntries(Object.keys(MODES).map((m) => [m, 0]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [mode, settings] of Object.entries(MODES)) {
        const until = Date.now() + SLICE_S * 1000;
        const t0 = performance.now();
        await Promise.all(
          Array.from({ length: CONNECTIONS }, async () => {
            while (Date.now() < until) {
              await db.transaction(async (tx) => {
                await tx.exec(settings.join('; ')); // one round trip in every mode
                const d = await tx.query<{ id: string }>('INSERT INTO docs (xml) VALUES ($1) RETURNING id', [
                  xml,
                ]);
                await tx.query('INSERT INTO jobs (payload) VALUES ($1::jsonb)', [
                  JSON.stringify({ documentId: d.rows[0]?.id }),
                ]);
              });
              commits[mode] = (commits[mode] ?? 0) + 1;
            }
          }),
        );
        seconds[mode] = (seconds[mode] ?? 0) + (performance.now() - t0) / 1000;
      }
    }
    const load1 = loadAverages();
    const base =
      (commits['synchronous_commit = on (default)'] ?? 0) /
      (seconds['synchronous_commit = on (default)'] ?? 1);
    const rows = Object.keys(MODES).map((m) => {
      const rate = (commits[m] ?? 0) / (seconds[m] ?? 1);
      return `| ${m} | ${Math.round(rate).toLocaleString('en-US')} | ${(rate / base).toFixed(2)}× |`;
    });
    writePerformanceSection(
      '## PostgreSQL commit modes',
      [
        '## PostgreSQL commit modes',
        '',
        `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, PostgreSQL at ${url.host} (fsync ${fsync}), ${CONNECTIONS} connections each committing submission-shaped transactions (an 11 KB row and a job row), modes alternating in ${SLICE_S} s slices, ${ROUNDS} rounds. Command: \`BENCH_DATABASE_URL=postgres://… pnpm --filter @cr/tenant-api exec tsx bench/commit-modes.ts\`. **Load average at the start / end: ${load0} / ${load1}** (shared machine: re-run quiet; the ratios between modes, measured in the same slices, are the figure that matters). Decision: ADR 0023.`,
        '',
        '| mode | commits/s | vs default |',
        '|---|---|---|',
        ...rows,
        '',
      ].join('\n'),
    );
  } finally {
    await db.close();
    await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
