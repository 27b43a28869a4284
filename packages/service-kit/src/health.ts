// Liveness says the process is up; readiness runs the service's checks (database reachable, keys loaded…).
// The public answers name each check and say only 'ok' or 'failing': a raw reason (a database error, a
// host name, a path) tells an attacker about the inside. The reasons are served at /health/details, to
// whoever holds HEALTH_TOKEN (operators, monitoring); without a token that route does not exist.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Express, Request, Response } from 'express';
import { AppError } from './errors';

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

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

function bearerOf(req: Request): string | undefined {
  const m = /^Bearer ([^\s]+)$/i.exec(req.get('authorization') ?? '');
  return m?.[1];
}

export interface HealthOptions {
  /** Bearer token that opens /health/details; unset → that route answers 404 like an unknown one. */
  detailsToken?: string | undefined;
}

export function mountHealth(
  app: Express,
  readiness: Record<string, HealthCheck>,
  options: HealthOptions = {},
): void {
  app.get('/health/live', (_req, res) => {
    res.json({ status: 'ok' });
  });
  const ready = async (_req: Request, res: Response) => {
    const result = await runChecks(readiness);
    const checks: Record<string, string> = {};
    for (const [name, outcome] of Object.entries(result.checks))
      checks[name] = outcome === 'ok' ? 'ok' : 'failing';
    res.setHeader('Cache-Control', 'no-store');
    res.status(result.ok ? 200 : 503).json({ status: result.ok ? 'ok' : 'unavailable', checks });
  };
  app.get('/health/ready', ready);
  app.get('/health', ready);

  const expected = options.detailsToken ? digest(options.detailsToken) : undefined;
  app.get('/health/details', async (req, res, next) => {
    if (!expected) return next(new AppError('not_found', 'no route for GET /health/details'));
    const presented = bearerOf(req);
    if (!presented || !timingSafeEqual(digest(presented), expected))
      return next(
        new AppError('unauthorized', 'a valid health token is required', {
          headers: { 'WWW-Authenticate': 'Bearer' },
        }),
      );
    const result = await runChecks(readiness);
    res.setHeader('Cache-Control', 'no-store');
    res
      .status(result.ok ? 200 : 503)
      .json({ status: result.ok ? 'ok' : 'unavailable', checks: result.checks });
  });
}
