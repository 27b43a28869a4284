// `pnpm soak`: the three services as their own processes on loopback (auth-server, hacienda-sandbox at zero
// delay, tenant-api), under a steady load for at most 10 minutes — invoices submitted (and followed through
// the jobs to the sandbox, the webhook and the receptor's e-mail), CABYS searches, and a login every second at the auth-server —
// with each service's resident memory (its process tree) sampled every minute. Fails (exit 1) when a service
// goes above 200 MB or grows after the 2-minute warm-up (`judgeGrowth`, @cr/devstack). Not part of
// `pnpm test`.
//
// Settings: SOAK_MINUTES (1–10, default 10), SOAK_RATE (invoices/s, default 50), SOAK_FORM (`dist`, default:
// `node dist/main.js`, built first, as `pnpm start` and the images run it; `tsx`: the sources under tsx),
// SOAK_DATABASE_URL (a PostgreSQL server: each service gets a throw-away database there; default PGlite),
// WEB_CONCURRENCY (tenant-api processes; PostgreSQL only).
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_GROWTH_RULES, type RssSample, judgeGrowth } from '@cr/devstack';
import { loadAverages } from '@cr/testkit';
import autocannon from 'autocannon';
import { type ServiceForm, invoicePosts, load, startStack } from './stack';

const MINUTES = Math.min(10, Math.max(1, Number(process.env.SOAK_MINUTES ?? 10)));
const RATE = Number(process.env.SOAK_RATE ?? 50);
const FORM = (process.env.SOAK_FORM ?? 'dist') as ServiceForm;
const SAMPLE_MS = Number(process.env.SOAK_SAMPLE_SECONDS ?? 60) * 1000;
const MB = 1024 * 1024;

const log = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  if (FORM !== 'tsx' && FORM !== 'dist') throw new Error('SOAK_FORM: tsx or dist');
  const databaseUrl = process.env.SOAK_DATABASE_URL;
  const processes = Number(process.env.WEB_CONCURRENCY ?? 1);
  log(
    `soak: ${MINUTES} min, ${RATE} invoices/s, form ${FORM}, ${databaseUrl ? 'PostgreSQL' : 'PGlite'}, tenant-api processes ${processes}; load ${loadAverages()}`,
  );
  const stack = await startStack({
    databaseUrl,
    webConcurrency: processes,
    withAuthServer: true,
    form: FORM,
  });
  const samples = new Map<string, RssSample[]>();
  let accepted = 0;
  let failed = 0;
  let logins = 0;
  const started = Date.now();
  const sample = () => {
    const minute = Math.round((Date.now() - started) / 60_000);
    const rss = stack.rss();
    for (const [name, bytes] of Object.entries(rss)) {
      if (!samples.has(name)) samples.set(name, []);
      samples.get(name)?.push({ minute, bytes });
    }
    log(
      `minute ${minute}: ${Object.entries(rss)
        .map(([n, b]) => `${n} ${(b / MB).toFixed(1)} MB`)
        .join(
          ', ',
        )}; accepted ${accepted}, webhooks ${stack.webhooks()}, failed ${failed}, logins ${logins}; load ${loadAverages()}`,
    );
  };
  let q = 0;
  const queries = ['cafe', 'servicios de consultoria', 'arroz', 'computadora', 'leche'];
  const invoices = load(
    { ...invoicePosts(stack), connections: 10, duration: MINUTES * 60, overallRate: RATE },
    (status) => {
      if (status < 300) accepted += 1;
      else failed += 1;
    },
  );
  const searches = autocannon({
    url: `${stack.tenantUrl}/api/hacienda/cabys`,
    connections: 2,
    duration: MINUTES * 60,
    overallRate: 20,
    headers: stack.headers,
    requests: [
      {
        method: 'POST',
        setupRequest: (req) => ({ ...req, body: JSON.stringify({ name: queries[q++ % queries.length] }) }),
      },
    ],
  });
  const loginTimer = setInterval(() => {
    void stack.login?.().then((s) => {
      if (s === 200) logins += 1;
    });
  }, 1000);
  sample();
  const sampler = setInterval(sample, SAMPLE_MS);
  let verdicts: Array<[string, ReturnType<typeof judgeGrowth>]> = [];
  try {
    await Promise.all([invoices, searches]);
    clearInterval(loginTimer);
    clearInterval(sampler);
    sample();
    verdicts = [...samples.entries()].map(([name, s]) => [name, judgeGrowth(s, DEFAULT_GROWTH_RULES)]);
  } finally {
    clearInterval(loginTimer);
    clearInterval(sampler);
    await stack.stop();
  }
  let ok = failed === 0;
  if (failed) log(`FAIL: ${failed} submissions were not accepted`);
  for (const [name, v] of verdicts) {
    log(
      `${v.ok ? 'ok  ' : 'FAIL'} ${name}: peak ${(v.peakBytes / MB).toFixed(1)} MB, after warm-up ${(v.startBytes / MB).toFixed(1)} → ${(v.endBytes / MB).toFixed(1)} MB${v.reasons.length ? `; ${v.reasons.join('; ')}` : ''}`,
    );
    ok &&= v.ok;
  }
  if (process.env.SOAK_RESULTS_FILE) {
    appendFileSync(
      path.resolve(process.env.SOAK_RESULTS_FILE),
      `${JSON.stringify({ at: new Date().toISOString(), minutes: MINUTES, rate: RATE, form: FORM, postgres: Boolean(databaseUrl), processes, accepted, webhooks: stack.webhooks(), samples: Object.fromEntries(samples), ok })}\n`,
    );
  }
  process.exit(ok ? 0 : 1);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
