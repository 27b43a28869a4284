// The dashboard's amounts: the API's decimal strings rounded to cents half-up by string arithmetic (a 13-digit
// total keeps every digit), with the currency and the separators of the page's language.
import { formatMoney, roundToCents } from '../src/money';

describe('formatMoney', () => {
  it.each([
    ['1395061.71600', 'CRC', 'es', '₡\u00a01\u00a0395\u00a0061,72'],
    ['1395061.71600', 'CRC', 'en', '₡\u00a01,395,061.72'],
    ['11300.00000', 'USD', 'es', 'USD\u00a011\u00a0300,00'],
    ['2260.00000', 'EUR', 'en', 'EUR\u00a02,260.00'],
    // 13 integer digits: as a Number, 9999999999999.995 is 9999999999999.994… and would round down.
    ['9999999999999.99500', 'CRC', 'en', '₡\u00a010,000,000,000,000.00'],
    ['1234567890123.45678', 'USD', 'en', 'USD\u00a01,234,567,890,123.46'],
    ['0.00499', 'CRC', 'en', '₡\u00a00.00'],
    ['not a number', 'CRC', 'en', '₡\u00a0not a number'],
  ] as const)('when %s %s is shown in %s, then %j', (value, moneda, lang, shown) => {
    expect(formatMoney(value, moneda, lang)).toBe(shown);
  });
});

describe('roundToCents', () => {
  it.each([
    ['1.005', { negative: false, integer: '1', fraction: '01' }],
    ['1.00499', { negative: false, integer: '1', fraction: '00' }],
    ['0.995', { negative: false, integer: '1', fraction: '00' }],
    ['99.999', { negative: false, integer: '100', fraction: '00' }],
    ['7', { negative: false, integer: '7', fraction: '00' }],
    ['-2.345', { negative: true, integer: '2', fraction: '35' }],
    ['-0.001', { negative: false, integer: '0', fraction: '00' }],
    ['00012.1', { negative: false, integer: '12', fraction: '10' }],
  ] as const)('when %s is rounded, then %j (half away from zero)', (value, rounded) => {
    expect(roundToCents(value)).toEqual(rounded);
  });

  it.each(['', '1e5', '1,5', '.5', 'NaN'])('when %j is not a decimal, then undefined', (value) => {
    expect(roundToCents(value)).toBeUndefined();
  });
});
