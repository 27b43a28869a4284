// Unauthenticated reads: the JWKS (served from a cached buffer: the hot path of every verifier), and the
// revocation list the tenant-api polls.
import type { Express } from 'express';
import { AppError } from '@cr/service-kit';
import type { AuthServices } from '../services';

export function mountJwks(app: Express, s: AuthServices): void {
  const cacheControl = `public, max-age=${s.jwksMaxAgeSeconds}`;
  app.get('/.well-known/jwks.json', async (_req, res) => {
    // A key retired through another replica leaves this JWKS within KEY_VIEW_MAX_AGE_MS. When the database
    // does not answer, the last view is served: verifiers must not lose every key with it.
    await s.keys
      .ensureFresh()
      .catch((err: unknown) =>
        s.logger.warn('signing keys could not be re-read; serving the last JWKS', { err }),
      );
    res.setHeader('Content-Type', 'application/jwk-set+json');
    res.setHeader('Cache-Control', cacheControl);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.end(s.keys.jwksBody());
  });
}

export function mountPublic(app: Express, s: AuthServices): void {
  app.get('/revocations', async (req, res) => {
    const raw = req.query.since;
    let since = 0;
    if (raw !== undefined) {
      if (typeof raw !== 'string' || !/^\d{1,12}$/.test(raw))
        throw new AppError('bad_request', 'since: must be a Unix time in seconds (a non-negative integer)');
      since = Number(raw);
    }
    res.setHeader('Cache-Control', 'no-store');
    res.json(await s.revocations.list(since));
  });
}
