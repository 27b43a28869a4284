import { backoffSchedules, computeBackoff } from './backoff';

describe('computeBackoff', () => {
  const mid = () => 0.5; // no jitter

  it('when retries go past the schedule, then the last entry repeats', () => {
    const schedule = [2_000, 5_000, 15_000];
    expect([1, 2, 3, 4, 9].map((n) => computeBackoff(n, { schedule, random: mid }))).toEqual([
      2_000, 5_000, 15_000, 15_000, 15_000,
    ]);
  });

  it('when jitter is at its extremes, then the delay moves by at most the jitter fraction', () => {
    const schedule = [10_000];
    expect(computeBackoff(1, { schedule, jitter: 0.2, random: () => 0 })).toBe(8_000);
    expect(computeBackoff(1, { schedule, jitter: 0.2, random: () => 0.999999 })).toBe(12_000);
  });

  it('when a cap is given, then no delay exceeds it', () => {
    expect(
      computeBackoff(7, { schedule: backoffSchedules.haciendaStatus, capMs: 3_600_000, random: () => 0.99 }),
    ).toBe(3_600_000);
  });

  it('when the schedule is empty, then it refuses', () => {
    expect(() => computeBackoff(1, { schedule: [] })).toThrow(RangeError);
  });

  it('when the webhook schedule is used, then the first retry is immediate', () => {
    expect(computeBackoff(1, { schedule: backoffSchedules.webhook })).toBe(0);
  });
});
