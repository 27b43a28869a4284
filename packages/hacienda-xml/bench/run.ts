// `pnpm bench`: build + sign throughput of a 5-line and a 100-line invoice against the raw RSA-2048
// signing rate of node:crypto, measured in the same run on one core; writes `## hacienda-xml` of
// docs/performance.md (only that section).
import { cpus } from 'node:os';
import { execSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { sign } from 'node:crypto';
import path from 'node:path';
import { buildSignedDocument, openP12 } from '../src';
import { ISSUER, invoice, line } from '../src/testing/mothers';
import { makeTestP12 } from '../src/testing/test-certificate';

const DURATION_MS = Number(process.env.BENCH_MS ?? 3000);

function measure(
  label: string,
  fn: () => void,
): { label: string; perSecond: number; p50: number; p99: number } {
  for (let i = 0; i < 200; i++) fn();
  const times: number[] = [];
  const start = process.hrtime.bigint();
  let elapsed = 0;
  while (elapsed < DURATION_MS) {
    const t0 = process.hrtime.bigint();
    fn();
    const t1 = process.hrtime.bigint();
    times.push(Number(t1 - t0) / 1e6);
    elapsed = Number(t1 - start) / 1e6;
  }
  times.sort((a, b) => a - b);
  const pct = (p: number) => times[Math.min(times.length - 1, Math.floor(times.length * p))]!;
  return { label, perSecond: times.length / (elapsed / 1000), p50: pct(0.5), p99: pct(0.99) };
}

const { p12, pin } = makeTestP12();
const key = openP12(p12, pin);
const doc5 = invoice({
  detalleServicio: Array.from({ length: 5 }, (_, i) => line(i + 1, { cantidad: i + 1, precio: '1234.56' })),
});
const doc100 = invoice({
  detalleServicio: Array.from({ length: 100 }, (_, i) => line(i + 1, { cantidad: 2, precio: '99.99' })),
});
const signedInfoSized = Buffer.from('x'.repeat(1100));

const raw = measure('raw RSA-2048 crypto.sign (SHA-256)', () =>
  sign('sha256', signedInfoSized, key.privateKey),
);
const five = measure('build + sign, 5-line invoice', () =>
  buildSignedDocument({ document: doc5, issuer: ISSUER, key }),
);
const hundred = measure('build + sign, 100-line invoice', () =>
  buildSignedDocument({ document: doc100, issuer: ISSUER, key }),
);
const rawAgain = measure('raw RSA-2048 crypto.sign (SHA-256), again', () =>
  sign('sha256', signedInfoSized, key.privateKey),
);
const ceiling = (raw.perSecond + rawAgain.perSecond) / 2;
const size5 = Buffer.byteLength(buildSignedDocument({ document: doc5, issuer: ISSUER, key }).xml);

const cpu = (() => {
  try {
    return (
      /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ??
      cpus()[0]?.model ??
      'unknown'
    );
  } catch {
    return cpus()[0]?.model ?? 'unknown';
  }
})();
const nproc = (() => {
  try {
    return execSync('nproc').toString().trim();
  } catch {
    return String(cpus().length);
  }
})();

const row = (r: ReturnType<typeof measure>) =>
  `| ${r.label} | ${Math.round(r.perSecond).toLocaleString('en-US')} | ${r.p50.toFixed(3)} | ${r.p99.toFixed(3)} | ${((r.perSecond / ceiling) * 100).toFixed(0)}% |`;

const section = [
  '## hacienda-xml',
  '',
  `Measured ${new Date().toISOString().slice(0, 10)} on ${cpu} (nproc ${nproc}), Node ${process.version}, one process (one core), ${DURATION_MS} ms per case. Command: \`pnpm --filter @cr/hacienda-xml bench\`.`,
  '',
  '| case | documents/s | p50 ms | p99 ms | of raw RSA rate |',
  '|---|---|---|---|---|',
  row(raw),
  row(rawAgain),
  row(five),
  row(hundred),
  '',
  `The 5-line invoice is ${size5.toLocaleString('en-US')} bytes signed. "Build + sign" is the whole public entry point: contract validation, rule checks, decimal arithmetic, clave, XML, three digests and the RSA signature, with the SigningKey opened once and cached (as the tenant-api does). Goal: the 5-line case at ≥ 50% of the raw RSA rate.`,
  '',
].join('\n');

const file = path.resolve(__dirname, '../../../docs/performance.md');
let content = existsSync(file)
  ? readFileSync(file, 'utf8')
  : "# Performance\n\nBenchmark results; each package's `bench` script rewrites only its own section.\n\n";
const start = content.indexOf('## hacienda-xml');
if (start >= 0) {
  const next = content.indexOf('\n## ', start + 1);
  content = content.slice(0, start) + section + (next >= 0 ? content.slice(next + 1) : '');
} else {
  content = `${content.trimEnd()}\n\n${section}`;
}
writeFileSync(file, content);
process.stdout.write(`${section}\n`);
