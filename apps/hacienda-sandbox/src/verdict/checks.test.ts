import { CabysCatalog } from '../cabys-catalog';
import { type VerdictCheck, type VerdictContext, cabysCheck, claveDateOf, codesCheck } from './checks';

describe('claveDateOf', () => {
  it('when FechaEmision has no offset, then its own calendar date is the clave date (as in the real TE sample)', () => {
    expect(claveDateOf('2026-06-30T12:29:12')).toBe('300626');
  });

  it('when FechaEmision carries an offset, then the Costa Rica date of that instant is used', () => {
    expect(claveDateOf('2026-08-31T08:55:48-06:00')).toBe('310826');
    expect(claveDateOf('2026-09-01T03:00:00Z')).toBe('310826');
    expect(claveDateOf('2026-09-01T07:00:00+01:00')).toBe('010926');
  });

  it('when FechaEmision is not a date-time, then there is no date', () => {
    expect(claveDateOf('30/06/2026')).toBeUndefined();
  });
});

describe('a surtido line in the code and CABYS checks (ADR 0024)', () => {
  const component = (cabys: string, codigoTarifaIVA: string, tarifa: string) => ({
    cabys,
    descuentos: [],
    impuestos: [{ codigo: '01', codigoTarifaIVA, tarifa, monto: '1' }],
  });
  // The line's own Impuesto has no rate (its components carry them, the XSD annotation).
  const surtidoLine = (components: ReturnType<typeof component>[]) => ({
    numeroLinea: '1',
    cabys: '2399999002200',
    descuentos: [],
    impuestos: [{ codigo: '01', monto: '3' }],
    surtido: components,
  });
  const run = (check: VerdictCheck, lines: unknown[], codes: string[] = []) =>
    check.run({
      doc: { lines, mediosPago: [], emisor: {} } as unknown as VerdictContext['doc'],
      cabys: new CabysCatalog(
        codes.map((codigo) => ({ codigo, descripcion: codigo, impuesto: 13 })),
        true,
      ),
    } as VerdictContext);

  it('when the components carry valid rate codes, then the line’s rate-less Impuesto is not a finding', () => {
    const ok = [component('2149400000400', '02', '1'), component('2225102010100', '08', '13')];
    expect(run(codesCheck, [surtidoLine(ok)])).toEqual([]);
  });

  it('when a component’s rate does not match its code, then it is a finding', () => {
    const bad = [component('2149400000400', '02', '13')];
    expect(JSON.stringify(run(codesCheck, [surtidoLine(bad)]))).toContain(
      'no corresponde al CodigoTarifaIVA 02',
    );
  });

  it('when a component’s CABYS is not in the catalogue, then it is named', () => {
    const findings = run(
      cabysCheck,
      [surtidoLine([component('9999999999999', '08', '13')])],
      ['2399999002200'],
    );
    expect(JSON.stringify(findings)).toContain('9999999999999');
    expect(JSON.stringify(findings)).not.toContain('2399999002200 no existe');
  });
});
