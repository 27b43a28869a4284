// Shapes of the dashboard's browser session (issue 17, docs/decisions/0021): sign-in with the tenant's base
// and password, answered with a cookie the page cannot read and the CSRF value the page sends back.
import { type Static, Type } from '@sinclair/typebox';

/**
 * The session cookie. `__Host-` makes the browser refuse it unless it is Secure, Path=/ and has no Domain,
 * so no sibling subdomain (another tenant) can set or shadow it.
 */
export const SESSION_COOKIE = '__Host-cr_session';

/** The header a cookie-authenticated state-changing request must carry (the session's CSRF value). */
export const CSRF_HEADER = 'x-csrf-token';

export const SessionRequest = Type.Object(
  {
    base: Type.String({ minLength: 1, maxLength: 255, description: "The tenant's base (its subdomain)" }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { $id: 'https://schemas.cr-einvoice.dev/session-request.json', additionalProperties: false },
);
export type SessionRequest = Static<typeof SessionRequest>;

export const SessionData = Type.Object(
  {
    base: Type.String(),
    expira: Type.String({ format: 'date-time', description: 'When the session token expires' }),
    csrf: Type.String({
      description: 'Send as X-CSRF-Token on every state-changing request authenticated by the cookie',
    }),
  },
  { additionalProperties: false },
);
export type SessionData = Static<typeof SessionData>;

export const SessionResponse = Type.Object(
  { status: Type.Literal('success'), data: SessionData },
  { $id: 'https://schemas.cr-einvoice.dev/session-response.json', additionalProperties: false },
);
export type SessionResponse = Static<typeof SessionResponse>;
