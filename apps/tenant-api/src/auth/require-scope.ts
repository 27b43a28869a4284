// After requireAuth: a token issued for an API key carries its scopes (`scope`), and each /api route needs
// the one TENANT_API_ROUTE_SCOPES (packages/contracts) names for it; without it, 403 naming the scope. A
// token without `scope` (password login) has every scope, as before API keys existed. A path the table
// does not know is left to the router (its 404); the route-coverage test keeps every real route listed.
import { type ApiScope, scopeForRoute } from '@cr/contracts';
import { AppError } from '@cr/service-kit';
import type { RequestHandler } from 'express';

export function requireScope(mountPath = '/api'): RequestHandler {
  return (req, res, next) => {
    const granted = res.locals.claims.scope;
    if (granted === undefined) return next();
    const needed: ApiScope | undefined = scopeForRoute(req.method, `${mountPath}${req.path}`);
    if (needed === undefined || granted.split(' ').includes(needed)) return next();
    next(
      new AppError('forbidden', `this token lacks the scope ${needed} (an API key created without it)`, {
        headers: { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${needed}"` },
      }),
    );
  };
}
