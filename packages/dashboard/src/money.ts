// Amounts as the API writes them (decimal strings, 5 decimals: `1395061.71600`) shown as a person reads a
// bill: 2 decimals rounded half-up, the currency (₡ for colones, the ISO code for any other) and the
// separators of the page's language. String arithmetic only: a Number prints a float's digits and loses the
// last ones of a 13-digit total.
import { LOCALES, type Lang } from './i18n';

const DECIMAL = /^(-?)(\d+)(?:\.(\d*))?$/;

/** `digits` plus one, as a string of the same length or one longer (`"0999"` → `"1000"`, `"99"` → `"100"`). */
function increment(digits: string): string {
  const out = digits.split('');
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i] !== '9') {
      out[i] = String(Number(out[i]) + 1);
      return out.join('');
    }
    out[i] = '0';
  }
  return `1${out.join('')}`;
}

/** `"1395061.71600"` → `{ integer: "1395061", fraction: "72" }`: 2 decimals, half away from zero. */
export function roundToCents(
  value: string,
): { negative: boolean; integer: string; fraction: string } | undefined {
  const m = DECIMAL.exec(value.trim());
  if (!m) return undefined;
  const decimals = (m[3] ?? '').padEnd(3, '0');
  let cents = `${m[2]}${decimals.slice(0, 2)}`;
  if (decimals[2]! >= '5') cents = increment(cents);
  const integer = cents.slice(0, -2).replace(/^0+(?=\d)/, '') || '0';
  const fraction = cents.slice(-2);
  return { negative: m[1] === '-' && /[1-9]/.test(integer + fraction), integer, fraction };
}

/** The group and decimal separators `lang` writes numbers with (es: no-break space and comma). */
function separators(lang: Lang): { group: string; decimal: string } {
  const parts = new Intl.NumberFormat(LOCALES[lang]).formatToParts(1234567.5);
  return {
    group: parts.find((p) => p.type === 'group')?.value ?? ',',
    decimal: parts.find((p) => p.type === 'decimal')?.value ?? '.',
  };
}

/** `formatMoney("1395061.716", "CRC", "es")` → `₡ 1 395 061,72`; a value that is not a decimal is shown as given. */
export function formatMoney(value: string, moneda: string, lang: Lang): string {
  const rounded = roundToCents(value);
  const currency = moneda === 'CRC' ? '₡' : moneda;
  if (!rounded) return `${currency}\u00a0${value}`;
  const { group, decimal } = separators(lang);
  const integer = rounded.integer.replace(/\B(?=(\d{3})+(?!\d))/g, group);
  return `${currency}\u00a0${rounded.negative ? '-' : ''}${integer}${decimal}${rounded.fraction}`;
}
