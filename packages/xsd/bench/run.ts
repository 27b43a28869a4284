// XSD benchmark: bursts of concurrent validations of a signed 5-line invoice against the derived
// FacturaElectronica schema (extended with the 2026-04 codes, as the hacienda-sandbox and the tenant-api's
// inbox configure @cr/xsd), in a process carrying a ballast of memory like the sandbox's (forking a
// large process is what a spawn costs its event loop). Reports validations/s, the event loop's busy time
// and the process's own CPU per validation (spawning happens there), and xmllint's CPU per validation
// (the launchers and the children, from /proc). Rewrites the `xsd` section of docs/performance.md.
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildSignedDocument, extendXsdText, openP12 } from '@cr/hacienda-xml';
import { ISSUER, invoice, line } from '@cr/hacienda-xml/src/testing/mothers';
import { launcherPids } from '../src/xmllint-launcher';
import { makeTestP12 } from '@cr/hacienda-xml/src/testing/test-certificate';
import { createXsdValidator } from '../src';
import { writePerformanceSection } from '@cr/testkit';

const XSD_DIR = process.env.HACIENDA_XSD_DIR ?? path.resolve(__dirname, '../../../../shared/hacienda/xsd');
const BURST = Number(process.env.BENCH_BURST ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const LONE = Number(process.env.BENCH_LONE ?? 100);
const BALLAST_MB = Number(process.env.BENCH_BALLAST_MB ?? 250);

function fiveLineInvoiceXml(): string {
  const { p12, pin } = makeTestP12();
  const document = invoice({
    detalleServicio: [
      line(1, { precio: '1234567.89' }),
      line(2, { cantidad: 2, precio: '350.50', descuento: '20.00' }),
      line(3, { precio: '1000.00' }),
      line(4, { cantidad: 3, precio: '15.25', codigoTarifa: '04', tarifa: '4' }),
      line(5, { precio: '99.99' }),
    ],
  });
  const now = new Date('2026-05-26T18:31:00Z');
  return buildSignedDocument({
    document,
    issuer: ISSUER,
    key: openP12(p12, pin),
    now,
    codigoSeguridad: '12345678',
  }).xml;
}

/** CPU ms of a process from /proc/<pid>/stat: its own time (utime, stime), or its reaped children's. */
function statCpuMs(pid: number | 'self', which: 'own' | 'children'): number {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return 0; // gone
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the command: state is field 3; utime, stime, cutime, cstime are fields 14-17 (clock ticks, 100 Hz).
  const at = which === 'own' ? 11 : 13;
  return ((Number(fields[at]) + Number(fields[at + 1])) * 1000) / 100;
}

/**
 * CPU ms of what runs xmllint: the children this process has waited for (xmllint started here), and the
 * launchers (their own time and that of the xmllint runs they waited for).
 */
function childrenCpuMs(): number {
  return launcherPids().reduce(
    (sum, pid) => sum + statCpuMs(pid, 'own') + statCpuMs(pid, 'children'),
    statCpuMs('self', 'children'),
  );
}

async function main(): Promise<void> {
  if (!existsSync(path.join(XSD_DIR, 'FacturaElectronica_V4.4.xsd')))
    throw new Error(`no XSDs in ${XSD_DIR}`);
  const loadBefore = loadavg()[0]!.toFixed(1);
  // Touched pages, as a long-running service's heap and buffers are.
  const ballast = Array.from({ length: BALLAST_MB }, () => Buffer.alloc(1024 * 1024, 1));
  const xml = fiveLineInvoiceXml();
  const validator = createXsdValidator({
    xsdDir: XSD_DIR,
    extendSchema: (text, dir) => extendXsdText(text, { importDir: dir }),
  });
  const burst = async (size: number) => {
    const out = await Promise.all(
      Array.from({ length: size }, () => validator.validate(xml, 'FacturaElectronica_V4.4.xsd')),
    );
    const bad = out.find((o) => !o?.valid);
    if (bad) throw new Error(`the invoice did not validate: ${JSON.stringify(bad)}`);
  };
  const measure = async (size: number, rounds: number) => {
    await burst(size);
    const elu0 = performance.eventLoopUtilization();
    const cpu0 = process.cpuUsage();
    const children0 = childrenCpuMs();
    const t0 = performance.now();
    for (let i = 0; i < rounds; i++) await burst(size);
    const wall = performance.now() - t0;
    const elu = performance.eventLoopUtilization(elu0);
    const cpu = process.cpuUsage(cpu0);
    const children = childrenCpuMs() - children0;
    const n = size * rounds;
    const label = size === 1 ? `one at a time × ${rounds}` : `${size} at once × ${rounds}`;
    return `| ${label} | ${Math.round((n / wall) * 1000).toLocaleString('en-US')} | ${(wall / rounds).toFixed(1)} | ${(elu.active / n).toFixed(2)} | ${((cpu.user + cpu.system) / 1000 / n).toFixed(2)} | ${(children / n).toFixed(2)} |`;
  };
  const rows = [await measure(BURST, ROUNDS), await measure(1, LONE)];
  const rss = Math.round(process.memoryUsage().rss / 1024 / 1024);
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');
  const section = [
    '## xsd',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus()[0]?.model ?? 'unknown CPU'} (nproc ${cpus().length}), Node ${process.version}, xmllint processes at once: ${availableParallelism()} (the default), one process of ${rss} MB RSS (a ${BALLAST_MB} MB ballast stands for the sandbox's heap: forking copies its page tables), 1-minute load average ${loadBefore} before and ${load} (1/5/15 min) after. Command: \`pnpm --filter @cr/xsd bench\`.`,
    '',
    `A signed 5-line invoice (${Buffer.byteLength(xml).toLocaleString('en-US')} bytes) against FacturaElectronica_V4.4.xsd extended with the 2026-04 codes, as the sandbox and the inbox use it; ${BURST} validations started at once, ${ROUNDS} times after a warm-up burst, then ${LONE} one after another (the idle case: each finds a free turn and runs alone). "ms per burst" is the wall time of one burst (of one validation in the last row).`,
    '',
    '| validations | per second | ms per burst | event-loop busy ms per validation | process CPU ms per validation | xmllint CPU ms per validation |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
    'Before ADR 0029 every validation was its own xmllint run (and, for a derived schema, bash and cat around it); its figures from this bench are in the ADR.',
    '',
  ].join('\n');
  process.stdout.write(`${section}\n`);
  ballast.length = 0;
  if (process.env.BENCH_WRITE !== '0') writePerformanceSection('## xsd', section);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
