// What a short transaction costs, the shape of almost every transaction the services run: a `withTenant`-style
// opening (two transaction-local settings) and one or two parameterised statements by key. CPU per transaction
// of this process (the client) and, on PostgreSQL, of the server's backend (from /proc), on the embedded
// PGlite and, with BENCH_DATABASE_URL, on PostgreSQL (ADR 0046: the opening travels with the first statement).
// The ratio is to raw RSA signing measured in the same run. Rewrites `## service-kit (transactions)`.
// `pnpm --filter @cr/service-kit bench`.
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import {
  describeOtherWork,
  describeSigningPath,
  loadAverages,
  rawSigningRate,
  startOtherWork,
  writePerformanceSection,
} from '@cr/testkit';
import { type Db, openPglite, openPostgres } from '../src';

const N = Number(process.env.BENCH_TRANSACTIONS ?? 5_000);
const WARM = 1_000;
const ROWS = 1_000;

/** CPU milliseconds a process has used (user + system), from /proc at the kernel's 100 Hz. */
function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const begin = [
  "SELECT set_config('app.tenant_id', 'bench', true)",
  "SELECT set_config('app.actor', 'bench', true)",
];

const shapes = {
  'one statement (a read by key)': (db: Db, i: number) =>
    db.transaction((tx) => tx.query('SELECT v FROM bench_rows WHERE id = $1', [1 + (i % ROWS)]), { begin }),
  'one statement, the whole transaction (`oneStatement`)': (db: Db, i: number) =>
    db.transaction((tx) => tx.query('SELECT v FROM bench_rows WHERE id = $1', [1 + (i % ROWS)]), {
      begin,
      oneStatement: true,
    }),
  'two statements (a read and an update by key)': (db: Db, i: number) =>
    db.transaction(
      async (tx) => {
        await tx.query('SELECT v FROM bench_rows WHERE id = $1', [1 + (i % ROWS)]);
        await tx.query('UPDATE bench_rows SET v = $2 WHERE id = $1', [1 + (i % ROWS), `v${i}`]);
      },
      { begin },
    ),
};

interface Row {
  engine: string;
  shape: string;
  perSecond: number;
  clientUs: number;
  serverUs?: number;
}

async function measure(engine: string, db: Db, serverPid?: number): Promise<Row[]> {
  await db.exec(
    `DROP TABLE IF EXISTS bench_rows; CREATE TABLE bench_rows (id int PRIMARY KEY, v text);
     INSERT INTO bench_rows SELECT g, md5(g::text) FROM generate_series(1, ${ROWS}) g`,
  );
  const rows: Row[] = [];
  for (const [shape, run] of Object.entries(shapes)) {
    for (let i = 0; i < WARM; i++) await run(db, i);
    const cpu0 = process.cpuUsage();
    const server0 = serverPid ? processCpuMs(serverPid) : 0;
    const t0 = performance.now();
    for (let i = 0; i < N; i++) await run(db, i);
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    rows.push({
      engine,
      shape,
      perSecond: (N * 1000) / wallMs,
      clientUs: (cpu.user + cpu.system) / N,
      ...(serverPid ? { serverUs: ((processCpuMs(serverPid) - server0) * 1000) / N } : {}),
    });
  }
  await db.exec('DROP TABLE bench_rows');
  return rows;
}

async function main(): Promise<void> {
  const loadStart = loadAverages();
  const other = startOtherWork();
  const rsa = rawSigningRate();
  const rows: Row[] = [];
  const pglite = await openPglite();
  try {
    rows.push(...(await measure('PGlite', pglite)));
  } finally {
    await pglite.close();
  }
  const url = process.env.BENCH_DATABASE_URL;
  if (url) {
    // One connection, so one backend does all the server's work and its CPU can be read.
    const postgres = openPostgres({ connectionString: url, max: 1, applicationName: 'bench-transactions' });
    try {
      const pid = (await postgres.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      rows.push(...(await measure('PostgreSQL', postgres, pid)));
    } finally {
      await postgres.close();
    }
  }
  const table = [
    "| engine | transaction | per second, one after another | this process's CPU µs per transaction (PGlite: its thread too) | the PostgreSQL backend's CPU µs per transaction | of raw RSA rate |",
    '|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.engine} | ${r.shape} | ${Math.round(r.perSecond).toLocaleString('en-US')} | ${Math.round(r.clientUs)} | ${r.serverUs === undefined ? '— (in the process)' : Math.round(r.serverUs)} | ${((100 * r.perSecond) / rsa).toFixed(0)}% |`,
    ),
  ].join('\n');
  const section = `## service-kit (transactions)

Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${cpus()[0]?.model.trim() ?? 'unknown CPU'} (${cpus().length} cores), Node ${process.version}; load average at the start ${loadStart}, at the end ${loadAverages()}; ${describeOtherWork(other())}. Command: \`pnpm --filter @cr/service-kit bench\` (\`BENCH_DATABASE_URL=postgres://…\` adds PostgreSQL: a table is created and dropped in that database). ${N.toLocaleString('en-US')} transactions per row, one after another on one connection, after ${WARM.toLocaleString('en-US')} for warm-up; each opens with two transaction-local settings, as \`withTenant\` does. CPU is this process's (on PGlite, the database's thread too) and the PostgreSQL backend's (/proc, 10-ms ticks). Raw RSA-2048 signing in the same run: ${Math.round(rsa).toLocaleString('en-US')}/s on one thread (${describeSigningPath()}).

${table}

On PostgreSQL a transaction's BEGIN and its opening statements travel with its first statement, so a one-statement transaction takes two round trips (the statement, the COMMIT) and a two-statement one three (ADR 0046); with \`oneStatement\` the COMMIT travels with the statement too, and the transaction is one round trip (ADR 0047). On PGlite the opening, every statement and the transaction's end are messages to the database's thread (ADR 0039); with \`oneStatement\` the whole transaction is one message.
`;
  writePerformanceSection('## service-kit (transactions)', section);
  console.info(section);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
