// XSD benchmark: validations of a signed 5-line invoice against the derived FacturaElectronica schema
// (extended with the 2026-04 codes, as the hacienda-sandbox and the tenant-api's inbox configure @cr/xsd),
// one at a time and in bursts, and of a 1,000-line invoice (the largest the schema allows), in process
// (libxml2 as WebAssembly, ADR 0036). Reports the first validation (the schema's compile), validations/s,
// the event loop's busy time and the process's CPU per validation, and the memory the compiled schema and
// the WebAssembly heap add. Rewrites the `xsd` section of docs/performance.md.
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildSignedDocument, extendXsdText, openP12 } from '@cr/hacienda-xml';
import { ISSUER, invoice, line } from '@cr/hacienda-xml/src/testing/mothers';
import { makeTestP12 } from '@cr/hacienda-xml/src/testing/test-certificate';
import { createXsdValidator } from '../src';
import { describeOtherWork, startOtherWork, writePerformanceSection } from '@cr/testkit';

const XSD_DIR = process.env.HACIENDA_XSD_DIR ?? path.resolve(__dirname, '../../../../shared/hacienda/xsd');
const BURST = Number(process.env.BENCH_BURST ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const LONE = Number(process.env.BENCH_LONE ?? 100);

function signedInvoiceXml(lines: number): string {
  const { p12, pin } = makeTestP12();
  const five = [
    line(1, { precio: '1234567.89' }),
    line(2, { cantidad: 2, precio: '350.50', descuento: '20.00' }),
    line(3, { precio: '1000.00' }),
    line(4, { cantidad: 3, precio: '15.25', codigoTarifa: '04', tarifa: '4' }),
    line(5, { precio: '99.99' }),
  ];
  const document = invoice({
    detalleServicio:
      lines === 5 ? five : Array.from({ length: lines }, (_, i) => line(i + 1, { precio: '10.00' })),
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

async function main(): Promise<void> {
  if (!existsSync(path.join(XSD_DIR, 'FacturaElectronica_V4.4.xsd')))
    throw new Error(`no XSDs in ${XSD_DIR}`);
  const loadBefore = loadavg()[0]!.toFixed(1);
  const other = startOtherWork();
  const xml = signedInvoiceXml(5);
  const large = signedInvoiceXml(1000);
  const validator = createXsdValidator({
    xsdDir: XSD_DIR,
    maxBytes: 4 * 1024 * 1024,
    extendSchema: (text, dir) => extendXsdText(text, { importDir: dir }),
  });
  const check = (out: Awaited<ReturnType<typeof validator.validate>>) => {
    if (!out?.valid) throw new Error(`the invoice did not validate: ${JSON.stringify(out)}`);
  };
  const rssBefore = process.memoryUsage().rss;
  const t = performance.now();
  check(await validator.validate(xml, 'FacturaElectronica_V4.4.xsd'));
  const firstMs = performance.now() - t;
  const rssCompiled = process.memoryUsage().rss;
  const burst = async (size: number, doc: string) => {
    const out = await Promise.all(
      Array.from({ length: size }, () => validator.validate(doc, 'FacturaElectronica_V4.4.xsd')),
    );
    for (const o of out) check(o);
  };
  const measure = async (label: string, size: number, rounds: number, doc = xml) => {
    await burst(size, doc);
    const elu0 = performance.eventLoopUtilization();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < rounds; i++) await burst(size, doc);
    const wall = performance.now() - t0;
    const elu = performance.eventLoopUtilization(elu0);
    const cpu = process.cpuUsage(cpu0);
    const n = size * rounds;
    return `| ${label} | ${Math.round((n / wall) * 1000).toLocaleString('en-US')} | ${(wall / rounds).toFixed(2)} | ${(elu.active / n).toFixed(3)} | ${((cpu.user + cpu.system) / 1000 / n).toFixed(3)} |`;
  };
  const rows = [
    await measure(`5-line, ${BURST} at once × ${ROUNDS}`, BURST, ROUNDS),
    await measure(`5-line, one at a time × ${LONE}`, 1, LONE),
    await measure('1,000-line, one at a time × 10', 1, 10, large),
  ];
  const mb = (b: number) => Math.round(b / 1024 / 1024);
  const rss = process.memoryUsage().rss;
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');
  const section = [
    '## xsd',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus()[0]?.model ?? 'unknown CPU'} (nproc ${cpus().length}), Node ${process.version}, libxml2 as WebAssembly in the process (ADR 0036), 1-minute load average ${loadBefore} before and ${load} (1/5/15 min) after; ${describeOtherWork(other())}. Command: \`pnpm --filter @cr/xsd bench\`.`,
    '',
    `Signed invoices against FacturaElectronica_V4.4.xsd extended with the 2026-04 codes, as the sandbox and the inbox use it: a 5-line one (${Buffer.byteLength(xml).toLocaleString('en-US')} bytes), ${BURST} validations started at once, ${ROUNDS} times after a warm-up burst, then ${LONE} one after another; a 1,000-line one (${Buffer.byteLength(large).toLocaleString('en-US')} bytes, the most lines the schema allows). A validation runs on the event loop from start to end, so "ms per burst" of a lone validation is how long it holds the loop. The first validation, which loads libxml2 and compiles the schema, took ${firstMs.toFixed(0)} ms; RSS ${mb(rssBefore)} MB before it, ${mb(rssCompiled)} MB after it and ${mb(rss)} MB after the runs (the WebAssembly heap keeps the size the largest document needed). Under tsx (this command) the load includes tsx transforming the 2 MB module; the services run bundles under plain node, where ADR 0036 measured 125 ms and +16 MB.`,
    '',
    '| validations | per second | ms per burst | event-loop busy ms per validation | process CPU ms per validation |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    'Until ADR 0036, xmllint ran in a child process (ADR 0029: shared runs from a long-lived launcher). Its last figures from this bench, on 2026-11-27 (AMD EPYC, 2 cores): 200 at once 1,948/s with 0.29 ms of process CPU and 0.52 ms of xmllint CPU per validation; one at a time 104/s, 1.91 ms of process CPU and 7.50 ms of xmllint CPU per validation (a fork and a schema compile each).',
    '',
  ].join('\n');
  process.stdout.write(`${section}\n`);
  await validator.close();
  if (process.env.BENCH_WRITE !== '0') writePerformanceSection('## xsd', section);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
