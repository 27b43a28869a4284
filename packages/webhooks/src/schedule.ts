// The retry schedule of webhook deliveries: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, each
// with up to ±10% jitter so a receiver's outage does not bring every retry back at the same instant.
export const WEBHOOK_RETRY_DELAYS_SECONDS = [0, 5, 300, 1800, 7200, 18000, 36000, 36000] as const;

/** Delay before attempt number `attempt` (1-based, attempt 1 is the first delivery); undefined = give up. */
export function webhookRetryDelayMs(attempt: number, random: () => number = Math.random): number | undefined {
  const base = WEBHOOK_RETRY_DELAYS_SECONDS[attempt - 1];
  if (base === undefined) return undefined;
  const jitter = base * 0.1 * (random() * 2 - 1);
  return Math.round((base + jitter) * 1000);
}
