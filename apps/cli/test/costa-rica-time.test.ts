import { costaRicaTime } from '../src/costa-rica-time';

describe('costaRicaTime', () => {
  it('when given an instant, then it is written as the wall-clock time in Costa Rica with its offset', () => {
    expect(costaRicaTime('2026-12-07T04:00:00.000Z')).toBe('2026-12-06T22:00:00-06:00');
    expect(costaRicaTime(Date.UTC(2026, 6, 1, 18, 30, 5))).toBe('2026-07-01T12:30:05-06:00');
    expect(costaRicaTime('2026-12-07T10:15:00-06:00')).toBe('2026-12-07T10:15:00-06:00');
  });

  it('when the value is not an instant, then it is shown as it came', () => {
    expect(costaRicaTime('?')).toBe('?');
  });
});
