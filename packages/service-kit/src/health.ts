// Liveness says the process is up; readiness runs the service's checks (database reachable, keys loaded…).
import type { Express } from 'express';

/** Resolves when healthy; throws (or returns a string reason) when not. */
export type HealthCheck = () => Promise<string | undefined> | string | undefined;

async function runChecks(
  checks: Record<string, HealthCheck>,
): Promise<{ ok: boolean; checks: Record<string, string> }> {
  const results: Record<string, string> = {};
  let ok = true;
  await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      try {
        const reason = await Promise.race([
          Promise.resolve(check()),
          new Promise<string>((resolve) => setTimeout(() => resolve('timed out'), 2000).unref()),
        ]);
        if (typeof reason === 'string') {
          ok = false;
          results[name] = reason;
        } else results[name] = 'ok';
      } catch (err) {
        ok = false;
        results[name] = err instanceof Error ? err.message : 'failed';
      }
    }),
  );
  return { ok, checks: results };
}

export function mountHealth(app: Express, readiness: Record<string, HealthCheck>): void {
  app.get('/health/live', (_req, res) => {
    res.json({ status: 'ok' });
  });
  const ready = async (_req: unknown, res: import('express').Response) => {
    const result = await runChecks(readiness);
    res
      .status(result.ok ? 200 : 503)
      .json({ status: result.ok ? 'ok' : 'unavailable', checks: result.checks });
  };
  app.get('/health/ready', ready);
  app.get('/health', ready);
}
