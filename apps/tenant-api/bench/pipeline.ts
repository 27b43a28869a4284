// What one document costs end to end, per process: N 5-line invoices are posted at once and followed until
// every webhook and every e-mail has arrived (submission, the sandbox's verdict, the callback, the status
// query, the webhook and the e-mail with its PDF, to a local SMTP sink), and the CPU each service used meanwhile (its process tree, from /proc) is
// divided by N. Throughput figures move with whatever else the machine runs; CPU per document hardly does,
// so this is the figure to compare between changes. For each configuration: PGlite, and with
// BENCH_DATABASE_URL PostgreSQL (the server's processes counted as "postgres": keep the server otherwise
// idle), where each service's commits per document come from pg_stat_database (a transaction and a statement
// outside one count one each: the round trips a document costs, and what a synchronous commit waits for).
// Writes `## tenant-api (pipeline cost)`.
import { availableParallelism } from 'node:os';
import { openPostgres } from '@cr/service-kit';
import {
  type OutsideCpu,
  cpuModel,
  describeOtherWork,
  loadAverages,
  mainThreadCpuSeconds,
  namedCpuSeconds,
  startOtherWork,
  treeCpuSeconds,
} from '@cr/testkit';
import { deliveriesReach, postInvoices, startStack } from './stack';
import { selectByKey, writePerformanceSection } from './support';

const N = Number(process.env.BENCH_PIPELINE_DOCUMENTS ?? 400);
// Documents through the whole pipeline before the measured ones (BENCH_PIPELINE_WARMUP): pools, the opened
// .p12, the sandbox's token, the PDF fonts, and V8's optimisation of the code, whose compiler threads count
// in the CPU. After 50 documents the tenant-api on PostgreSQL still cost ~30 % more per document than after
// 1,000; 3,000 gave the same as 1,000 (docs/performance.md, 2026-12-02).
const WARM = Number(process.env.BENCH_PIPELINE_WARMUP ?? 1000);

interface Cost {
  label: string;
  documents: number;
  postS: number;
  totalS: number;
  drained: boolean;
  /** CPU ms per document, per service (and the database server's). */
  cpuMs: Record<string, number>;
  /** Of `cpuMs`, each service's main thread (its event loop). */
  mainMs: Record<string, number>;
  /** PostgreSQL: commits per document in each service's database. */
  commits?: Record<string, number>;
  load: string;
  /** The rest of the machine's CPU from the first POST to the last delivery. */
  other: OutsideCpu;
}

/**
 * Commits in each service's database so far. A backend reports its counts at most once a second and, once
 * idle, up to 10 s later: the caller waits that long before reading.
 */
async function commitsOf(
  adminUrl: string,
  databases: Record<string, string>,
): Promise<Record<string, number>> {
  const admin = openPostgres({ connectionString: adminUrl, max: 1 });
  try {
    const r = await admin.query<{ datname: string; n: string }>(
      'SELECT datname, (xact_commit + xact_rollback)::text AS n FROM pg_stat_database WHERE datname = ANY($1)',
      [Object.values(databases)],
    );
    const byName = new Map(r.rows.map((row) => [row.datname, Number(row.n)]));
    return Object.fromEntries(
      Object.entries(databases).map(([service, name]) => [service, byName.get(name) ?? 0]),
    );
  } finally {
    await admin.close();
  }
}

const STATS_SETTLE_MS = 11_000;

async function measure(label: string, databaseUrl: string | undefined): Promise<Cost> {
  process.stderr.write(`bench: pipeline, ${label}…\n`);
  const stack = await startStack({ databaseUrl });
  try {
    const warm = await postInvoices(stack, WARM);
    await deliveriesReach(stack, warm, { mails: true }); // each document's webhook and e-mail (two jobs)
    const cpu = () => {
      const out: Record<string, number> = {};
      for (const s of stack.services) out[s.name] = treeCpuSeconds(s.child.pid as number);
      if (databaseUrl) out.postgres = namedCpuSeconds('postgres');
      return out;
    };
    const mainThreads = () =>
      Object.fromEntries(stack.services.map((s) => [s.name, mainThreadCpuSeconds(s.child.pid as number)]));
    // The services this stack runs (the auth-server is not one of them: tokens come from a local key).
    const databases = Object.fromEntries(
      Object.entries(stack.databases).filter(([service]) => stack.services.some((s) => s.name === service)),
    );
    if (databaseUrl) await new Promise((r) => setTimeout(r, STATS_SETTLE_MS));
    const commitsBefore = databaseUrl ? await commitsOf(databaseUrl, databases) : undefined;
    const before = cpu();
    const mainBefore = mainThreads();
    const other = startOtherWork();
    const t0 = Date.now();
    const accepted = await postInvoices(stack, N);
    const postS = (Date.now() - t0) / 1000;
    const drained = await deliveriesReach(stack, warm + accepted, { mails: true });
    const totalS = (Date.now() - t0) / 1000;
    const after = cpu();
    const mainAfter = mainThreads();
    const otherDuring = other();
    const perDocument = (end: Record<string, number>, start: Record<string, number>) =>
      Object.fromEntries(Object.keys(end).map((k) => [k, ((end[k]! - (start[k] ?? 0)) * 1000) / accepted]));
    const cpuMs = perDocument(after, before);
    const mainMs = perDocument(mainAfter, mainBefore);
    let commits: Record<string, number> | undefined;
    if (databaseUrl && commitsBefore) {
      await new Promise((r) => setTimeout(r, STATS_SETTLE_MS));
      // Counted until the read: the jobs' idle polling during the wait adds a few commits to hundreds of documents.
      const commitsAfter = await commitsOf(databaseUrl, databases);
      commits = Object.fromEntries(
        Object.keys(commitsAfter).map((k) => [k, (commitsAfter[k]! - (commitsBefore[k] ?? 0)) / accepted]),
      );
    }
    return {
      label,
      documents: accepted,
      postS,
      totalS,
      drained,
      cpuMs,
      mainMs,
      ...(commits ? { commits } : {}),
      load: loadAverages(),
      other: otherDuring,
    };
  } finally {
    await stack.stop();
  }
}

/**
 * The engines to measure: PGlite, and PostgreSQL when BENCH_DATABASE_URL names a server; or those
 * BENCH_PIPELINE_ENGINES names (`pglite`, `postgresql`, comma-separated), for an A/B on one engine in half the
 * time. The section written then has only their rows: an A/B's notes, not a section to commit.
 */
function selectedEngines(
  pgUrl: string | undefined,
  wanted: string | undefined,
): { key: string; label: string; url: string | undefined }[] {
  const all = [{ key: 'pglite', label: 'PGlite', url: undefined as string | undefined }];
  if (pgUrl) all.push({ key: 'postgresql', label: 'PostgreSQL', url: pgUrl });
  return selectByKey(all, wanted, {
    setting: 'BENCH_PIPELINE_ENGINES',
    noun: 'engine',
    missingHint: pgUrl ? undefined : 'postgresql needs BENCH_DATABASE_URL',
  });
}

async function main(): Promise<void> {
  const engines = selectedEngines(process.env.BENCH_DATABASE_URL, process.env.BENCH_PIPELINE_ENGINES);
  const loadStart = loadAverages();
  const other = startOtherWork();
  const results: Cost[] = [];
  for (const engine of engines) results.push(await measure(engine.label, engine.url));
  const otherAll = other();
  const cpu = cpuModel();
  const services = [...new Set(results.flatMap((r) => Object.keys(r.cpuMs)))];
  const ms = (n: number | undefined) => (n === undefined ? '—' : n.toFixed(1));
  // "hacienda-sandbox 9.9, tenant-api 23.2"
  const byService = (figures: Record<string, number>) =>
    Object.entries(figures)
      .map(([service, n]) => `${service} ${ms(n)}`)
      .join(', ');
  const rows = results.map((r) => {
    const total = Object.values(r.cpuMs).reduce((a, b) => a + b, 0);
    const commits = r.commits ? byService(r.commits) : '—';
    const main = byService(r.mainMs);
    return `| ${r.label} | ${services.map((s) => ms(r.cpuMs[s])).join(' | ')} | ${ms(total)} | ${main} | ${commits} | ${r.documents} posted in ${r.postS.toFixed(1)} s; every webhook and e-mail ${r.drained ? `after ${r.totalS.toFixed(1)} s = ${(r.documents / r.totalS).toFixed(1)} documents/s end to end` : 'NOT within 10 min'} | ${r.other.outsideCores.toFixed(2)} | ${r.load} |`;
  });
  const section = [
    '## tenant-api (pipeline cost)',
    '',
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${cpu} (${availableParallelism()} cores), Node ${process.version}; load average at the start ${loadStart}. The stack of \`bench/stack.ts\` (the services as processes, \`node dist/main.js\` as \`pnpm start\` runs them, the sandbox at zero delay, a local webhook receiver and a local SMTP sink, as \`pnpm start\` has its mail catcher); ${N} five-line invoices posted by 10 connections after ${WARM} for warm-up, each followed to its webhook and its e-mail (submission, verdict, callback, status, webhook, e-mail with the PDF). CPU milliseconds per document of each process tree (user + system, from /proc, child processes included), from the first POST until the last webhook and e-mail; of it, each service's main thread (its event loop; the rest is V8's compiler and concurrent GC, the libuv pool and worker threads, PGlite's among them on the embedded engine): the steadier figure between runs. Command: \`pnpm --filter @cr/tenant-api exec tsx bench/pipeline.ts\` (part of \`pnpm bench\`; \`BENCH_DATABASE_URL\` adds PostgreSQL, whose server processes are counted too). Commits per document: each service's database in pg_stat_database (a transaction, or a statement outside one, counts one), read after the counts settle. Other work on the machine, cores: the CPU neither the bench, nor its services, nor the PostgreSQL server used while the documents were measured. Over the whole run, ${describeOtherWork(otherAll)}. What changed these figures, and where the time goes: "tenant-api (pipeline cost): what changed it".`,
    '',
    `| configuration | ${services.map((s) => `${s} ms/doc`).join(' | ')} | total ms/doc | of it, main thread ms/doc | PostgreSQL commits/doc | wall | other work, cores | load after |`,
    `|---|${services.map(() => '---|').join('')}---|---|---|---|---|---|`,
    ...rows,
    '',
  ].join('\n');
  writePerformanceSection('## tenant-api (pipeline cost)', section);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
