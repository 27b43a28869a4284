// After requireAuth: a token issued for an API key carries its scopes (`scope`), and each /api route needs
// the one TENANT_API_ROUTE_SCOPES (packages/contracts) names for it; without it, 403 naming the scope. A
// token without `scope` (password login) has every scope, as before API keys existed. For a scoped token a
// path the table does not know is refused too, never left to the router: express matches routes without
// regard to letter case and with an optional trailing slash, while the table's patterns are exact, so
// `/api/Configurar/webhook/` reached the webhook route with a key scoped to reading documents (found
// 2026-12-03). The route-coverage test keeps every real route listed.
import { type ApiScope, scopeForRoute } from '@cr/contracts';
import { AppError } from '@cr/service-kit';
import type { RequestHandler } from 'express';

export function requireScope(mountPath = '/api'): RequestHandler {
  return (req, res, next) => {
    const granted = res.locals.claims.scope;
    if (granted === undefined) return next();
    const path = `${mountPath}${req.path}`;
    const needed: ApiScope | undefined = scopeForRoute(req.method, path);
    if (needed === undefined) {
      return next(
        new AppError(
          'forbidden',
          `no API key scope grants ${req.method} ${path}; API keys reach only the documented routes, spelled exactly`,
          { headers: { 'WWW-Authenticate': 'Bearer error="insufficient_scope"' } },
        ),
      );
    }
    if (granted.split(' ').includes(needed)) return next();
    next(
      new AppError('forbidden', `this token lacks the scope ${needed} (an API key created without it)`, {
        headers: { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${needed}"` },
      }),
    );
  };
}
