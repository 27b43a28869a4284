import fc from 'fast-check';
import { type LineInput, computeLine, computeSummary } from './arithmetic';
import { Dec, formatAmount, sum } from './money';

const TARIFAS: Record<string, string> = {
  '01': '0',
  '02': '1',
  '03': '2',
  '04': '4',
  '08': '13',
  '09': '0.5',
  '10': '0',
  '11': '0',
};

describe('arithmetic', () => {
  it('when the accepted FE sample (1,250 USD at 13%) is computed, then REFERENCE §9.2 is reproduced exactly', () => {
    const line = computeLine({
      cabys: '8314300000000',
      cantidad: new Dec(1),
      precioUnitario: new Dec('1250'),
      descuento: new Dec(0),
      impuestoCodigo: '01',
      codigoTarifa: '08',
      tarifa: new Dec(13),
    });
    expect(formatAmount(line.monto)).toBe('162.50000');
    expect(formatAmount(line.impuestoNeto)).toBe('162.50000');
    expect(formatAmount(line.montoTotalLinea)).toBe('1412.50000');
    const s = computeSummary([{ ...line, impuestoCodigo: '01', codigoTarifa: '08' }], []);
    for (const v of [s.totalServGravados, s.totalGravado, s.totalVenta, s.totalVentaNeta]) {
      expect(formatAmount(v)).toBe('1250.00000');
    }
    expect(
      s.totalDesgloseImpuesto.map((d) => [d.codigo, d.codigoTarifa, formatAmount(d.totalMontoImpuesto)]),
    ).toEqual([['01', '08', '162.50000']]);
    expect(formatAmount(s.totalImpuesto)).toBe('162.50000');
    expect(formatAmount(s.totalComprobante)).toBe('1412.50000');
  });

  it('when an amount falls on the 6th decimal, then it rounds half-up', () => {
    const line = computeLine({
      cabys: '2132100000100',
      cantidad: new Dec('1'),
      precioUnitario: new Dec('0.00005'),
      descuento: new Dec(0),
      impuestoCodigo: '01',
      codigoTarifa: '08',
      tarifa: new Dec(13),
    });
    // 0.00005 × 13% = 0.0000065 → 0.00001
    expect(formatAmount(line.monto)).toBe('0.00001');
  });

  it('when a line is partly exonerated, then MontoTotal splits between gravado and exonerado', () => {
    const line = computeLine({
      cabys: '2132100000100',
      cantidad: new Dec(2),
      precioUnitario: new Dec('500'),
      descuento: new Dec(0),
      impuestoCodigo: '01',
      codigoTarifa: '08',
      tarifa: new Dec(13),
      tarifaExonerada: new Dec('6.5'),
    });
    expect(line.monto.toString()).toBe('130');
    expect(line.montoExoneracion?.toString()).toBe('65');
    expect(line.impuestoNeto.toString()).toBe('65');
    expect(line.exoneradoPart.toString()).toBe('500');
    expect(line.categoryPart.toString()).toBe('500');
  });

  const lineArb: fc.Arbitrary<LineInput> = fc
    .record({
      service: fc.boolean(),
      cantidad: fc.integer({ min: 1, max: 1_000_000 }),
      precio: fc.integer({ min: 1, max: 100_000_000_00 }),
      descPct: fc.integer({ min: 0, max: 100 }),
      code: fc.constantFrom(...Object.keys(TARIFAS)),
      exon: fc.option(fc.integer({ min: 0, max: 1300 }), { nil: undefined }),
    })
    .map((r) => {
      const cantidad = new Dec(r.cantidad).div(1000);
      const precioUnitario = new Dec(r.precio).div(100);
      const descuento = cantidad
        .times(precioUnitario)
        .times(r.descPct)
        .div(100)
        .toDecimalPlaces(2, Dec.ROUND_DOWN);
      const tarifa = new Dec(TARIFAS[r.code]!);
      const exonerable = tarifa.gt(0) && r.exon !== undefined;
      return {
        cabys: r.service ? '8314300000000' : '2132100000100',
        cantidad,
        precioUnitario,
        descuento,
        impuestoCodigo: '01',
        codigoTarifa: r.code,
        tarifa,
        ...(exonerable ? { tarifaExonerada: Dec.min(tarifa, new Dec(r.exon!).div(100)) } : {}),
      };
    });

  it('when lines are random, then every summary identity of §9.2 holds exactly', () => {
    fc.assert(
      fc.property(
        fc.array(lineArb, { minLength: 1, maxLength: 30 }),
        fc.array(fc.integer({ min: 0, max: 1e9 }), { maxLength: 3 }),
        (inputs, cargos) => {
          const lines = inputs.map((i) => ({
            ...computeLine(i),
            impuestoCodigo: i.impuestoCodigo,
            codigoTarifa: i.codigoTarifa,
          }));
          const s = computeSummary(
            lines,
            cargos.map((c) => new Dec(c).div(100)),
          );
          for (const l of lines) {
            expect(l.subTotal.eq(l.montoTotal.minus(l.descuento))).toBe(true);
            expect(
              l.impuestoNeto.eq(l.monto.minus(l.montoExoneracion ?? 0).minus(l.impuestoAsumidoEmisorFabrica)),
            ).toBe(true);
            expect(l.montoTotalLinea.eq(l.subTotal.plus(l.impuestoNeto))).toBe(true);
            expect(l.impuestoNeto.gte(0)).toBe(true);
            expect(l.montoTotal.decimalPlaces()).toBeLessThanOrEqual(5);
            expect(l.monto.decimalPlaces()).toBeLessThanOrEqual(5);
          }
          expect(s.totalGravado.eq(s.totalServGravados.plus(s.totalMercanciasGravadas))).toBe(true);
          expect(s.totalExento.eq(s.totalServExentos.plus(s.totalMercanciasExentas))).toBe(true);
          expect(s.totalExonerado.eq(s.totalServExonerado.plus(s.totalMercExonerada))).toBe(true);
          expect(s.totalNoSujeto.eq(s.totalServNoSujeto.plus(s.totalMercNoSujeta))).toBe(true);
          expect(
            s.totalVenta.eq(s.totalGravado.plus(s.totalExento).plus(s.totalExonerado).plus(s.totalNoSujeto)),
          ).toBe(true);
          expect(s.totalVenta.eq(sum(lines.map((l) => l.montoTotal)))).toBe(true);
          expect(s.totalDescuentos.eq(sum(lines.map((l) => l.descuento)))).toBe(true);
          expect(s.totalVentaNeta.eq(s.totalVenta.minus(s.totalDescuentos))).toBe(true);
          expect(s.totalImpuesto.eq(sum(lines.map((l) => l.impuestoNeto)))).toBe(true);
          expect(s.totalImpuesto.eq(sum(s.totalDesgloseImpuesto.map((d) => d.totalMontoImpuesto)))).toBe(
            true,
          );
          expect(
            s.totalComprobante.eq(
              s.totalVentaNeta.plus(s.totalImpuesto).plus(s.totalOtrosCargos).minus(s.totalIVADevuelto),
            ),
          ).toBe(true);
          expect(
            s.totalComprobante.eq(sum(lines.map((l) => l.montoTotalLinea)).plus(s.totalOtrosCargos)),
          ).toBe(true);
          for (const v of [
            s.totalServGravados,
            s.totalServExonerado,
            s.totalMercanciasGravadas,
            s.totalMercExonerada,
          ]) {
            expect(v.gte(0)).toBe(true);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
