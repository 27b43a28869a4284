// Costa Rica business days for the receiver's deadline (docs/decisions/0015): Saturdays, Sundays and the
// holidays of Código de Trabajo art. 148 are not business days. Fixed holidays come from the article; Holy
// Thursday and Good Friday move with Easter (Gregorian computus). A year's decree moves (a holiday enjoyed
// on another day) are applied through `adjustments`, which the service reads from its settings. Dates are
// calendar dates in Costa Rica, written `YYYY-MM-DD`; nothing here reads the clock.
import { toCostaRicaParts } from './cr-time';
import { HaciendaXmlError } from './errors';

/** Holidays of mandatory pay, art. 148 (as amended by Ley 9803 of 2020, which added 1 December). */
const FIXED_HOLIDAYS: ReadonlyArray<readonly [month: number, day: number, name: string]> = [
  [1, 1, 'Año Nuevo'],
  [4, 11, 'Día de Juan Santamaría'],
  [5, 1, 'Día del Trabajo'],
  [7, 25, 'Anexión del Partido de Nicoya'],
  [8, 2, 'Día de la Virgen de los Ángeles'],
  [8, 15, 'Día de la Madre'],
  [9, 15, 'Día de la Independencia'],
  [12, 1, 'Abolición del Ejército'],
  [12, 25, 'Navidad'],
];

export interface Holiday {
  date: string;
  name: string;
}

/** Decree changes for particular years: `add` days off, `remove` days that are worked (both YYYY-MM-DD). */
export interface HolidayAdjustments {
  add?: readonly string[];
  remove?: readonly string[];
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `YYYY-MM-DD`; a year outside 0..9999 has no such form and is refused rather than written otherwise. */
function iso(year: number, month: number, day: number): string {
  if (!Number.isInteger(year) || year < 0 || year > 9999) {
    throw new HaciendaXmlError('invalid_date', `year ${year} is outside 0000..9999`);
  }
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
}

/** Easter Sunday of a Gregorian year (anonymous Gregorian algorithm, Meeus/Jones/Butcher). */
export function easterSunday(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return iso(year, month, day);
}

function toUtc(date: string): Date {
  const m = DATE.exec(date);
  const [year, month, day] = m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [Number.NaN, 0, 0];
  // setUTCFullYear, not Date.UTC, which reads the years 0..99 as 1900..1999; a month or day that rolls
  // over (2026-02-31, 2026-13-01) no longer reads back the same.
  const parsed = new Date(0);
  parsed.setUTCFullYear(year, month - 1, day);
  if (parsed.getUTCFullYear() !== year || parsed.getUTCMonth() !== month - 1 || parsed.getUTCDate() !== day) {
    throw new HaciendaXmlError('invalid_date', `${date} is not a calendar date (YYYY-MM-DD)`);
  }
  return parsed;
}

function fromUtc(d: Date): string {
  return iso(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate());
}

function plusDays(date: string, days: number): string {
  const d = toUtc(date);
  d.setUTCDate(d.getUTCDate() + days);
  return fromUtc(d);
}

/** The legal holidays of a year, in date order. */
export function costaRicaHolidays(year: number): Holiday[] {
  const easter = easterSunday(year);
  const list: Holiday[] = [
    ...FIXED_HOLIDAYS.map(([month, day, name]) => ({ date: iso(year, month, day), name })),
    { date: plusDays(easter, -3), name: 'Jueves Santo' },
    { date: plusDays(easter, -2), name: 'Viernes Santo' },
  ];
  return list.sort((x, y) => x.date.localeCompare(y.date));
}

export class BusinessCalendar {
  private readonly byYear = new Map<number, Set<string>>();
  private readonly added: Set<string>;
  private readonly removed: Set<string>;

  constructor(adjustments: HolidayAdjustments = {}) {
    for (const d of [...(adjustments.add ?? []), ...(adjustments.remove ?? [])]) toUtc(d);
    this.added = new Set(adjustments.add ?? []);
    this.removed = new Set(adjustments.remove ?? []);
  }

  isHoliday(date: string): boolean {
    if (this.added.has(date)) return true;
    if (this.removed.has(date)) return false;
    const year = Number(date.slice(0, 4));
    let set = this.byYear.get(year);
    if (!set) {
      set = new Set(costaRicaHolidays(year).map((h) => h.date));
      this.byYear.set(year, set);
    }
    return set.has(date);
  }

  isBusinessDay(date: string): boolean {
    const weekday = toUtc(date).getUTCDay();
    return weekday !== 0 && weekday !== 6 && !this.isHoliday(date);
  }

  /** The n-th business day after `date` (n ≥ 1; `date` itself does not count). */
  addBusinessDays(date: string, n: number): string {
    if (!Number.isInteger(n) || n < 1)
      throw new HaciendaXmlError('invalid_date', 'n must be a positive integer');
    let current = date;
    let counted = 0;
    while (counted < n) {
      current = plusDays(current, 1);
      if (this.isBusinessDay(current)) counted += 1;
    }
    return current;
  }

  /**
   * The last day to send the MensajeReceptor for a document issued at `emitted`: the eighth business day
   * of the month after the month of emission (DGT-R-48-2016 art. 10 as amended by DGT-R-012-2018; see
   * docs/decisions/0015). The emission date is taken in Costa Rica time.
   */
  receiverDeadline(emitted: Date): string {
    const p = toCostaRicaParts(emitted);
    const nextMonth = p.month === 12 ? iso(p.year + 1, 1, 1) : iso(p.year, p.month + 1, 1);
    // The first of the month counts when it is a business day: start from the day before.
    return this.addBusinessDays(plusDays(nextMonth, -1), RECEIVER_DEADLINE_BUSINESS_DAYS);
  }

  /** Business days from `from` (exclusive) to `to` (inclusive); 0 when `to` is not after `from`. */
  businessDaysBetween(from: string, to: string): number {
    let count = 0;
    for (let d = plusDays(from, 1); d <= to; d = plusDays(d, 1)) if (this.isBusinessDay(d)) count += 1;
    return count;
  }
}

export const RECEIVER_DEADLINE_BUSINESS_DAYS = 8;

/** The calendar date in Costa Rica of an instant, `YYYY-MM-DD`. */
export function costaRicaDate(instant: Date): string {
  const p = toCostaRicaParts(instant);
  return iso(p.year, p.month, p.day);
}
