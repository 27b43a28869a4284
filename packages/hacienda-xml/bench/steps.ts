// Step breakdown of build + sign (CPU time, min of rounds, as % of one raw RSA signature); for finding
// where time goes: `npx tsx bench/steps.ts` (LINES=100 for the 100-line invoice). Not part of `pnpm bench`.
import { sign } from 'node:crypto';
import { DocumentRequest, validate } from '@cr/contracts';
import { buildSignedDocument, openP12 } from '../src';
import { checkDocument } from '../src/document-check';
import { buildComprobanteXml } from '../src/comprobante-xml';
import { signCanonicalDocument } from '../src/xades-sign';
import { formatAmount } from '../src/money';
import { Clave, Consecutivo, Identificacion } from '../src/identifiers';
import { ISSUER, invoice, line } from '../src/testing/mothers';
import { makeTestP12 } from '../src/testing/test-certificate';
const { p12, pin } = makeTestP12();
const key = openP12(p12, pin);
const N = Number(process.env.LINES ?? 5);
const doc = invoice({
  detalleServicio: Array.from({ length: N }, (_, i) => line(i + 1, { cantidad: i + 1, precio: '1234.56' })),
});
const buf = Buffer.from('x'.repeat(1100));
const result = checkDocument(doc, { issuer: ISSUER });
if (!result.ok) throw new Error('the bench document is invalid');
const checked = result.value;
const consecutivo = new Consecutivo({ sucursal: 1, terminal: 1, tipo: '01', numero: 33 });
const clave = Clave.generate({
  fechaEmision: checked.fechaEmision,
  emisor: new Identificacion('02', '3101123456'),
  consecutivo,
});
const parts = buildComprobanteXml(checked, ISSUER, clave, consecutivo);
const cases: [string, () => unknown][] = [
  ['rsa', () => sign('sha256', buf, key.privateKey)],
  ['ajv', () => validate(DocumentRequest, doc)],
  ['check', () => checkDocument(doc, { issuer: ISSUER })],
  ['xml', () => buildComprobanteXml(checked, ISSUER, clave, consecutivo)],
  ['sign', () => signCanonicalDocument(parts, key)],
  [
    'clave',
    () =>
      Clave.generate({
        fechaEmision: checked.fechaEmision,
        emisor: new Identificacion('02', '3101123456'),
        consecutivo: new Consecutivo({ sucursal: 1, terminal: 1, tipo: '01', numero: 33 }),
      }),
  ],
  [
    'totals',
    () => {
      const o: Record<string, string> = {};
      for (const [k, v] of Object.entries(checked.summary))
        if (k !== 'totalDesgloseImpuesto') o[k] = formatAmount(v as never);
      return o;
    },
  ],
  ['total', () => buildSignedDocument({ document: doc, issuer: ISSUER, key })],
];
const best = new Map<string, number>();
for (const [, fn] of cases) for (let i = 0; i < 300; i++) fn();
const n = Number(process.env.ITER ?? 500);
for (let r = 0; r < Number(process.env.ROUNDS ?? 8); r++)
  for (const [label, fn] of cases) {
    const s = process.cpuUsage();
    for (let i = 0; i < n; i++) fn();
    const u = process.cpuUsage(s);
    const t = (u.user + u.system) / 1e3 / n;
    best.set(label, Math.min(best.get(label) ?? Infinity, t));
  }
const rsa = best.get('rsa')!;
const out: string[] = [];
for (const [label, t] of best)
  out.push(`${label.padEnd(8)} ${t.toFixed(4)} ms ${((t / rsa) * 100).toFixed(0)}% of rsa`);
out.push(
  `non-rsa / rsa: ${((best.get('total')! - rsa) / rsa).toFixed(2)}  rate ratio: ${((rsa / best.get('total')!) * 100).toFixed(1)}%`,
);
process.stdout.write(`${out.join('\n')}\n`);
