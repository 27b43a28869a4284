// The soak run's verdict on memory: a service passes when it stays under the limit at every sample and does
// not grow once warmed up. RSS moves with garbage collection, so "growth" compares medians (the first
// samples after the warm-up against the last ones) and tolerates a small drift.
export interface RssSample {
  /** Minutes since the load started. */
  minute: number;
  bytes: number;
}

export interface GrowthRules {
  /** Every sample must stay below this. */
  limitBytes: number;
  /** Samples before this minute are the warm-up (JIT, caches, pools filling). */
  warmupMinutes: number;
  /** Growth tolerated between the start and the end of the judged window: the larger of the two. */
  toleranceBytes: number;
  toleranceRatio: number;
}

export const DEFAULT_GROWTH_RULES: GrowthRules = {
  limitBytes: 200 * 1024 * 1024,
  warmupMinutes: 2,
  toleranceBytes: 10 * 1024 * 1024,
  toleranceRatio: 0.05,
};

export interface GrowthVerdict {
  ok: boolean;
  /** Median of the first samples after the warm-up, of the last ones, and their difference. */
  startBytes: number;
  endBytes: number;
  growthBytes: number;
  peakBytes: number;
  reasons: string[];
}

const MB = 1024 * 1024;
const mb = (b: number) => `${(b / MB).toFixed(1)} MB`;

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

export function judgeGrowth(
  samples: readonly RssSample[],
  rules: GrowthRules = DEFAULT_GROWTH_RULES,
): GrowthVerdict {
  const reasons: string[] = [];
  const peakBytes = samples.reduce((m, s) => Math.max(m, s.bytes), 0);
  const over = samples.filter((s) => s.bytes >= rules.limitBytes);
  if (over.length > 0) {
    reasons.push(
      `above the limit of ${mb(rules.limitBytes)} at minute ${over.map((s) => s.minute).join(', ')} (peak ${mb(peakBytes)})`,
    );
  }
  const judged = samples.filter((s) => s.minute >= rules.warmupMinutes).sort((a, b) => a.minute - b.minute);
  if (judged.length < 3) {
    reasons.push(
      `too few samples after the ${rules.warmupMinutes}-minute warm-up to judge growth (${judged.length}; at least 3)`,
    );
    return { ok: false, startBytes: 0, endBytes: 0, growthBytes: 0, peakBytes, reasons };
  }
  // Three samples at each end when there are six or more, two with four or five, one otherwise. The median of
  // three ignores one sample taken mid-allocation (the auth-server's RSS jumps by the 19 MiB of an argon2 hash
  // in flight and falls back), where the median of two is their mean and one such sample can fail the run.
  const k = judged.length >= 6 ? 3 : judged.length >= 4 ? 2 : 1;
  const startBytes = median(judged.slice(0, k).map((s) => s.bytes));
  const endBytes = median(judged.slice(-k).map((s) => s.bytes));
  const growthBytes = endBytes - startBytes;
  const tolerance = Math.max(rules.toleranceBytes, startBytes * rules.toleranceRatio);
  if (growthBytes > tolerance) {
    reasons.push(
      `grew ${mb(growthBytes)} between minute ${judged[0]?.minute} and minute ${judged.at(-1)?.minute} (${mb(startBytes)} → ${mb(endBytes)}; tolerated ${mb(tolerance)})`,
    );
  }
  return { ok: reasons.length === 0, startBytes, endBytes, growthBytes, peakBytes, reasons };
}
