// The dashboard's session routes under /app (docs/decisions/0021): sign in (sets the httpOnly cookie),
// read the session and its CSRF value, sign out (revokes the token at the auth-server, clears the cookie).
import type { SessionResponse, SuccessMessage } from '@cr/contracts';
import { AppError } from '@cr/service-kit';
import type { RequestHandler, Router } from 'express';
import { requireSession } from '../../auth/require-auth';
import { clearedSessionCookie, sessionCookie } from '../../session/session-cookie';
import { type SessionDeps, sessionData, signIn } from '../../session/sign-in';

function entrar(deps: SessionDeps): RequestHandler {
  return async (req, res) => {
    const session = await signIn(deps, {
      tenantId: res.locals.tenantId,
      body: req.body,
      clientAddress: req.ip,
    });
    res.setHeader('Set-Cookie', sessionCookie(session.token, session.maxAgeSeconds));
    res.setHeader('Cache-Control', 'no-store');
    const body: SessionResponse = { status: 'success', data: session.data };
    res.status(200).json(body);
  };
}

function consultar(): RequestHandler {
  return (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    const body: SessionResponse = {
      status: 'success',
      data: sessionData(res.locals.sessionToken!, res.locals.claims),
    };
    res.status(200).json(body);
  };
}

function salir(deps: SessionDeps): RequestHandler {
  return async (_req, res) => {
    // The cookie goes whatever the auth-server says: the person asked to leave this browser.
    res.setHeader('Set-Cookie', clearedSessionCookie());
    res.setHeader('Cache-Control', 'no-store');
    try {
      await deps.authServer.logout(res.locals.sessionToken!);
    } catch (err) {
      if (err instanceof AppError) {
        throw new AppError(err.code, `${err.message}; the cookie was cleared`, {
          ...(err.headers ? { headers: err.headers } : {}),
        });
      }
      throw err;
    }
    const body: SuccessMessage = { status: 'success', message: 'signed out' };
    res.status(200).json(body);
  };
}

export function mountSessionRoutes(app: Router, deps: SessionDeps): void {
  app.post('/app/session', entrar(deps));
  app.get('/app/session', requireSession(deps.verifier), consultar());
  app.delete('/app/session', requireSession(deps.verifier), salir(deps));
}
