// The soak run's verdict on memory (pure): limit, warm-up, growth against a tolerance, too-short runs.
import { DEFAULT_GROWTH_RULES, type RssSample, judgeGrowth } from '../src';

const MB = 1024 * 1024;
const series = (mbs: number[]): RssSample[] =>
  mbs.map((m, minute) => ({ minute: minute + 1, bytes: m * MB }));

describe('judgeGrowth', () => {
  it('passes a service that warms up and then stays flat with GC noise', () => {
    const v = judgeGrowth(series([90, 150, 152, 149, 155, 151, 150, 153, 148, 152]));
    expect(v.reasons).toEqual([]);
    expect(v.ok).toBe(true);
    expect(v.peakBytes).toBe(155 * MB);
  });

  it('ignores growth during the warm-up minutes', () => {
    expect(judgeGrowth(series([40, 120, 121, 121, 122, 121])).ok).toBe(true);
  });

  it('fails a steady leak after the warm-up, saying how much and between which minutes', () => {
    const v = judgeGrowth(series([100, 110, 115, 120, 125, 130, 135, 140, 145, 150]));
    expect(v.ok).toBe(false);
    expect(v.growthBytes).toBe((145 - 115) * MB);
    expect(v.reasons).toEqual([expect.stringMatching(/^grew 30\.0 MB between minute 2 and minute 10/)]);
  });

  it('tolerates a drift within the larger of 10 MB and 5%', () => {
    expect(judgeGrowth(series([100, 160, 160, 162, 165, 167, 168])).ok).toBe(true); // +7 MB
    expect(judgeGrowth(series([100, 160, 160, 165, 170, 175, 178])).ok).toBe(false); // +15 MB
  });

  it('does not take one sample caught mid-allocation at the end for growth (2026-12-03 soak, auth-server)', () => {
    // The medians of three: 83 MB → 88 MB. With two samples at each end it was 83 → 97.5 MB, +14.5 MB: FAIL.
    const v = judgeGrowth(series([90, 83, 83, 84, 85, 87, 88, 88, 88, 107]));
    expect(v.reasons).toEqual([]);
    expect(v.growthBytes).toBe(5 * MB);
    expect(v.peakBytes).toBe(107 * MB);
    // Two such samples at the end are no longer one moment: judged as the end of the run.
    expect(judgeGrowth(series([90, 83, 83, 84, 85, 87, 88, 88, 107, 107])).ok).toBe(false);
  });

  it('fails a service above the limit at any sample, even when flat', () => {
    const v = judgeGrowth(series([150, 210, 209, 210, 211]));
    expect(v.ok).toBe(false);
    expect(v.reasons[0]).toMatch(/above the limit of 200\.0 MB at minute 2, 3, 4, 5 \(peak 211\.0 MB\)/);
  });

  it('refuses to judge a run too short for growth', () => {
    const v = judgeGrowth(series([100, 110, 111]));
    expect(v.ok).toBe(false);
    expect(v.reasons).toEqual([expect.stringContaining('too few samples after the 2-minute warm-up')]);
  });

  it('takes other rules (limit, warm-up)', () => {
    const rules = { ...DEFAULT_GROWTH_RULES, limitBytes: 100 * MB, warmupMinutes: 0 };
    expect(judgeGrowth(series([50, 60, 75, 80]), rules).ok).toBe(false); // judged from minute 1: +22.5 MB
    expect(judgeGrowth(series([60, 60, 61, 60]), rules).ok).toBe(true);
    expect(judgeGrowth(series([60, 90, 101, 90]), rules).reasons[0]).toMatch(
      /above the limit of 100.0 MB at minute 3/,
    );
  });
});
