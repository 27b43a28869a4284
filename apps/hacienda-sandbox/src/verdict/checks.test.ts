import { claveDateOf } from './checks';

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
