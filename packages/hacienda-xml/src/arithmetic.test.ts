import { computeLine, computeSummary } from './arithmetic';
import { Dec, formatAmount } from './money';

describe('arithmetic', () => {
  it('when the accepted FE sample (1,250 USD at 13%) is computed, then REFERENCE §9.2 is reproduced exactly', () => {
    const line = computeLine({
      cabys: '8314300000000',
      cantidad: new Dec(1),
      precioUnitario: new Dec('1250'),
      descuentos: [],
      impuestos: [{ codigo: '01', codigoTarifa: '08', tarifa: new Dec(13) }],
    });
    expect(formatAmount(line.impuestos[0]!.monto)).toBe('162.50000');
    expect(formatAmount(line.impuestoNeto)).toBe('162.50000');
    expect(formatAmount(line.montoTotalLinea)).toBe('1412.50000');
    const s = computeSummary([line], []);
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
      descuentos: [],
      impuestos: [{ codigo: '01', codigoTarifa: '08', tarifa: new Dec(13) }],
    });
    // 0.00005 × 13% = 0.0000065 → 0.00001
    expect(formatAmount(line.impuestos[0]!.monto)).toBe('0.00001');
  });

  it('when a line is partly exonerated, then MontoTotal splits between gravado and exonerado', () => {
    const line = computeLine({
      cabys: '2132100000100',
      cantidad: new Dec(2),
      precioUnitario: new Dec('500'),
      descuentos: [],
      impuestos: [{ codigo: '01', codigoTarifa: '08', tarifa: new Dec(13), tarifaExonerada: new Dec('6.5') }],
    });
    expect(line.impuestos[0]!.monto.toString()).toBe('130');
    expect(line.impuestos[0]!.montoExoneracion?.toString()).toBe('65');
    expect(line.impuestoNeto.toString()).toBe('65');
    expect(line.exoneradoPart.toString()).toBe('500');
    expect(line.categoryPart.toString()).toBe('500');
  });
});
