// Random documents (tax codes, IVA rates, several discounts, exonerations, currencies, other charges) go
// through the whole engine (checkDocument). The test computes every amount itself, with its own reading of
// REFERENCE §9 written out plainly below (decimal.js, half-up at 5 decimals), sends those amounts as the
// client's, and requires that the engine accepts them, computes exactly the same values, and that every
// identity of §9.2 holds on its summary.
import Decimal from 'decimal.js';
import fc from 'fast-check';
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
const add = (xs: D[]) => xs.reduce((a, b) => a.plus(b), Z);

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

interface GenTax {
  codigo: string;
  codigoTarifa?: string;
  tarifa?: string;
  factor?: string;
  datos?: { cum: string; pct?: string; vol?: string; iu: string };
  exon?: number;
}
interface GenLine {
  service: boolean;
  cantidad: string;
  precio: string;
  discounts: Array<{ monto: string; codigo: string }>;
  taxes: GenTax[];
  base07?: string;
}

const money = (min: number, max: number) => fc.integer({ min, max }).map((c) => new D(c).div(100).toFixed(2));

const otherTaxArb: fc.Arbitrary<GenTax> = fc.oneof(
  fc
    .record({ codigo: fc.constantFrom('02', '12', '99'), tarifa: fc.integer({ min: 0, max: 9999 }) })
    .map((t) => ({ codigo: t.codigo, tarifa: new D(t.tarifa).div(100).toFixed(2) })),
  fc
    .record({
      codigo: fc.constantFrom('03', '04', '05', '06'),
      cum: fc.integer({ min: 1, max: 100_000 }),
      pct: fc.integer({ min: 1, max: 9999 }),
      vol: fc.integer({ min: 1, max: 9_999_999 }),
      iu: money(0, 100_00),
    })
    .map((t) => ({
      codigo: t.codigo,
      datos: {
        cum: new D(t.cum).div(100).toFixed(2),
        iu: t.iu,
        ...(t.codigo === '04' ? { pct: new D(t.pct).div(100).toFixed(2) } : {}),
        ...(t.codigo === '05' ? { vol: new D(t.vol).div(100).toFixed(2) } : {}),
      },
    })),
);

const ivaArb: fc.Arbitrary<GenTax | undefined> = fc.oneof(
  fc.constant(undefined),
  fc
    .record({
      code: fc.constantFrom(...Object.keys(RATE)),
      exon: fc.option(fc.integer({ min: 0, max: 1300 }), { nil: undefined }),
    })
    .map(({ code, exon }) => {
      const rate = new D(RATE[code]!);
      return {
        codigo: '01',
        codigoTarifa: code,
        tarifa: RATE[code]!,
        ...(rate.gt(0) && exon !== undefined
          ? { exon: Math.min(exon, rate.times(100).toNumber()) / 100 }
          : {}),
      };
    }),
  fc.constant({ codigo: '07', codigoTarifa: '08', tarifa: '13' }),
  fc.integer({ min: 1, max: 99999 }).map((f) => ({ codigo: '08', factor: new D(f).div(10000).toFixed(4) })),
);

const lineArb: fc.Arbitrary<GenLine> = fc
  .record({
    service: fc.boolean(),
    cantidad: fc.integer({ min: 1, max: 1_000_000 }),
    precio: fc.integer({ min: 1, max: 1_000_000_00 }),
    discounts: fc.array(
      fc.record({
        pct: fc.integer({ min: 0, max: 60 }),
        codigo: fc.constantFrom('01', '02', '03', '04', '05', '06', '07', '08', '09'),
      }),
      { maxLength: 5 },
    ),
    iva: ivaArb,
    others: fc.uniqueArray(otherTaxArb, { maxLength: 4, selector: (t) => t.codigo }),
    base07: fc.option(money(1, 1_000_000_00), { nil: undefined }),
  })
  .filter((r) => r.iva !== undefined || r.others.length > 0)
  .map((r) => {
    const cantidad = new D(r.cantidad).div(1000);
    const precio = new D(r.precio).div(100);
    let left = r5(cantidad.times(precio));
    const discounts = r.discounts.map((d) => {
      const monto = left.times(d.pct).div(100).toDecimalPlaces(2, D.ROUND_DOWN);
      left = left.minus(monto);
      return { monto: monto.toFixed(2), codigo: d.codigo };
    });
    const taxes = [...r.others, ...(r.iva ? [r.iva] : [])];
    return {
      service: r.service,
      cantidad: cantidad.toString(),
      precio: precio.toFixed(2),
      discounts,
      taxes,
      ...(r.iva?.codigo === '07' && r.base07 ? { base07: r.base07 } : {}),
    };
  });

interface Expected {
  montoTotal: D;
  descuento: D;
  subTotal: D;
  base: D;
  montos: D[];
  exons: Array<D | undefined>;
  netos: D[];
  asumido: D;
  neto: D;
  totalLinea: D;
  category: 'gravado' | 'exento' | 'noSujeto';
  exonerado: D;
}

/** REFERENCE §9.1 for one line, written independently of the engine. */
function expectLine(l: GenLine): Expected {
  const q = new D(l.cantidad);
  const montoTotal = r5(q.times(l.precio));
  const ds = l.discounts.map((d) => r5(new D(d.monto)));
  const descuento = add(ds);
  const subTotal = montoTotal.minus(descuento);
  const gifts = add(
    l.discounts.filter((d) => ['01', '02', '03'].includes(d.codigo)).map((d) => new D(d.monto)),
  );
  const absorbed = add(l.discounts.filter((d) => ['01', '03'].includes(d.codigo)).map((d) => new D(d.monto)));
  const montos: D[] = l.taxes.map(() => Z);
  l.taxes.forEach((t, i) => {
    const d = t.datos;
    if (['02', '12', '99'].includes(t.codigo)) montos[i] = r5(new D(t.tarifa!).div(100).times(subTotal));
    else if (t.codigo === '03') montos[i] = r5(new D(d!.cum).times(d!.iu));
    else if (t.codigo === '04') {
      const proporcion = r5(new D(d!.cum).times(d!.pct!));
      montos[i] = r5(q.times(proporcion).times(d!.iu));
    } else if (t.codigo === '05') montos[i] = r5(q.times(d!.cum).times(d!.iu).div(d!.vol!));
    else if (t.codigo === '06') montos[i] = r5(q.times(d!.cum).times(d!.iu));
  });
  const inBase = add(l.taxes.map((t, i) => (['02', '04', '05', '12'].includes(t.codigo) ? montos[i]! : Z)));
  const base = l.base07 ? new D(l.base07) : subTotal.plus(inBase);
  const exons: Array<D | undefined> = l.taxes.map(() => undefined);
  const asumidos: D[] = l.taxes.map(() => Z);
  l.taxes.forEach((t, i) => {
    if (t.codigo === '01') {
      const rate = new D(t.tarifa!).div(100);
      montos[i] = t.codigoTarifa === '10' ? Z : r5(rate.times(base.plus(gifts)));
      if (t.exon !== undefined) exons[i] = D.min(montos[i]!, r5(new D(t.exon).div(100).times(base)));
      asumidos[i] = D.min(r5(rate.times(absorbed)), montos[i]!.minus(exons[i] ?? Z));
    } else if (t.codigo === '07') montos[i] = r5(new D(t.tarifa!).div(100).times(base));
    else if (t.codigo === '08') montos[i] = r5(new D(t.factor!).times(subTotal));
  });
  const netos = l.taxes.map((_, i) => montos[i]!.minus(exons[i] ?? Z).minus(asumidos[i]!));
  const neto = add(netos);
  const iva = l.taxes.findIndex((t) => ['01', '07', '08'].includes(t.codigo));
  const ivaTax = l.taxes[iva];
  const category = !ivaTax
    ? 'noSujeto'
    : ivaTax.codigo === '08'
      ? 'gravado'
      : ivaTax.codigoTarifa === '10'
        ? 'exento'
        : ['01', '11'].includes(ivaTax.codigoTarifa!)
          ? 'noSujeto'
          : 'gravado';
  const exonerado =
    iva >= 0 && exons[iva] !== undefined && montos[iva]!.gt(0)
      ? r5(montoTotal.times(exons[iva]!).div(montos[iva]!))
      : Z;
  return {
    montoTotal,
    descuento,
    subTotal,
    base,
    montos,
    exons,
    netos,
    asumido: add(asumidos),
    neto,
    totalLinea: subTotal.plus(neto),
    category,
    exonerado,
  };
}

function requestLine(l: GenLine, n: number, e: Expected) {
  return {
    numeroLinea: n,
    codigo: l.service ? '8314300000000' : '2132100000100',
    detalle: `Línea aleatoria ${n}`,
    cantidad: Number(l.cantidad),
    unidadMedida: 'Unid' as const,
    precioUnitario: l.precio,
    subTotal: f5(e.montoTotal),
    ...(l.discounts.length
      ? {
          descuentos: l.discounts.map((d) => ({
            montoDescuento: d.monto,
            codigoDescuento: d.codigo as '07',
          })),
        }
      : {}),
    montoTotal: f5(e.subTotal),
    ...(l.base07 ? { baseImponible: l.base07 } : { baseImponible: f5(e.base) }),
    impuestoAsumidoEmisorFabrica: f5(e.asumido),
    impuestoNeto: e.neto.toNumber(),
    montoTotalLinea: e.totalLinea.toNumber(),
    impuesto: l.taxes.map((t, i) => ({
      codigo: t.codigo as '01',
      ...(t.codigoTarifa ? { codigoTarifa: t.codigoTarifa as '08' } : {}),
      ...(t.tarifa ? { tarifa: t.tarifa } : {}),
      ...(t.factor ? { factorCalculoIVA: t.factor } : {}),
      ...(t.codigo === '99' ? { codigoImpuestoOtro: 'Impuesto de prueba' } : {}),
      ...(t.datos
        ? {
            datosImpuestoEspecifico: {
              cantidadUnidadMedida: t.datos.cum,
              impuestoUnidad: t.datos.iu,
              ...(t.datos.pct ? { porcentaje: t.datos.pct } : {}),
              ...(t.datos.vol ? { volumenUnidadConsumo: t.datos.vol } : {}),
            },
          }
        : {}),
      monto: f5(e.montos[i]!),
      ...(t.exon !== undefined
        ? {
            exoneracion: {
              tipoDocumento: '04' as const,
              numeroDocumento: 'AL-00460853-20',
              nombreInstitucion: '01' as const,
              fechaEmision: '2026-01-15T00:00:00',
              porcentajeExoneracion: t.exon,
              montoExoneracion: f5(e.exons[i]!),
            },
          }
        : {}),
    })),
  };
}

const currencyArb = fc.oneof(
  fc.constant({ codigoMoneda: 'CRC' }),
  fc.record({ codigoMoneda: fc.constantFrom('USD', 'EUR'), tipoCambio: money(1, 100_000) }),
);

describe('taxes property', () => {
  it('when lines carry random taxes, discounts and exonerations, then the engine agrees with §9 and every §9.2 identity holds', () => {
    fc.assert(
      fc.property(
        fc.array(lineArb, { minLength: 1, maxLength: 12 }),
        currencyArb,
        fc.array(money(0, 1_000_000_00), { maxLength: 3 }),
        fc.constantFrom('1', '4'),
        (gen, moneda, cargos, tipoDoc) => {
          const expected = gen.map(expectLine);
          const doc = invoice({
            tipoDoc: tipoDoc as '1',
            ...(tipoDoc === '4' ? { receptor: '' as const } : {}),
            detalleServicio: gen.map((l, i) => requestLine(l, i + 1, expected[i]!)),
            otrosCargos: cargos.map((c) => ({
              tipoDocumento: '06' as const,
              detalle: 'Servicio',
              montoCargo: c,
              porcentaje: '10',
            })),
            resumenFactura: { codigoTipoMoneda: moneda, mediosPago: [{ tipoMedioPago: '01' }] },
          });
          const r = checkDocument(doc, { issuer: ISSUER, now: new Date('2026-05-27T00:00:00Z') });
          if (!r.ok) throw new Error(JSON.stringify(r.issues));
          const s = r.value.summary;
          r.value.lines.forEach((l, i) => {
            const e = expected[i]!;
            expect(f5(l.montoTotal)).toBe(f5(e.montoTotal));
            expect(f5(l.subTotal)).toBe(f5(e.subTotal));
            expect(f5(l.baseImponible)).toBe(f5(e.base));
            expect(l.impuestos.map((t) => f5(t.monto))).toEqual(e.montos.map(f5));
            expect(l.impuestos.map((t) => t.montoExoneracion && f5(t.montoExoneracion))).toEqual(
              e.exons.map((x) => x && f5(x)),
            );
            expect(f5(l.impuestoAsumidoEmisorFabrica)).toBe(f5(e.asumido));
            expect(f5(l.impuestoNeto)).toBe(f5(e.neto));
            expect(f5(l.montoTotalLinea)).toBe(f5(e.totalLinea));
            expect(l.category).toBe(e.category);
            expect(f5(l.exoneradoPart)).toBe(f5(e.exonerado));
          });
          // §9.2: the buckets, from the lines.
          const bucket = (service: boolean, cat: Expected['category']) =>
            add(
              expected.map((e, i) =>
                gen[i]!.service === service && e.category === cat ? e.montoTotal.minus(e.exonerado) : Z,
              ),
            );
          const exon = (service: boolean) =>
            add(expected.map((e, i) => (gen[i]!.service === service ? e.exonerado : Z)));
          const eq = (a: D, b: D) => expect(f5(a)).toBe(f5(b));
          eq(s.totalServGravados, bucket(true, 'gravado'));
          eq(s.totalServExentos, bucket(true, 'exento'));
          eq(s.totalServNoSujeto, bucket(true, 'noSujeto'));
          eq(s.totalServExonerado, exon(true));
          eq(s.totalMercanciasGravadas, bucket(false, 'gravado'));
          eq(s.totalMercanciasExentas, bucket(false, 'exento'));
          eq(s.totalMercNoSujeta, bucket(false, 'noSujeto'));
          eq(s.totalMercExonerada, exon(false));
          eq(s.totalGravado, s.totalServGravados.plus(s.totalMercanciasGravadas));
          eq(s.totalExento, s.totalServExentos.plus(s.totalMercanciasExentas));
          eq(s.totalExonerado, s.totalServExonerado.plus(s.totalMercExonerada));
          eq(s.totalNoSujeto, s.totalServNoSujeto.plus(s.totalMercNoSujeta));
          eq(s.totalVenta, s.totalGravado.plus(s.totalExento).plus(s.totalExonerado).plus(s.totalNoSujeto));
          eq(s.totalVenta, add(expected.map((e) => e.montoTotal)));
          eq(s.totalDescuentos, add(expected.map((e) => e.descuento)));
          eq(s.totalVentaNeta, s.totalVenta.minus(s.totalDescuentos));
          eq(s.totalImpuesto, add(expected.map((e) => e.neto)));
          eq(s.totalImpAsumEmisorFabrica, add(expected.map((e) => e.asumido)));
          eq(s.totalOtrosCargos, add(cargos.map((c) => new D(c))));
          eq(
            s.totalComprobante,
            s.totalVentaNeta.plus(s.totalImpuesto).plus(s.totalOtrosCargos).minus(s.totalIVADevuelto),
          );
          // TotalDesgloseImpuesto: Σ neto per code (and IVA rate for 01/07), adding up to TotalImpuesto.
          const desglose = new Map<string, D>();
          gen.forEach((l, i) => {
            l.taxes.forEach((t, j) => {
              const key = t.codigo === '01' || t.codigo === '07' ? `${t.codigo}/${t.codigoTarifa}` : t.codigo;
              desglose.set(key, (desglose.get(key) ?? Z).plus(expected[i]!.netos[j]!));
            });
          });
          expect(
            Object.fromEntries(
              s.totalDesgloseImpuesto.map((d) => [
                d.codigoTarifa ? `${d.codigo}/${d.codigoTarifa}` : d.codigo,
                f5(d.totalMontoImpuesto),
              ]),
            ),
          ).toEqual(Object.fromEntries([...desglose].map(([k, v]) => [k, f5(v)])));
          eq(s.totalImpuesto, add(s.totalDesgloseImpuesto.map((d) => d.totalMontoImpuesto)));
          // The XML's own values pass the verification the sandbox judges with.
          const signed = buildSignedDocument({
            document: doc,
            issuer: ISSUER,
            key,
            now: new Date('2026-05-27T00:00:00Z'),
          });
          expect(checkReceivedArithmetic(signed.xml)).toEqual([]);
        },
      ),
      { numRuns: 200 },
    );
  });
});
