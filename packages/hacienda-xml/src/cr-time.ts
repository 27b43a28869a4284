// Costa Rica time: UTC-06:00 all year (no DST). Hacienda wants local time with the offset written out.
const OFFSET_MS = 6 * 60 * 60 * 1000;

export const CR_OFFSET = '-06:00';

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** The wall-clock fields of an instant in Costa Rica. */
export function toCostaRicaParts(instant: Date): {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
} {
  const local = new Date(instant.getTime() - OFFSET_MS);
  return {
    year: local.getUTCFullYear(),
    month: local.getUTCMonth() + 1,
    day: local.getUTCDate(),
    hour: local.getUTCHours(),
    minute: local.getUTCMinutes(),
    second: local.getUTCSeconds(),
  };
}

/** `2026-06-30T12:29:12-06:00`: seconds precision, Costa Rica offset, the year in four digits. */
export function formatCostaRicaDateTime(instant: Date): string {
  const p = toCostaRicaParts(instant);
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}${CR_OFFSET}`;
}

/** `ddmmyy` of the instant in Costa Rica, as the clave embeds it. */
export function formatClaveDate(instant: Date): string {
  const p = toCostaRicaParts(instant);
  return `${pad(p.day)}${pad(p.month)}${pad(p.year % 100)}`;
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})?$/;

/** Parses ISO 8601; a value without offset is Costa Rica wall-clock time. Undefined when malformed. */
export function parseIsoDateTime(value: string): Date | undefined {
  const m = ISO.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > 31 || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) {
    return undefined;
  }
  const text = `${y}-${mo}-${d}T${h}:${mi}:${s}${frac ?? ''}${zone ?? CR_OFFSET}`;
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) return undefined;
  // Reject dates such as 2026-02-31 that Date silently rolls over.
  const check = new Date(Date.UTC(Number(y), month - 1, day));
  if (check.getUTCDate() !== day) return undefined;
  return date;
}

/** A date-time as parseIsoDateTime reads it, or a bare `YYYY-MM-DD`: that day's midnight in Costa Rica. */
export function parseIsoDateOrDateTime(value: string): Date | undefined {
  return parseIsoDateTime(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00` : value);
}
