// POST /logout with `Authorization: Bearer <token>`: revokes that token until it would have expired.
import type { Express } from 'express';
import type { SuccessMessage } from '@cr/contracts';
import { AppError } from '@cr/service-kit';
import type { AuthServices } from '../services';

export function bearerOf(header: string | undefined): string | undefined {
  const m = header ? /^Bearer ([^\s]+)$/i.exec(header) : null;
  return m?.[1];
}

export function mountLogout(app: Express, s: AuthServices): void {
  app.post('/logout', async (req, res) => {
    const token = bearerOf(req.get('authorization'));
    if (!token)
      throw new AppError('unauthorized', 'Authorization: a Bearer token is required', {
        headers: { 'WWW-Authenticate': 'Bearer' },
      });
    const claims = s.tokens.verify(token);
    // A token already dead (its jti, or every token of its client or key before a notBefore) stays dead: not
    // counted, so sending it again and again spends nobody's logouts.
    if (!(await s.revocations.covers(claims))) {
      await s.logouts.admit(claims.base, claims.akid);
      await s.revocations.revoke(claims.jti, claims.exp);
    }
    res.locals.log.info('logout', { base: claims.base, jti: claims.jti });
    const body: SuccessMessage = { status: 'success', message: 'token revoked' };
    res.json(body);
  });
}
