// A/B of tenant-api builds on a machine whose speed drifts: this machine's CPU changes from day to day and,
// under other tenants' load, by a third within minutes, so two runs one after the other compare the machine,
// not the builds. Here every build runs at once as its own stack (the services as processes, bench/stack.ts),
// and short rounds take turns between them, each measured while the others are idle: the drift falls on all
// of them alike, and each round gives a ratio to the first build. The workload is CABYS searches through
// HTTP with a token (the request path without the database: token, express, search, JSON).
//
//   cp -r dist .ab-before            # at the commit to compare against (inside apps/tenant-api)
//   AB_BUILDS=.ab-before,dist pnpm --filter @cr/tenant-api exec tsx bench/ab.ts
//
// A build may carry Node flags after a `+` (`dist+--max-semi-space-size=16`, spaces as `_`), which come after
// the service's own heap flags. AB_ROUNDS (default 10) and AB_SECONDS (default 3) size the rounds. Printed
// only: docs/performance.md keeps what a reading concludes.
import path from 'node:path';
import { serviceMemoryEnv } from '@cr/devstack';
import { cpuModel, loadAverages, treeCpuSeconds } from '@cr/testkit';
import autocannon from 'autocannon';
import { type Stack, cabysPosts, startStack } from './stack';

const ROUNDS = Number(process.env.AB_ROUNDS ?? 10);
const SECONDS = Number(process.env.AB_SECONDS ?? 3);

interface Build {
  label: string;
  dir: string;
  nodeFlags: string;
}

function parseBuilds(setting: string | undefined): Build[] {
  const labels = (setting ?? '').split(',').filter(Boolean);
  if (labels.length < 2) throw new Error('AB_BUILDS: two or more builds, e.g. .ab-before,dist');
  return labels.map((label) => {
    const [dir = '', flags = ''] = label.split('+');
    return { label, dir: path.resolve(dir), nodeFlags: flags.replace(/_/g, ' ') };
  });
}

/** Searches answered in one round, and the CPU the tenant-api's process tree spent on them. */
async function round(stack: Stack): Promise<{ requests: number; cpuS: number }> {
  const pid = stack.services.find((s) => s.name === 'tenant-api')?.child.pid;
  if (pid === undefined) throw new Error('the stack has no tenant-api process');
  const before = treeCpuSeconds(pid);
  const r = await autocannon({ ...cabysPosts(stack), connections: 10, duration: SECONDS });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${r.non2xx} answers not 2xx, ${r.errors} errors`);
  return { requests: r['2xx'], cpuS: treeCpuSeconds(pid) - before };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

async function main(): Promise<void> {
  const builds = parseBuilds(process.env.AB_BUILDS);
  const stacks: Stack[] = [];
  try {
    for (const b of builds) {
      const own = serviceMemoryEnv('tenant-api').NODE_OPTIONS;
      stacks.push(
        await startStack({
          form: 'dist',
          tenantBuild: b.dir,
          ...(b.nodeFlags ? { tenantEnv: { NODE_OPTIONS: `${own} ${b.nodeFlags}` } } : {}),
        }),
      );
    }
    for (const s of stacks) await round(s); // warm-up: V8's optimisation, the index's first searches
    const loadStart = loadAverages();
    const usPerRequest: number[][] = builds.map(() => []);
    for (let r = 0; r < ROUNDS; r++) {
      for (const [k, s] of stacks.entries()) {
        const { requests, cpuS } = await round(s);
        usPerRequest[k]?.push((cpuS / requests) * 1e6);
      }
    }
    const base = usPerRequest[0] ?? [];
    process.stdout.write(
      `${cpuModel()}, Node ${process.version}; ${ROUNDS} rounds of ${SECONDS} s per build; load ${loadStart} → ${loadAverages()}\n` +
        'tenant-api CPU µs per CABYS search (process tree): median, and the median of the per-round ratios to the first build\n',
    );
    for (const [k, b] of builds.entries()) {
      const mine = usPerRequest[k] ?? [];
      const ratios = mine.map((v, r) => v / (base[r] ?? NaN));
      process.stdout.write(
        `  ${b.label}: ${median(mine).toFixed(0)} µs, ×${median(ratios).toFixed(3)} (rounds: ${mine.map((v) => v.toFixed(0)).join(' ')}); RSS ${Math.round((stacks[k]?.rss()['tenant-api'] ?? 0) / 1e6)} MB\n`,
      );
    }
  } finally {
    for (const s of stacks) await s.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
