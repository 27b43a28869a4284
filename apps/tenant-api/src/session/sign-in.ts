// Use case of POST /app/session: the dashboard's sign-in. The base must be this host's tenant (a token of
// another tenant would be refused on every request anyway); the auth-server checks the password and its
// brute-force throttle applies; the token it issues is verified here like any Bearer token before the
// cookie is set, so a misconfigured auth-server cannot plant a session this service would refuse.
import { type SessionData, SessionRequest } from '@cr/contracts';
import { AppError, parseBody } from '@cr/service-kit';
import { TokenError, type TokenVerifier } from '../auth/token-verifier';
import type { AuthServerClient } from './auth-server-client';
import { csrfOf } from './session-cookie';

export interface SessionDeps {
  authServer: AuthServerClient;
  verifier: Pick<TokenVerifier, 'verify'>;
  now: () => Date;
}

function invalidCredentials(): AppError {
  return new AppError('invalid_credentials', 'base or password is incorrect');
}

/** What GET /app/session shows: the base, when the token expires and the CSRF value. */
export function sessionData(token: string, claims: { base: string; exp: number }): SessionData {
  return { base: claims.base, expira: new Date(claims.exp * 1000).toISOString(), csrf: csrfOf(token) };
}

export async function signIn(
  deps: SessionDeps,
  input: { tenantId: string; body: unknown; clientAddress?: string | undefined },
): Promise<{ token: string; maxAgeSeconds: number; data: SessionData }> {
  const { base, password } = parseBody(SessionRequest, input.body);
  if (base !== input.tenantId) throw invalidCredentials();
  const token = await deps.authServer.login(base, password, input.clientAddress);
  if (!token) throw invalidCredentials();
  let claims: { base: string; exp: number };
  try {
    claims = await deps.verifier.verify(token, input.tenantId);
  } catch (err) {
    if (err instanceof TokenError) {
      throw new AppError('upstream_error', `the auth-server's token was refused here: ${err.message}`);
    }
    throw err;
  }
  return {
    token,
    maxAgeSeconds: claims.exp - Math.floor(deps.now().getTime() / 1000),
    data: sessionData(token, claims),
  };
}
