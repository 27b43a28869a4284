// Decimal arithmetic for Hacienda amounts: decimal.js only, 5 decimals half-up (REFERENCE §9.3).
import Decimal from 'decimal.js';

/** A private Decimal constructor so other packages' global settings cannot change our rounding. */
export const Dec = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });
export type Dec = Decimal;

export const ZERO = new Dec(0);
export const HUNDRED = new Dec(100);
/** Hacienda accepts amounts computed with two decimals; a client value within this of ours is accepted. */
export const TOLERANCE = new Dec('0.01');

/** Parses a decimal string or finite number; returns undefined for anything else. */
export function parseDecimal(value: unknown): Dec | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? new Dec(String(value)) : undefined;
  if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim())) return new Dec(value.trim());
  return undefined;
}

/** Rounds to 5 decimals, half-up: the precision of DecimalDineroType. */
export function round5(value: Dec): Dec {
  return value.toDecimalPlaces(5, Dec.ROUND_HALF_UP);
}

const ZEROS = '0000000000';

/**
 * `value.toFixed(dp, ROUND_HALF_UP)`, faster: decimal.js's toFixed allocates and rounds a copy even when
 * nothing needs rounding, while toString is cheap. When the plain (non-exponential) string already has at
 * most `dp` decimals, padding it with zeros is exactly what toFixed returns (including `-0` → `0.000…`);
 * anything else (more decimals, exponential notation) goes through toFixed itself.
 */
export function toFixedHalfUp(value: Dec, dp: number): string {
  const s = value.toString();
  if (s.indexOf('e') === -1) {
    const dot = s.indexOf('.');
    const decimals = dot === -1 ? 0 : s.length - dot - 1;
    if (decimals <= dp && dp <= ZEROS.length) {
      if (decimals === dp) return s;
      return (dot === -1 ? `${s}.` : s) + ZEROS.slice(0, dp - decimals);
    }
  }
  return value.toFixed(dp, Dec.ROUND_HALF_UP);
}

/** Money as written in the XML: fixed 5 decimals. */
export function formatAmount(value: Dec): string {
  return toFixedHalfUp(value, 5);
}

const NEGATIVE_TOLERANCE = TOLERANCE.neg();

/** Whether a client's amount matches ours within Hacienda's two-decimal tolerance. */
export function withinTolerance(client: Dec, expected: Dec): boolean {
  const diff = client.minus(expected);
  return diff.lte(TOLERANCE) && diff.gte(NEGATIVE_TOLERANCE);
}

/** Sum of a list of decimals. */
export function sum(values: Iterable<Dec>): Dec {
  let total = ZERO;
  for (const v of values) total = total.plus(v);
  return total;
}
