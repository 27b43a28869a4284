// Spec endpoint 1 (POST /login) and the access token's claims.
import { type Static, Type } from '@sinclair/typebox';

/** A client's `base` is also its subdomain, so it is a DNS label. */
export const BASE_PATTERN = '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$';

/**
 * `{base, password}` (every scope), or `{base, apiKey}` for a machine client (the key's scopes only). The
 * login route requires exactly one of the two and names the missing one as `password`, as it always has.
 */
export const LoginRequest = Type.Object(
  {
    base: Type.String({ minLength: 1, maxLength: 255, description: 'Unique client identifier' }),
    password: Type.Optional(
      Type.String({ minLength: 1, maxLength: 1024, description: 'Client password (or send apiKey instead)' }),
    ),
    apiKey: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description:
          'An API key of this client (`crk_…`), instead of the password: the token gets its scopes',
      }),
    ),
  },
  { $id: 'https://schemas.cr-einvoice.dev/login-request.json' },
);
export type LoginRequest = Static<typeof LoginRequest>;

export const LoginResponse = Type.Object(
  {
    token: Type.String({ description: 'RS256 JWT' }),
    expires_in: Type.Integer({ description: 'Token lifetime in seconds (28800)' }),
    token_type: Type.Literal('Bearer'),
  },
  { $id: 'https://schemas.cr-einvoice.dev/login-response.json', additionalProperties: false },
);
export type LoginResponse = Static<typeof LoginResponse>;

export const TokenClaims = Type.Object(
  {
    iss: Type.String(),
    aud: Type.String(),
    iat: Type.Integer(),
    exp: Type.Integer(),
    jti: Type.String({ minLength: 1 }),
    sub: Type.String({ pattern: BASE_PATTERN }),
    base: Type.String({ pattern: BASE_PATTERN }),
    scope: Type.Optional(
      Type.String({
        description:
          'Space-separated scopes of a token issued for an API key; absent on a password login (every scope)',
      }),
    ),
    akid: Type.Optional(Type.String({ description: 'The id of the API key the token was issued for' })),
  },
  { $id: 'https://schemas.cr-einvoice.dev/token-claims.json', additionalProperties: false },
);
export type TokenClaims = Static<typeof TokenClaims>;

export const TOKEN_LIFETIME_SECONDS = 28800;
