import { costaRicaMornings } from './deadline-job';

describe('the deadline scan’s period', () => {
  it('when the UTC date has turned but Costa Rica’s (UTC−6) has not, then the run is still that day’s, and the next is due at 06:00 Costa Rica', () => {
    const lateEvening = new Date('2026-12-02T05:59:59Z');
    expect(costaRicaMornings.nameAt(lateEvening)).toBe('2026-12-01');
    expect(costaRicaMornings.nextStart(lateEvening).toISOString()).toBe('2026-12-02T12:00:00.000Z');

    const midnight = new Date('2026-12-02T06:00:00Z');
    expect(costaRicaMornings.nameAt(midnight)).toBe('2026-12-02');
    expect(costaRicaMornings.nextStart(midnight).toISOString()).toBe('2026-12-03T12:00:00.000Z');
    expect(costaRicaMornings.nameAt(costaRicaMornings.nextStart(midnight))).toBe('2026-12-03');
  });
});
