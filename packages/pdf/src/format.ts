// Costa Rican formatting: amounts as `₡ 1 234 567,89` (space between thousands, comma before the
// decimals, the document's currency symbol), quantities with up to 3 decimals, dates as dd/mm/aaaa hh:mm:ss.
// Decimal arithmetic only: amounts are the XML's strings, rounded half-up with decimal.js.
// The spaces inside a number (thousands, currency symbol, percent sign) are no-break spaces: an ordinary one
// lets the text engine wrap `9 999,999` into `9` over `999,999`, which reads as two numbers.
import Decimal from 'decimal.js';

const D = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });

const SYMBOLS: Record<string, string> = { CRC: '₡', USD: '$', EUR: '€' };

export function currencySymbol(codigoMoneda: string): string {
  return SYMBOLS[codigoMoneda] ?? codigoMoneda;
}

/** U+00A0: the same width as a space (DejaVu has the glyph), and pdftotext reads it back as one. */
const NBSP = '\u00a0';

function groupThousands(integer: string): string {
  return integer.replace(/\B(?=(\d{3})+(?!\d))/g, NBSP);
}

function toDecimal(value: string | undefined): Decimal | undefined {
  if (value === undefined) return undefined;
  try {
    return new D(value.trim());
  } catch {
    return undefined;
  }
}

/** The decimals the XML's amounts carry at most (18,5 in the XSD). */
const MAX_DECIMALS = 5;

/** `1234567.891` → `1 234 567,89`; a value that is not a number is printed as given. */
export function formatNumber(value: string | undefined, decimals = 2): string {
  if (value === undefined) return '';
  const d = toDecimal(value);
  return d?.isFinite() ? formatDecimal(d, decimals) : value;
}

function formatDecimal(d: Decimal, decimals: number): string {
  const fixed = d.toFixed(decimals, Decimal.ROUND_HALF_UP);
  const negative = fixed.startsWith('-');
  const [int, frac] = (negative ? fixed.slice(1) : fixed).split('.');
  const body = groupThousands(int!) + (frac ? `,${frac}` : '');
  return negative && !/^[0\u00a0,]+$/.test(body) ? `-${body}` : body;
}

/**
 * A unit price or an exchange rate: `350.50` → `350,50`, `0.00450` → `0,0045`, `540.12345` → `540,12345`. At
 * least 2 decimals and as many more as the value has, up to the XML's 5: these are what the amounts are
 * computed from, and a price of a fraction of a colón printed as 0,00 would not explain its line. The amounts
 * themselves print with 2 (formatNumber), as a receptor reads a bill.
 */
export function formatPrice(value: string | undefined): string {
  if (value === undefined) return '';
  const d = toDecimal(value);
  return d?.isFinite() ? formatDecimal(d, Math.min(MAX_DECIMALS, Math.max(2, d.decimalPlaces()))) : value;
}

/** The sum of amounts as written (decimal), for a line's several discounts. */
export function sumAmounts(values: readonly string[]): string {
  return values.reduce((sum, v) => sum.plus(toDecimal(v) ?? 0), new D(0)).toFixed();
}

/** `₡ 1 234 567,89`, `$ 12,50`. */
export function formatMoney(value: string | undefined, codigoMoneda: string): string {
  if (value === undefined) return '';
  return `${currencySymbol(codigoMoneda)}${NBSP}${formatNumber(value)}`;
}

/** Quantities: up to 3 decimals, trailing zeros dropped (`2`, `1,5`, `0,125`). */
export function formatQuantity(value: string | undefined): string {
  if (value === undefined) return '';
  const d = toDecimal(value);
  if (!d?.isFinite()) return value;
  const [int, frac] = d.toDecimalPlaces(3, Decimal.ROUND_HALF_UP).toFixed().split('.');
  return groupThousands(int!) + (frac ? `,${frac}` : '');
}

/** A percentage as written in the XML (`13.00` → `13 %`, `0.50` → `0,5 %`). */
export function formatRate(value: string | undefined): string {
  if (value === undefined) return '';
  return `${formatQuantity(value)}${NBSP}%`;
}

/** `2026-05-26T12:30:59-06:00` → `26/05/2026 12:30:59` (the written local time; Costa Rica is UTC-06:00). */
export function formatDateTime(value: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(value);
  if (!m) return value;
  const date = `${m[3]}/${m[2]}/${m[1]}`;
  return m[4] ? `${date} ${m[4]}:${m[5]}:${m[6] ?? '00'}` : date;
}

/** `3101123456` with its type → `3-101-123456`; physical `112340567` → `1-1234-0567`; others as given. */
export function formatIdentificacion(tipo: string, numero: string): string {
  if (tipo === '01' && /^\d{9}$/.test(numero)) return `${numero[0]}-${numero.slice(1, 5)}-${numero.slice(5)}`;
  if (tipo === '02' && /^\d{10}$/.test(numero))
    return `${numero[0]}-${numero.slice(1, 4)}-${numero.slice(4)}`;
  return numero;
}
