// Issue 15's figures with the services as real processes: raw RSA-2048 signing on one and on all cores
// (worker threads of a child process, same run; on all cores also with AVX-512 IFMA hidden, ADR 0059), then
// for each configuration — PGlite with one process, and with BENCH_DATABASE_URL PostgreSQL with one process,
// with one serving process and a jobs process, and with one serving process per core and a jobs process
// (node:cluster; the jobs process niced, ADR 0060) — CABYS search through HTTP (first, on the idle stack),
// accepted 5-line invoices/s through HTTP with the jobs running, POST p99 at half that rate, whether the
// submission, status and webhook jobs keep up over a run at half rate against the sandbox at zero delay
// (documents accepted minus webhooks received, sampled), and each service's resident memory afterwards. The load
// (autocannon at full rate, bench/paced-load.ts at a rate) runs in this process, on the same cores. Writes
// `## tenant-api (processes)`.
import { availableParallelism } from 'node:os';
import {
  type OutsideCpu,
  QUIET_CORES,
  cpuModel,
  describeOtherWork,
  describeSigningPath,
  loadAverages,
  rawSigningRateOnThreads,
  signingPath,
  startOtherWork,
  WITHOUT_IFMA,
} from '@cr/testkit';
import autocannon from 'autocannon';
import { pacedLoad } from './paced-load';
import {
  type Stack,
  cabysPosts,
  deliveriesReach,
  invoicePosts,
  load,
  nextInvoiceBody,
  postInvoices,
  startStack,
} from './stack';
import { selectByKey, writePerformanceSection } from './support';

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10);
const KEEPUP_S = Number(process.env.BENCH_KEEPUP_SECONDS ?? 120);
const SAMPLE_S = 10;
// Documents taken through the whole pipeline (POST, jobs, sandbox, webhook) before the runs, so that the
// figures are those of services that have run for a while: after 50 documents the tenant-api still cost ~30 %
// more CPU per document than after 1,000, V8 still optimising its code (docs/performance.md, 2026-12-02).
const WARMUP_DOCUMENTS = Number(process.env.BENCH_PROCESSES_WARMUP ?? 1000);
const CONNECTIONS = 10;
// BENCH_SANDBOX_NICE: the sandbox's nice value (0–19; default 0, the services' priority). It stands for
// Hacienda, whose CPU in production is not on the service's cores; at 19 it takes what the services leave
// instead of competing with the POSTs as an equal (docs/performance.md, "tenant-api (processes)", 2026-12-06).
const SANDBOX_NICE = Number(process.env.BENCH_SANDBOX_NICE ?? 0);
if (!Number.isInteger(SANDBOX_NICE) || SANDBOX_NICE < 0 || SANDBOX_NICE > 19)
  throw new Error(`BENCH_SANDBOX_NICE: an integer from 0 to 19, not "${process.env.BENCH_SANDBOX_NICE}"`);

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const pct = (n: number) => `${(n * 100).toFixed(1)}%`;
const MB = 1024 * 1024;

interface Phase {
  rps: number;
  p50: number;
  p99: number;
  accepted: number;
  errors: number;
}

async function submissions(
  stack: Stack,
  seconds: number,
  rate?: number,
  onAccepted?: () => void,
): Promise<Phase> {
  const counted = onAccepted
    ? (status: number) => {
        if (status === 200 || status === 201) onAccepted();
      }
    : undefined;
  if (rate) {
    // A steady rate, each latency from its request's due time (bench/paced-load.ts).
    const r = await pacedLoad({
      url: `${stack.tenantUrl}/api/enviar/items`,
      method: 'POST',
      headers: stack.headers,
      body: () => nextInvoiceBody(stack),
      rate,
      seconds,
      connections: CONNECTIONS,
      ...(counted ? { onResponse: counted } : {}),
    });
    const ms = (v: number) => Math.round(v * 10) / 10;
    return { rps: r.rps, p50: ms(r.p50), p99: ms(r.p99), accepted: r.ok, errors: r.failed };
  }
  const r = await load(
    {
      ...invoicePosts(stack),
      connections: CONNECTIONS,
      duration: seconds,
    },
    counted,
  );
  return {
    rps: r['2xx'] / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    accepted: r['2xx'],
    errors: r.non2xx + r.errors + r.timeouts,
  };
}

/** Posts `amount` invoices and waits until each accepted one's webhook has arrived (up to 10 minutes). */
async function warmPipeline(stack: Stack, amount: number): Promise<void> {
  const before = stack.webhooks();
  const accepted = await postInvoices(stack, amount);
  await deliveriesReach(stack, before + accepted, { stepMs: 500 });
}

async function cabysSearches(stack: Stack, seconds: number): Promise<Phase> {
  const r = await autocannon({ ...cabysPosts(stack), connections: CONNECTIONS, duration: seconds });
  return {
    rps: r['2xx'] / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    accepted: r['2xx'],
    errors: r.non2xx + r.errors + r.timeouts,
  };
}

interface KeepUp {
  rate: number;
  /** Documents accepted but without their webhook yet, every SAMPLE_S seconds. */
  backlog: number[];
  keepsUp: boolean;
  /** Seconds after the load stopped until every accepted document's webhook had arrived (or the cap). */
  drainS: number;
  drained: boolean;
}

/** Half-rate load for KEEPUP_S with the jobs running; the backlog must not grow. */
async function keepUp(
  stack: Stack,
  rate: number,
  webhooksBefore: number,
  acceptedBefore: number,
): Promise<KeepUp> {
  let accepted = acceptedBefore;
  const backlog: number[] = [];
  const sampler = setInterval(
    () => backlog.push(accepted - (stack.webhooks() - webhooksBefore)),
    SAMPLE_S * 1000,
  );
  await submissions(stack, KEEPUP_S, rate, () => {
    accepted += 1;
  });
  clearInterval(sampler);
  const t0 = Date.now();
  const drained = await deliveriesReach(stack, webhooksBefore + accepted, { capMs: 120_000, stepMs: 250 });
  // Growing: the last quarter's backlog well above the second quarter's (the first is the ramp-up), beyond
  // two seconds' worth of documents. Fewer than four samples (a short BENCH_KEEPUP_SECONDS) have no quarters:
  // the last against the first, or two samples of a growing backlog would compare the last with itself.
  const q = Math.max(1, Math.floor(backlog.length / 4));
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const early = backlog.length >= 4 ? mean(backlog.slice(q, 2 * q)) : (backlog[0] ?? 0);
  const late = mean(backlog.slice(-q));
  return {
    rate,
    backlog,
    keepsUp: late <= early * 1.25 + 2 * rate,
    drainS: (Date.now() - t0) / 1000,
    drained,
  };
}

interface ConfigResult {
  label: string;
  full: Phase;
  half: Phase;
  keep: KeepUp;
  cabys: Phase;
  rss: Record<string, number>;
  load: string;
  outside: OutsideCpu;
}

const inCores = (n: number) => n.toFixed(2);

async function runConfig(
  label: string,
  databaseUrl: string | undefined,
  processes: number,
  jobsProcesses: number,
): Promise<ConfigResult> {
  process.stderr.write(`bench: ${label}…\n`);
  const outside = startOtherWork();
  const stack = await startStack({
    databaseUrl,
    webConcurrency: processes,
    jobsProcesses,
    sandboxNice: SANDBOX_NICE,
  });
  try {
    // CABYS first, on the idle stack: after the submission runs the jobs stay busy for minutes (the
    // pipeline, not the POST, sets the sustainable rate), and searches measured then share the cores with them.
    await cabysSearches(stack, 2);
    const cabys = await cabysSearches(stack, DURATION_S);
    await warmPipeline(stack, WARMUP_DOCUMENTS);
    // Every accepted document goes on to the sandbox and its webhook: the jobs run throughout.
    const baseline = stack.webhooks();
    const warm = await submissions(stack, 5); // and 5 s at full rate: every process's pools and connections
    const full = await submissions(stack, DURATION_S);
    const half = await submissions(stack, DURATION_S, Math.max(1, Math.floor(full.rps / 2)));
    // Let the throughput runs' documents reach their webhooks before the keep-up run counts its own.
    const accepted = warm.accepted + full.accepted + half.accepted;
    await deliveriesReach(stack, baseline + accepted, { capMs: 180_000, stepMs: 500 });
    const keep = await keepUp(stack, Math.max(1, Math.floor(full.rps / 2)), stack.webhooks(), 0);
    return { label, full, half, keep, cabys, rss: stack.rss(), load: loadAverages(), outside: outside() };
  } finally {
    await stack.stop();
  }
}

interface Config {
  /** Its name in BENCH_PROCESSES_CONFIGS. */
  key: string;
  label: string;
  url: string | undefined;
  /** Processes serving the API. */
  servers: number;
  /** Processes running only the jobs (ADR 0060). */
  jobs: number;
}

/**
 * The configurations to run: every one the engines allow, or those BENCH_PROCESSES_CONFIGS names (a
 * comma-separated subset of pglite, pg, pg-jobs, cluster), for an A/B of one of them in minutes rather than
 * the whole half hour. The section written then has only their columns.
 */
function selectedConfigs(cores: number, pgUrl: string | undefined, wanted: string | undefined): Config[] {
  const all: Config[] = [{ key: 'pglite', label: 'PGlite, 1 process', url: undefined, servers: 1, jobs: 0 }];
  if (pgUrl) {
    all.push({ key: 'pg', label: 'PostgreSQL, 1 process', url: pgUrl, servers: 1, jobs: 0 });
    all.push({
      key: 'pg-jobs',
      label: 'PostgreSQL, 1 server + jobs process',
      url: pgUrl,
      servers: 1,
      jobs: 1,
    });
    all.push({
      key: 'cluster',
      label: `PostgreSQL, ${cores} servers + jobs process (cluster)`,
      url: pgUrl,
      servers: cores,
      jobs: 1,
    });
  }
  return selectByKey(all, wanted, {
    setting: 'BENCH_PROCESSES_CONFIGS',
    noun: 'configuration',
    missingHint: pgUrl ? undefined : 'the PostgreSQL ones need BENCH_DATABASE_URL',
  });
}

async function main(): Promise<void> {
  const cores = availableParallelism();
  const configs = selectedConfigs(cores, process.env.BENCH_DATABASE_URL, process.env.BENCH_PROCESSES_CONFIGS);
  const loadStart = loadAverages();
  const outside = startOtherWork();
  const rawOne = await rawSigningRateOnThreads(1, 3);
  const rawAll = await rawSigningRateOnThreads(cores, 3);
  // The yardstick on a CPU without AVX-512 IFMA: the same on either kind of host (testkit's signing-path).
  const path = signingPath();
  const rawAllPlain = path.usesIfma ? await rawSigningRateOnThreads(cores, 3, { withoutIfma: true }) : rawAll;
  const results: ConfigResult[] = [];
  for (const { label, url, servers, jobs } of configs)
    results.push(await runConfig(label, url, servers, jobs));
  const rawAllAfter = await rawSigningRateOnThreads(cores, 3);
  const loadEnd = loadAverages();
  const others = outside();
  const quiet = others.outsideCores < QUIET_CORES;
  const otherWork = describeOtherWork(others);

  const cpu = cpuModel();
  const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const col = (cell: (r: ConfigResult) => string) => `| ${results.map(cell).join(' | ')} |`;
  const pgGoal = (r: ConfigResult) => (r.label.startsWith('PostgreSQL') ? 1000 : 400);
  const section = [
    '## tenant-api (processes)',
    '',
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${cpu} (${cores} cores), Node ${process.version}. The services run as their own processes on loopback (\`node --enable-source-maps dist/main.js\`, as \`pnpm start\` and the images run them): the tenant-api, the real hacienda-sandbox at SANDBOX_PROCESSING_DELAY_MS=0 with its per-issuer limit lifted${SANDBOX_NICE > 0 ? ` and at nice ${SANDBOX_NICE} (\`BENCH_SANDBOX_NICE\`: it stands for Hacienda, whose CPU in production is not on the service's cores, and takes what the rest leave)` : " and at the services' priority"}, a local webhook receiver and a local SMTP sink for the receptors' e-mails (as \`pnpm start\` has its mail catcher); every service on PGlite, or each on its own throw-away PostgreSQL database. autocannon (${CONNECTIONS} connections) runs in the bench process on the same cores at full rate; at half rate and in the keep-up run a steady paced load over ${CONNECTIONS} connections, each latency counted from its request's due time (bench/paced-load.ts; autocannon's own rate limit sent each second's quota in a burst); the jobs run throughout, so every accepted document is also submitted, followed, delivered and e-mailed. ${DURATION_S} s per HTTP run after ${fmt(WARMUP_DOCUMENTS)} documents through the whole pipeline and 5 s of POSTs at full rate (warm-up); keep-up run ${KEEPUP_S} s. Command: \`pnpm --filter @cr/tenant-api bench\` (\`BENCH_DATABASE_URL=postgres://…\` adds the PostgreSQL configurations). **Load average at the start / end: ${loadStart} / ${loadEnd}** (the services' own work included). **${otherWork.charAt(0).toUpperCase()}${otherWork.slice(1)}**${quiet ? '' : '; compare the ratios and the configurations with each other, which ran in the same conditions'}.`,
    '',
    `Raw RSA-2048 signing (SHA-256, node:crypto), same run: ${fmt(rawOne)}/s on one thread, ${fmt(rawAll)}/s on ${cores} threads at once (${fmt(rawAllAfter)}/s again at the end); ${describeSigningPath(path)}${path.usesIfma ? `: with it hidden from OpenSSL (\`OPENSSL_ia32cap=${WITHOUT_IFMA}\`, a child process), ${fmt(rawAllPlain)}/s on ${cores} threads` : ''}. Ratios below are to the ${cores}-thread figure from the start${path.usesIfma ? ', and in brackets to the one without IFMA, which is the same on a host without it' : ''}.`,
    '',
    `| measure | ${results.map((r) => r.label).join(' | ')} |`,
    `|---|${results.map(() => '---|').join('')}`,
    `| accepted POST /api/enviar/items, 5-line invoice, full rate ${col(
      (r) =>
        `${fmt(r.full.rps)}/s = ${pct(r.full.rps / rawAll)} of raw signing${path.usesIfma ? ` (${pct(r.full.rps / rawAllPlain)} without IFMA)` : ''} (goal ≥ ${pgGoal(r)}/s: ${met(r.full.rps >= pgGoal(r))}); p50 / p99 ${r.full.p50} / ${r.full.p99} ms${r.full.errors ? `; ${r.full.errors} errors` : ''}`,
    )}`,
    `| POST p99 at half that rate ${col(
      (r) =>
        `${fmt(r.full.rps / 2)}/s: p50 ${r.half.p50} / p99 ${r.half.p99} ms (goal < 50 ms: ${met(r.half.p99 < 50)})`,
    )}`,
    `| jobs keep up over ${KEEPUP_S} s at half rate (accepted − webhooks received, every ${SAMPLE_S} s) ${col(
      (r) =>
        `${r.keep.rate}/s: ${r.keep.keepsUp ? 'yes' : '**no, growing**'} (backlog ${r.keep.backlog.join(', ')}); drained ${r.keep.drained ? `${r.keep.drainS.toFixed(1)} s` : 'NOT within 120 s'} after the load`,
    )}`,
    `| CABYS search POST /api/hacienda/cabys (idle stack, before the submission runs) ${col(
      (r) => `${fmt(r.cabys.rps)}/s, p99 ${r.cabys.p99} ms (goal ≥ 2,000/s: ${met(r.cabys.rps >= 2000)})`,
    )}`,
    `| RSS after the runs (process tree: a cluster's primary and workers) ${col((r) =>
      Object.entries(r.rss)
        .map(([name, b]) => `${name} ${fmt(b / MB)} MB`)
        .join(', '),
    )}`,
    `| load average after the configuration ${col((r) => r.load)}`,
    `| other work on the machine during the configuration, cores (hypervisor's steal) ${col((r) => `${inCores(r.outside.outsideCores)} (${inCores(r.outside.stealCores)})`)}`,
    '',
    'The memory goal (every service < 200 MB RSS, flat over 10 minutes) is judged by `pnpm soak`. JWKS and /health under a login flood: `## auth-server`; the engine alone and the in-process CPU per POST: `## tenant-api (submission)`.',
    '',
  ].join('\n');
  writePerformanceSection('## tenant-api (processes)', section);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
