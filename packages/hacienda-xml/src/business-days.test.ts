import { BusinessCalendar, costaRicaDate, costaRicaHolidays, easterSunday } from './business-days';
import { formatCostaRicaDateTime } from './cr-time';
import { HaciendaXmlError } from './errors';

describe('Costa Rica business-day calendar', () => {
  const calendar = new BusinessCalendar();

  it('when computing Easter, then the known dates come out (movable holidays follow them)', () => {
    expect(['2024', '2025', '2026', '2027', '2038'].map((y) => easterSunday(Number(y)))).toEqual([
      '2024-03-31',
      '2025-04-20',
      '2026-04-05',
      '2027-03-28',
      '2038-04-25',
    ]);
    const h2026 = costaRicaHolidays(2026);
    expect(h2026.find((h) => h.name === 'Jueves Santo')?.date).toBe('2026-04-02');
    expect(h2026.find((h) => h.name === 'Viernes Santo')?.date).toBe('2026-04-03');
    expect(costaRicaHolidays(2027).find((h) => h.name === 'Viernes Santo')?.date).toBe('2027-03-26');
    expect(h2026.map((h) => h.date)).toEqual([
      '2026-01-01',
      '2026-04-02',
      '2026-04-03',
      '2026-04-11',
      '2026-05-01',
      '2026-07-25',
      '2026-08-02',
      '2026-08-15',
      '2026-09-15',
      '2026-12-01',
      '2026-12-25',
    ]);
  });

  it('when a day is a weekend, a fixed holiday or a movable holiday, then it is not a business day', () => {
    expect(calendar.isBusinessDay('2026-11-21')).toBe(false); // Saturday
    expect(calendar.isBusinessDay('2026-11-22')).toBe(false); // Sunday
    expect(calendar.isBusinessDay('2026-11-23')).toBe(true); // Monday
    expect(calendar.isBusinessDay('2026-09-15')).toBe(false); // Independencia, Tuesday
    expect(calendar.isBusinessDay('2025-04-17')).toBe(false); // Jueves Santo 2025
    expect(calendar.isBusinessDay('2026-04-17')).toBe(true); // the same date in 2026 is worked
    expect(calendar.addBusinessDays('2025-04-16', 1)).toBe('2025-04-21');
  });

  it('when a document is issued, then vence is the 8th business day of the next month', () => {
    const at = (iso: string) => calendar.receiverDeadline(new Date(iso));
    // December 2026: 1 Dec (Tuesday) is a holiday.
    expect(at('2026-11-23T10:00:00-06:00')).toBe('2026-12-11');
    // April 2026: Holy Thursday and Good Friday on 2 and 3 April.
    expect(at('2026-03-15T08:00:00-06:00')).toBe('2026-04-14');
    // New Year on a Friday; the emission is 31 Dec in Costa Rica though already January in UTC.
    expect(at('2027-01-01T03:00:00Z')).toBe('2027-01-13');
    expect(at('2027-02-10T09:00:00-06:00')).toBe('2027-03-10');
  });

  it('when a year has a decree move, then the adjustments change the count', () => {
    const moved = new BusinessCalendar({ add: ['2026-12-07'], remove: ['2026-12-01'] });
    expect(moved.isBusinessDay('2026-12-01')).toBe(true);
    expect(moved.isBusinessDay('2026-12-07')).toBe(false);
    expect(moved.receiverDeadline(new Date('2026-11-23T10:00:00-06:00'))).toBe('2026-12-11');
    expect(
      new BusinessCalendar({ add: ['2026-12-07'] }).receiverDeadline(new Date('2026-11-23T10:00:00-06:00')),
    ).toBe('2026-12-14');
    expect(() => new BusinessCalendar({ add: ['2026-02-30'] })).toThrow(HaciendaXmlError);
  });

  it('when the emission year has fewer than four digits, then dates are written YYYY-MM-DD and vence is computed', () => {
    expect(calendar.receiverDeadline(new Date('0050-06-15T10:00:00-06:00'))).toBe('0050-07-12');
    expect(costaRicaDate(new Date('0999-12-31T12:00:00Z'))).toBe('0999-12-31');
    expect(easterSunday(500)).toMatch(/^0500-0[34]-\d{2}$/);
    expect(formatCostaRicaDateTime(new Date('0050-06-15T16:00:00Z'))).toBe('0050-06-15T10:00:00-06:00');
  });

  it('when vence would fall after 9999 or a date rolls over, then invalid_date (never a five-digit year)', () => {
    expect(() => calendar.receiverDeadline(new Date('9999-12-15T10:00:00-06:00'))).toThrow(
      expect.objectContaining({ code: 'invalid_date', message: expect.stringContaining('10000') }),
    );
    expect(() => new BusinessCalendar({ add: ['2026-13-01'] })).toThrow(HaciendaXmlError);
  });

  it('when counting business days between two dates, then weekends and holidays are skipped', () => {
    expect(calendar.businessDaysBetween('2026-12-09', '2026-12-11')).toBe(2);
    expect(calendar.businessDaysBetween('2026-11-27', '2026-12-02')).toBe(2); // weekend + 1 Dec
    expect(calendar.businessDaysBetween('2026-12-11', '2026-12-09')).toBe(0);
    expect(costaRicaDate(new Date('2026-11-24T05:59:59Z'))).toBe('2026-11-23');
  });
});
