// Random surtido lines (ADR 0024) through the whole engine: the test computes every component and line
// amount itself (decimal.js, half-up at 5 decimals, the formulas of REFERENCE §9.1 written out below),
// sends them as the client's, and requires that the engine accepts them and computes the same values, and
// that the signed XML's own values pass the shared §9 check the sandbox judges with.
import Decimal from 'decimal.js';
import fc from 'fast-check';
import type { DocumentComponenteSurtido, DocumentLinea } from '@cr/contracts';
import { buildSignedDocument } from './build-document';
import { checkDocument } from './document-check';
import { checkReceivedArithmetic } from './received-arithmetic';
import { openP12 } from './signing-key';
import { makeTestP12 } from './testing/test-certificate';
import { ISSUER, invoice } from './testing/mothers';

const { p12, pin } = makeTestP12();
const key = openP12(p12, pin);
const D = Decimal.clone({ precision: 50, rounding: Decimal.ROUND_HALF_UP });
type D = Decimal;
const r5 = (x: D) => x.toDecimalPlaces(5, D.ROUND_HALF_UP);
const f5 = (x: D) => x.toFixed(5, D.ROUND_HALF_UP);
const Z = new D(0);

const RATE: Record<string, string> = {
  '01': '0',
  '02': '1',
  '03': '2',
  '04': '4',
  '08': '13',
  '09': '0.5',
  '10': '0',
  '11': '0',
};
/** Goods and services of the catalogue, all different codes. */
const CABYS = [
  '2149400000400',
  '2225102010100',
  '2132100000100',
  '8314300000000',
  '9310100000300',
  '2225101010200',
];

interface GenComponent {
  cantidad: string;
  precio: string;
  discounts: Array<{ share: number; codigo: string }>;
  codigoTarifa: string;
  selectivo?: string;
}

const componentArb: fc.Arbitrary<GenComponent> = fc.record(
  {
    cantidad: fc.integer({ min: 1, max: 50000 }).map((c) => new D(c).div(1000).toFixed(3)),
    precio: fc.integer({ min: 0, max: 5_000_000 }).map((c) => new D(c).div(100).toFixed(2)),
    discounts: fc.array(
      fc.record({
        share: fc.integer({ min: 0, max: 40 }),
        codigo: fc.constantFrom('01', '02', '03', '07', '04'),
      }),
      { maxLength: 2 },
    ),
    codigoTarifa: fc.constantFrom(...Object.keys(RATE)),
    selectivo: fc.option(
      fc.integer({ min: 0, max: 5000 }).map((c) => new D(c).div(100).toFixed(2)),
      { nil: undefined },
    ),
  },
  { requiredKeys: ['cantidad', 'precio', 'discounts', 'codigoTarifa'] },
);

const lineArb = fc.record({
  cantidad: fc.integer({ min: 1, max: 20000 }).map((c) => new D(c).div(1000).toFixed(3)),
  components: fc.array(componentArb, { minLength: 3, maxLength: 6 }),
});

interface Expected {
  line: DocumentLinea;
  subTotal: D;
  impuestoNeto: D;
  asumido: D;
}

/** The line and its client amounts as the test computes them. */
function build(g: { cantidad: string; components: GenComponent[] }): Expected {
  const Q = new D(g.cantidad);
  let pu = Z;
  const scaledByCode = new Map<string, D>();
  let scaledAsumido = Z;
  const components: DocumentComponenteSurtido[] = g.components.map((c, k) => {
    const mt = r5(new D(c.cantidad).times(c.precio));
    let left = mt;
    const descuentos = c.discounts.map((d) => {
      const m = r5(left.times(d.share).div(100));
      left = left.minus(m);
      return { monto: m, codigo: d.codigo };
    });
    const sub = mt.minus(descuentos.reduce((a, d) => a.plus(d.monto), Z));
    const gifts = descuentos
      .filter((d) => ['01', '02', '03'].includes(d.codigo))
      .reduce((a, d) => a.plus(d.monto), Z);
    const absorbed = descuentos
      .filter((d) => ['01', '03'].includes(d.codigo))
      .reduce((a, d) => a.plus(d.monto), Z);
    const sel = c.selectivo === undefined ? undefined : r5(new D(c.selectivo).div(100).times(sub));
    const base = sub.plus(sel ?? Z);
    const rate = new D(RATE[c.codigoTarifa]!).div(100);
    const iva = c.codigoTarifa === '10' ? Z : r5(rate.times(base.plus(gifts)));
    const asumido = D.min(iva, absorbed.isZero() ? Z : r5(rate.times(absorbed)));
    pu = pu.plus(sub);
    const scale = (codigo: string, m: D) => {
      const s = r5(m.times(Q));
      scaledByCode.set(codigo, (scaledByCode.get(codigo) ?? Z).plus(s));
    };
    if (sel) scale('02', sel);
    scale('01', iva);
    scaledAsumido = scaledAsumido.plus(r5(asumido.times(Q)));
    return {
      codigo: CABYS[k]!,
      detalle: `Componente ${k + 1}`,
      cantidad: Number(c.cantidad),
      unidadMedida: 'Unid',
      precioUnitario: c.precio,
      montoTotal: f5(mt),
      ...(descuentos.length
        ? {
            descuentos: descuentos.map((d) => ({
              montoDescuento: f5(d.monto),
              codigoDescuento: d.codigo as '07',
            })),
          }
        : {}),
      subTotal: f5(sub),
      baseImponible: f5(base),
      impuestos: [
        ...(sel ? [{ codigo: '02' as const, tarifa: c.selectivo!, monto: f5(sel) }] : []),
        {
          codigo: '01' as const,
          codigoTarifa: c.codigoTarifa as '08',
          tarifa: RATE[c.codigoTarifa]!,
          monto: f5(iva),
        },
      ],
    };
  });
  const subTotal = r5(Q.times(pu));
  const gross = [...scaledByCode.values()].reduce((a, b) => a.plus(b), Z);
  const impuestoNeto = gross.minus(scaledAsumido);
  return {
    line: {
      numeroLinea: 1,
      codigo: '2399999002200',
      codigoComercial: [{ tipo: '03', codigo: '7441001234567' }],
      detalle: 'Surtido aleatorio',
      cantidad: Number(g.cantidad),
      unidadMedida: 'Unid',
      detalleSurtido: components,
      precioUnitario: f5(pu),
      subTotal: f5(subTotal),
      montoTotal: f5(subTotal),
      impuestoAsumidoEmisorFabrica: f5(scaledAsumido),
      impuestoNeto: Number(f5(impuestoNeto)),
      montoTotalLinea: Number(f5(subTotal.plus(impuestoNeto))),
    },
    subTotal,
    impuestoNeto,
    asumido: scaledAsumido,
  };
}

describe('random surtido lines', () => {
  it('when the client sends the amounts computed independently, then the engine agrees and the XML passes §9', () => {
    fc.assert(
      fc.property(lineArb, (g) => {
        fc.pre(new D(g.components.reduce((a, c) => a + Number(c.precio), 0)).gt(0));
        const e = build(g);
        const doc = invoice({ detalleServicio: [e.line] });
        const r = checkDocument(doc, { issuer: ISSUER, now: new Date('2026-05-27T00:00:00Z') });
        if (!r.ok) throw new Error(JSON.stringify(r.issues));
        const l = r.value.lines[0]!;
        expect([l.subTotal, l.impuestoNeto, l.impuestoAsumidoEmisorFabrica].map((x) => x.toFixed(5))).toEqual(
          [e.subTotal, e.impuestoNeto, e.asumido].map(f5),
        );
        const s = r.value.summary;
        expect(s.totalComprobante.toFixed(5)).toBe(f5(e.subTotal.plus(e.impuestoNeto)));
        const signed = buildSignedDocument({
          document: doc,
          issuer: ISSUER,
          key,
          now: new Date('2026-05-26T18:31:00Z'),
        });
        expect(checkReceivedArithmetic(signed.xml)).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });
});
