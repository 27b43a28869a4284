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

  // Hand-computed values for each tax code (REFERENCE §9.1 item 5).
  const line = (impuestos: Parameters<typeof computeLine>[0]['impuestos'], extra = {}) =>
    computeLine({
      cabys: '2132100000100',
      cantidad: new Dec(6),
      precioUnitario: new Dec('1000'),
      descuentos: [],
      impuestos,
      ...extra,
    });
  const IVA = { codigo: '01', codigoTarifa: '08', tarifa: new Dec(13) };

  it('when a selectivo (02) of 10% precedes IVA, then IVA is charged on SubTotal + selectivo', () => {
    const l = line([{ codigo: '02', tarifa: new Dec(10) }, IVA]);
    // 6000 × 10% = 600; base 6600; IVA 858.
    expect(l.impuestos.map((t) => t.monto.toString())).toEqual(['600', '858']);
    expect(l.baseImponible.toString()).toBe('6600');
    expect(l.impuestoNeto.toString()).toBe('1458');
    expect(l.montoTotalLinea.toString()).toBe('7458');
  });

  it('when alcohol (04), soft drinks (05), soap (05), tobacco (06) and fuel (03) are computed, then each follows its formula', () => {
    const datos = {
      cantidadUnidadMedida: new Dec('0.75'),
      porcentaje: new Dec('12.5'),
      impuestoUnidad: new Dec('2'),
    };
    // Proporcion 0.75 × 12.5 = 9.375; 6 × 9.375 × 2 = 112.5; in the IVA base.
    const alcohol = line([{ codigo: '04', especifico: datos }, IVA]);
    expect(alcohol.impuestos[0]!.monto.toString()).toBe('112.5');
    expect(alcohol.impuestos[0]!.proporcion?.toString()).toBe('9.375');
    expect(alcohol.impuestos[1]!.monto.toString()).toBe('794.625'); // 13% × 6112.5
    const bebida = {
      cantidadUnidadMedida: new Dec('355'),
      volumenUnidadConsumo: new Dec('250'),
      impuestoUnidad: new Dec('21.36'),
    };
    // 6 × 355 × 21.36 / 250 = 181.9872
    expect(line([{ codigo: '05', especifico: bebida }]).impuestos[0]!.monto.toString()).toBe('181.9872');
    // Soap: 6 × 250 × 21.36 = 32040
    expect(line([{ codigo: '05', especifico: bebida, jabon: true }]).impuestos[0]!.monto.toString()).toBe(
      '32040',
    );
    const tabaco = { cantidadUnidadMedida: new Dec('20'), impuestoUnidad: new Dec('24.11') };
    expect(line([{ codigo: '06', especifico: tabaco }]).impuestos[0]!.monto.toString()).toBe('2893.2'); // 6×20×24.11
    expect(line([{ codigo: '03', especifico: tabaco }]).impuestos[0]!.monto.toString()).toBe('482.2'); // 20×24.11
  });

  it('when IVA 07 has an edited base, 08 a factor and 12 cement a rate, then each uses its own base', () => {
    const especial = line([{ codigo: '07', codigoTarifa: '08', tarifa: new Dec(13) }], {
      baseImponible: new Dec('1000'),
    });
    expect(especial.impuestos[0]!.monto.toString()).toBe('130');
    expect(line([{ codigo: '08', factor: new Dec('0.1304') }]).impuestos[0]!.monto.toString()).toBe('782.4');
    const cemento = line([{ codigo: '12', tarifa: new Dec(5) }, IVA]);
    expect(cemento.impuestos.map((t) => t.monto.toString())).toEqual(['300', '819']); // 13% × 6300
  });

  it('when a regalía (01) is discounted, then its IVA is still charged and the issuer absorbs it', () => {
    const l = computeLine({
      cabys: '2132100000100',
      cantidad: new Dec(6),
      precioUnitario: new Dec('1000'),
      descuentos: [
        { monto: new Dec('1000'), codigo: '01' },
        { monto: new Dec('500'), codigo: '07' },
      ],
      impuestos: [IVA],
    });
    expect(l.subTotal.toString()).toBe('4500');
    expect(l.impuestos[0]!.monto.toString()).toBe('715'); // 13% × (4500 + 1000)
    expect(l.impuestoAsumidoEmisorFabrica.toString()).toBe('130');
    expect(l.impuestoNeto.toString()).toBe('585');
    expect(computeSummary([l], []).totalImpAsumEmisorFabrica.toString()).toBe('130');
  });

  it("when a regalía line is exonerated, then the exoneration is on BaseImponible and the gift's IVA stays absorbed", () => {
    const l = computeLine({
      cabys: '2132100000100',
      cantidad: new Dec(10),
      precioUnitario: new Dec('100'),
      descuentos: [{ monto: new Dec('100'), codigo: '01' }],
      impuestos: [{ codigo: '01', codigoTarifa: '08', tarifa: new Dec(13), tarifaExonerada: new Dec(13) }],
    });
    expect(l.baseImponible.toString()).toBe('900');
    expect(l.impuestos[0]!.monto.toString()).toBe('130'); // 13% × (900 + the 100 gifted)
    // §9.1 item 6: TarifaExonerada × BaseImponible, not × the IVA's base with the gift.
    expect(l.impuestos[0]!.montoExoneracion?.toString()).toBe('117');
    expect(l.impuestoAsumidoEmisorFabrica.toString()).toBe('13');
    expect(l.impuestoNeto.toString()).toBe('0');
  });

  it('when IVA is charged at factory level (01), then the declared asumido is taken from the IVA', () => {
    const l = line([IVA], {
      ivaCobradoFabrica: '01',
      baseImponible: new Dec('5000'),
      asumidoFabrica: new Dec('650'),
    });
    expect(l.impuestos[0]!.monto.toString()).toBe('650');
    expect(l.impuestoNeto.toString()).toBe('0');
    expect(l.asumidoFabricaUnplaced.toString()).toBe('0');
    const over = line([IVA], {
      ivaCobradoFabrica: '01',
      baseImponible: new Dec('5000'),
      asumidoFabrica: new Dec('700'),
    });
    expect(over.asumidoFabricaUnplaced.toString()).toBe('50');
  });
});
