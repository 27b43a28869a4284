// The dashboard's session routes under /app (docs/decisions/0021): the browser signs in with the tenant's
// base and password, the tenant-api logs in at the auth-server on its behalf and keeps the token in an
// httpOnly cookie; the page reads the CSRF value it must echo in X-CSRF-Token.
import type { ErrorDoc, RouteDoc } from './build-document';
import { SuccessMessage } from '../common.schema';
import { SESSION_COOKIE, SessionRequest, SessionResponse } from '../session.schema';
import { NO_STORE, REVOCATIONS_NOT_LOADED, badBody, json } from './common-routes';

export const SESSION_COOKIE_SCHEME = 'sessionCookie';

export const sessionCookieSecurityScheme = {
  [SESSION_COOKIE_SCHEME]: {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description:
      'The dashboard session (POST /app/session): accepted on every /api route when no Authorization header is sent; a state-changing request must also carry X-CSRF-Token',
  },
};

const UNKNOWN_HOST: ErrorDoc = {
  code: 'not_found',
  when: 'the host is not `<tenant>.<TENANT_BASE_DOMAIN>`',
  message: 'unknown host',
};
const NO_SESSION: ErrorDoc = {
  code: 'unauthorized',
  when: 'no session cookie, or its token is invalid, expired or revoked',
  message: 'no dashboard session',
};
const SESSION_EXAMPLE = {
  status: 'success',
  data: {
    base: 'acme',
    expira: '2025-01-01T22:15:00.000Z',
    csrf: 'q3kVb0Qm6c1n9xYkR2t8oJ0eXo5q2m3dX1V9bQ4w6Zs',
  },
};
const SET_COOKIE = {
  'Set-Cookie': {
    description: `${SESSION_COOKIE}=<token>; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=<seconds left>`,
    schema: { type: 'string' },
  },
  ...NO_STORE,
};

export function sessionRoutes(): RouteDoc[] {
  return [
    {
      method: 'post',
      path: '/app/session',
      operationId: 'signIn',
      tag: 'panel',
      summary: "Sign in to the dashboard with the tenant's base and password",
      description:
        "The tenant-api logs in at the auth-server (`POST /login`) and sets the token in an httpOnly, Secure, SameSite=Strict cookie; the token itself is never in the body. The base must be this host's tenant.",
      security: [],
      requestBody: json(SessionRequest, { base: 'acme', password: 'correct horse battery staple' }),
      responses: [
        {
          status: 200,
          description: 'signed in; the cookie is set',
          body: json(SessionResponse, SESSION_EXAMPLE),
          headers: SET_COOKIE,
        },
      ],
      errors: [
        badBody('password: is required'),
        {
          code: 'invalid_credentials',
          when: "the base or password is wrong, or the base is not this host's tenant",
          message: 'base or password is incorrect',
        },
        {
          code: 'too_many_requests',
          when: 'the auth-server is throttling sign-ins for this base',
          message: 'too many failed logins; retry later',
        },
        {
          code: 'upstream_error',
          when: 'the auth-server could not be reached',
          message: 'the auth-server did not answer the sign-in',
        },
        REVOCATIONS_NOT_LOADED,
        UNKNOWN_HOST,
      ],
    },
    {
      method: 'get',
      path: '/app/session',
      operationId: 'getSession',
      tag: 'panel',
      summary: 'The current dashboard session and its CSRF value',
      security: [SESSION_COOKIE_SCHEME],
      responses: [{ status: 200, description: 'signed in', body: json(SessionResponse, SESSION_EXAMPLE) }],
      errors: [NO_SESSION, REVOCATIONS_NOT_LOADED, UNKNOWN_HOST],
    },
    {
      method: 'delete',
      path: '/app/session',
      operationId: 'signOut',
      tag: 'panel',
      summary: 'Sign out: the token is revoked at the auth-server and the cookie cleared',
      security: [SESSION_COOKIE_SCHEME],
      parameters: [
        {
          name: 'X-CSRF-Token',
          in: 'header',
          description: 'the `csrf` of the session',
          schema: { type: 'string' },
        },
      ],
      responses: [
        {
          status: 200,
          description: 'signed out',
          body: json(SuccessMessage, { status: 'success', message: 'signed out' }),
          headers: SET_COOKIE,
        },
      ],
      errors: [
        NO_SESSION,
        {
          code: 'forbidden',
          when: 'X-CSRF-Token is missing or is not the session’s',
          message: 'X-CSRF-Token: missing or not this session’s',
        },
        {
          code: 'upstream_error',
          when: 'the auth-server could not revoke the token (the cookie is cleared all the same)',
          message: 'the auth-server did not revoke the token; the cookie was cleared',
        },
        REVOCATIONS_NOT_LOADED,
        UNKNOWN_HOST,
      ],
    },
  ];
}
