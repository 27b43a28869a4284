// The revocation list the tenant-api polls (`GET {auth_url}/revocations?since=<unix seconds>`) and the
// JWKS document (`GET {auth_url}/.well-known/jwks.json`).
import { type Static, Type } from '@sinclair/typebox';

export const RevokedToken = Type.Object(
  {
    jti: Type.String(),
    exp: Type.Integer({ description: 'When the token expires anyway (Unix seconds); drop the entry then' }),
  },
  { additionalProperties: false },
);
export type RevokedToken = Static<typeof RevokedToken>;

export const RevokedSubject = Type.Object(
  {
    sub: Type.String({ description: 'The client (base) whose earlier tokens are revoked' }),
    notBefore: Type.Integer({
      description:
        'Tokens of this subject with `iat` before this time (Unix seconds) are revoked: the client was disabled, deleted or its password changed',
    }),
  },
  { additionalProperties: false },
);
export type RevokedSubject = Static<typeof RevokedSubject>;

export const RevocationList = Type.Object(
  {
    revoked: Type.Array(RevokedToken, { description: 'Unexpired tokens revoked at or after `since`' }),
    revokedSubjects: Type.Array(RevokedSubject, {
      description:
        'Subjects revoked at or after `since` whose revocation still matters (a token of before may live)',
    }),
    asOf: Type.Integer({
      description:
        "The server's cursor (Unix seconds, its own clock a few seconds back so a revocation still committing is not skipped): pass it as `since` in the next poll",
    }),
  },
  { $id: 'https://schemas.cr-einvoice.dev/auth-revocation-list.json', additionalProperties: false },
);
export type RevocationList = Static<typeof RevocationList>;

export const PublicJwk = Type.Object(
  {
    kty: Type.Literal('RSA'),
    n: Type.String(),
    e: Type.String(),
    kid: Type.String(),
    alg: Type.Literal('RS256'),
    use: Type.Literal('sig'),
  },
  { additionalProperties: false },
);
export type PublicJwk = Static<typeof PublicJwk>;

export const JwkSet = Type.Object(
  { keys: Type.Array(PublicJwk) },
  { $id: 'https://schemas.cr-einvoice.dev/jwk-set.json', additionalProperties: false },
);
export type JwkSet = Static<typeof JwkSet>;
