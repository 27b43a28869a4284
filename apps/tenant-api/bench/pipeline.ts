// What one document costs end to end, per process: N 5-line invoices are posted at once and followed until
// every webhook has arrived (submission, the sandbox's verdict, the callback, the status query, the webhook
// and the e-mail with its PDF), and the CPU each service used meanwhile (its process tree, from /proc) is
// divided by N. Throughput figures move with whatever else the machine runs; CPU per document hardly does,
// so this is the figure to compare between changes. For each configuration: PGlite, and with
// BENCH_DATABASE_URL PostgreSQL (the server's processes counted as "postgres": keep the server otherwise
// idle). Writes `## tenant-api (pipeline cost)`.
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { namedCpuSeconds, treeCpuSeconds } from '@cr/devstack';
import { fiveLineInvoice } from '../test/support/document-mother';
import { type Stack, load, startStack } from './stack';
import { writePerformanceSection } from './support';

const N = Number(process.env.BENCH_PIPELINE_DOCUMENTS ?? 400);
const WARM = 50;
const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

let numero = 1;

async function postAll(stack: Stack, amount: number): Promise<number> {
  const r = await load({
    url: `${stack.tenantUrl}/api/enviar/items`,
    method: 'POST',
    connections: 10,
    amount,
    headers: stack.headers,
    requests: [
      {
        method: 'POST',
        setupRequest: (req) => ({ ...req, body: JSON.stringify(fiveLineInvoice(numero++)) }),
      },
    ],
  });
  return r['2xx'];
}

async function webhooksReach(stack: Stack, count: number, capMs = 600_000): Promise<boolean> {
  const t0 = Date.now();
  while (stack.webhooks() < count) {
    if (Date.now() - t0 > capMs) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

interface Cost {
  label: string;
  documents: number;
  postS: number;
  totalS: number;
  drained: boolean;
  /** CPU ms per document, per service (and the database server's). */
  cpuMs: Record<string, number>;
  load: string;
}

async function measure(label: string, databaseUrl: string | undefined): Promise<Cost> {
  process.stderr.write(`bench: pipeline, ${label}…\n`);
  const stack = await startStack({ databaseUrl });
  try {
    // Warm-up: JIT, pools, the opened .p12, the sandbox's token and the first PDF fonts.
    const warm = await postAll(stack, WARM);
    await webhooksReach(stack, warm);
    const cpu = () => {
      const out: Record<string, number> = {};
      for (const s of stack.services) out[s.name] = treeCpuSeconds(s.child.pid as number);
      if (databaseUrl) out.postgres = namedCpuSeconds('postgres');
      return out;
    };
    const before = cpu();
    const t0 = Date.now();
    const accepted = await postAll(stack, N);
    const postS = (Date.now() - t0) / 1000;
    const drained = await webhooksReach(stack, warm + accepted);
    const totalS = (Date.now() - t0) / 1000;
    const after = cpu();
    const cpuMs = Object.fromEntries(
      Object.keys(after).map((k) => [k, ((after[k]! - (before[k] ?? 0)) * 1000) / accepted]),
    );
    return { label, documents: accepted, postS, totalS, drained, cpuMs, load: loadavg() };
  } finally {
    await stack.stop();
  }
}

async function main(): Promise<void> {
  const loadStart = loadavg();
  const results = [await measure('PGlite', undefined)];
  if (process.env.BENCH_DATABASE_URL)
    results.push(await measure('PostgreSQL', process.env.BENCH_DATABASE_URL));
  const cpuModel =
    /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpus()[0]?.model;
  const services = [...new Set(results.flatMap((r) => Object.keys(r.cpuMs)))];
  const ms = (n: number | undefined) => (n === undefined ? '—' : n.toFixed(1));
  const rows = results.map((r) => {
    const total = Object.values(r.cpuMs).reduce((a, b) => a + b, 0);
    return `| ${r.label} | ${services.map((s) => ms(r.cpuMs[s])).join(' | ')} | ${ms(total)} | ${r.documents} posted in ${r.postS.toFixed(1)} s; every webhook ${r.drained ? `after ${r.totalS.toFixed(1)} s = ${(r.documents / r.totalS).toFixed(1)} documents/s end to end` : 'NOT within 10 min'} | ${r.load} |`;
  });
  const section = [
    '## tenant-api (pipeline cost)',
    '',
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${cpuModel} (${availableParallelism()} cores), Node ${process.version}; load average at the start ${loadStart}. The stack of \`bench/stack.ts\` (the services as processes, \`node dist/main.js\` as \`pnpm start\` runs them, the sandbox at zero delay, a local webhook receiver); ${N} five-line invoices posted by 10 connections after ${WARM} for warm-up, each followed to its webhook (submission, verdict, callback, status, webhook, e-mail with the PDF). CPU milliseconds per document of each process tree (user + system, from /proc, the sandbox's xmllint runs included), from the first POST until the last webhook. Command: \`pnpm --filter @cr/tenant-api exec tsx bench/pipeline.ts\` (part of \`pnpm bench\`; \`BENCH_DATABASE_URL\` adds PostgreSQL, whose server processes are counted too).`,
    '',
    `| configuration | ${services.map((s) => `${s} ms/doc`).join(' | ')} | total ms/doc | wall | load after |`,
    `|---|${services.map(() => '---|').join('')}---|---|---|`,
    ...rows,
    '',
  ].join('\n');
  writePerformanceSection('## tenant-api (pipeline cost)', section);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
