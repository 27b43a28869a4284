import {
  formatDateTime,
  formatIdentificacion,
  formatMoney,
  formatNumber,
  formatPrice,
  formatQuantity,
  formatRate,
  sumAmounts,
} from './format';

/** The expected text written with plain spaces, as formatted: every space a no-break one (U+00A0). */
const nb = (s: string) => s.replace(/ /g, '\u00a0');

describe('Costa Rican formatting', () => {
  it.each([
    ['1234567.891', 'CRC', '₡ 1 234 567,89'],
    ['1234567.895', 'CRC', '₡ 1 234 567,90'],
    ['0.00000', 'CRC', '₡ 0,00'],
    ['999.99999', 'USD', '$ 1 000,00'],
    ['12.5', 'EUR', '€ 12,50'],
    ['100', 'MXN', 'MXN 100,00'],
    ['-1500.5', 'CRC', '₡ -1 500,50'],
  ])('%s %s → %s', (value, moneda, expected) => {
    expect(formatMoney(value, moneda)).toBe(nb(expected));
  });

  it('puts no ordinary space inside a number, where a line could break it in two', () => {
    for (const text of [
      formatMoney('9999999999999.99', 'CRC'),
      formatNumber('160493825715.6'),
      formatPrice('1234567.12345'),
      formatQuantity('9999999999999999'),
      formatRate('13'),
    ])
      expect(text).not.toContain(' ');
  });

  it('prints a price or an exchange rate with at least 2 decimals and those it carries, up to the XML’s 5', () => {
    // A unit price of a fraction of a colón is not printed as 0,00.
    expect(formatPrice('0.00450')).toBe('0,0045');
    expect(formatPrice('540.12345')).toBe('540,12345');
    expect(formatPrice('350.50000')).toBe('350,50');
    expect(formatPrice('1234567')).toBe(nb('1 234 567,00'));
  });

  it('sums amounts as decimals', () => {
    expect(sumAmounts(['0.1', '0.2'])).toBe('0.3');
    expect(sumAmounts([])).toBe('0');
  });

  it('rounds half-up with decimals, never through binary floating point', () => {
    expect(formatNumber('0.125')).toBe('0,13');
    expect(formatNumber('1.005')).toBe('1,01');
    expect(formatNumber('-0.001')).toBe('0,00');
  });

  it('quantities, rates, dates and identifications', () => {
    expect(formatQuantity('2.000')).toBe('2');
    expect(formatQuantity('1500.125')).toBe(nb('1 500,125'));
    expect(formatRate('13.00')).toBe(nb('13 %'));
    expect(formatRate('0.50')).toBe(nb('0,5 %'));
    expect(formatDateTime('2026-05-26T12:30:59-06:00')).toBe('26/05/2026 12:30:59');
    expect(formatIdentificacion('02', '3101123456')).toBe('3-101-123456');
    expect(formatIdentificacion('01', '112340567')).toBe('1-1234-0567');
    expect(formatIdentificacion('03', '123456789012')).toBe('123456789012');
  });

  it('prints a value that is not a number as given', () => {
    expect(formatNumber('n/a')).toBe('n/a');
  });
});
