// The query string of the tenant's listings (GET /api/documentos, /api/recepcion/documentos): each filter
// given at most once, dates as YYYY-MM-DD, a page size 1..200 and an opaque cursor this API wrote. Every
// refusal is a 400 naming the parameter.
import { NUL_REASON } from '@cr/contracts';
import { parseIsoDateTime } from '@cr/hacienda-xml';
import { AppError } from '@cr/service-kit';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
// A filter's years: a clave writes its year in two digits, read as 20yy, so no document predates 2000; the
// last is 9998 so that the day after `hasta` still has a four-digit year.
const FIRST_YEAR = 2000;
const LAST_YEAR = 9998;
export const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 200;

/** The parameters a listing accepts; any other one is refused by name (a typo never silently lists all). */
export function refuseUnknownParams(query: Record<string, unknown>, known: readonly string[]): void {
  const unknown = Object.keys(query).find((k) => !known.includes(k));
  if (unknown !== undefined) throw new AppError('bad_request', `${unknown}: unknown query parameter`);
}

/**
 * The parameter's one value. Every query value is read here, so U+0000 is refused here: PostgreSQL `text`
 * cannot hold it and the query would fail as a 500 (the bodies' strings are refused by the contracts).
 */
export function oneParam(query: Record<string, unknown>, name: string): string | undefined {
  const v = query[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new AppError('bad_request', `${name}: must be given once`);
  if (v.includes('\u0000')) throw new AppError('bad_request', `${name}: ${NUL_REASON}`);
  return v;
}

export function enumParam<T extends string>(
  query: Record<string, unknown>,
  name: string,
  allowed: readonly T[],
): T | undefined {
  const v = oneParam(query, name);
  if (v !== undefined && !(allowed as readonly string[]).includes(v)) {
    throw new AppError('bad_request', `${name}: must be one of ${allowed.join(', ')}`);
  }
  return v as T | undefined;
}

/**
 * `YYYY-MM-DD` naming a day that exists (Date.parse rolls 2026-02-31 into March, PostgreSQL refuses it) in
 * a year PostgreSQL has (it has no year 0).
 */
export function isCalendarDate(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    DATE.test(value) &&
    Number(value.slice(0, 4)) >= 1 &&
    parseIsoDateTime(`${value}T00:00:00Z`) !== undefined
  );
}

/** An ISO 8601 date-time naming a real moment (no 2026-13-45T99:99:99Z) of a year PostgreSQL has. */
export function isRealInstant(value: string): boolean {
  return Number(value.slice(0, 4)) >= 1 && parseIsoDateTime(value) !== undefined;
}

export function dateParam(query: Record<string, unknown>, name: string): string | undefined {
  const v = oneParam(query, name);
  if (v === undefined) return undefined;
  if (!isCalendarDate(v)) throw new AppError('bad_request', `${name}: must be a date YYYY-MM-DD`);
  const year = Number(v.slice(0, 4));
  if (year < FIRST_YEAR || year > LAST_YEAR) {
    throw new AppError('bad_request', `${name}: must be from ${FIRST_YEAR}-01-01 to ${LAST_YEAR}-12-31`);
  }
  return v;
}

export function pageSizeParam(query: Record<string, unknown>): number {
  const text = oneParam(query, 'limite');
  const limite = text === undefined ? DEFAULT_PAGE_SIZE : Number(text);
  if (!Number.isInteger(limite) || limite < 1 || limite > MAX_PAGE_SIZE) {
    throw new AppError('bad_request', `limite: must be an integer 1..${MAX_PAGE_SIZE}`);
  }
  return limite;
}

export function encodeCursor(position: object): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

/** The cursor's position when `isPosition` recognises it; else 400 (never an error from inside SQL). */
export function cursorParam<T>(
  query: Record<string, unknown>,
  isPosition: (value: unknown) => value is T,
): T | undefined {
  const v = oneParam(query, 'cursor');
  if (v === undefined) return undefined;
  try {
    const position: unknown = JSON.parse(Buffer.from(v, 'base64url').toString('utf8'));
    if (isPosition(position)) return position;
  } catch {
    // a cursor that is not even JSON is refused like a malformed one
  }
  throw new AppError('bad_request', 'cursor: is not a cursor this API returned');
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A WHERE clause built condition by condition, each with its own numbered parameters. */
export class Conditions {
  readonly params: unknown[];
  private readonly parts: string[] = ['tenant_id = $1'];

  constructor(tenantId: string) {
    this.params = [tenantId];
  }

  /** `sql` receives the numbers of `values`' placeholders, in order. */
  add(sql: (...n: number[]) => string, ...values: unknown[]): void {
    const first = this.params.length + 1;
    this.params.push(...values);
    this.parts.push(sql(...values.map((_, i) => first + i)));
  }

  /** The clause, and the placeholder number of the LIMIT appended last. */
  finish(limit: number): { where: string; limitParam: number } {
    this.params.push(limit);
    return { where: this.parts.join(' AND '), limitParam: this.params.length };
  }
}
