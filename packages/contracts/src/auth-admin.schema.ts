// The auth-server's admin API (Bearer AUTH_ADMIN_TOKEN): clients, key rotation and token revocation.
import { type Static, Type } from '@sinclair/typebox';
import { BASE_PATTERN } from './login.schema';

export const CreateClientRequest = Type.Object(
  {
    base: Type.String({
      pattern: BASE_PATTERN,
      maxLength: 63,
      description: 'DNS label: lower-case letters, digits and hyphens, 1-63 characters',
    }),
    password: Type.String({ minLength: 12, maxLength: 1024, description: 'At least 12 characters' }),
    reclaim: Type.Optional(
      Type.Boolean({
        description:
          "Create the client even if a deleted client had this base: the base is also the tenant-api's tenant, and the deleted client's issuers (with their Hacienda credentials and .p12), documents, webhook endpoint and e-mail settings are kept, so they become the new client's: its events go to that webhook endpoint until it configures its own. Meant for the same business coming back; another business gets a base of its own. Without it such a base is refused (409). On a base never deleted it changes nothing.",
      }),
    ),
  },
  { $id: 'https://schemas.cr-einvoice.dev/auth-create-client-request.json', additionalProperties: false },
);
export type CreateClientRequest = Static<typeof CreateClientRequest>;

export const ClientView = Type.Object(
  {
    base: Type.String(),
    disabled: Type.Boolean(),
    createdAt: Type.String({ description: 'ISO 8601' }),
  },
  { $id: 'https://schemas.cr-einvoice.dev/auth-client.json', additionalProperties: false },
);
export type ClientView = Static<typeof ClientView>;

/** Page size of `GET /admin/clients`: default and most. */
export const CLIENT_LIST_LIMIT = { default: 50, max: 200 } as const;

/** The query of `GET /admin/clients` (`limit` arrives as text: parseQuery reads its digits as a number). */
export const ClientListQuery = Type.Object(
  {
    after: Type.Optional(
      Type.String({
        pattern: BASE_PATTERN,
        description: 'list the bases after this one: the `next` of the previous page',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: CLIENT_LIST_LIMIT.max,
        description: `page size, 1..${CLIENT_LIST_LIMIT.max} (default ${CLIENT_LIST_LIMIT.default})`,
      }),
    ),
  },
  { $id: 'https://schemas.cr-einvoice.dev/auth-client-list-query.json', additionalProperties: false },
);
export type ClientListQuery = Static<typeof ClientListQuery>;

export const ClientList = Type.Object(
  {
    clients: Type.Array(ClientView, {
      description: 'by base, in byte order; deleted clients are not listed',
    }),
    next: Type.Union([Type.String(), Type.Null()], {
      description: 'the last base of this page when more follow: pass it as `?after=`; null on the last page',
    }),
  },
  { $id: 'https://schemas.cr-einvoice.dev/auth-client-list.json', additionalProperties: false },
);
export type ClientList = Static<typeof ClientList>;

export const UpdateClientRequest = Type.Object(
  {
    disabled: Type.Optional(
      Type.Boolean({
        description: 'A disabled client cannot log in; disabling also revokes every token it holds',
      }),
    ),
    password: Type.Optional(
      Type.String({
        minLength: 12,
        maxLength: 1024,
        description: 'A new password (at least 12 characters); every token issued before is revoked',
      }),
    ),
  },
  {
    $id: 'https://schemas.cr-einvoice.dev/auth-update-client-request.json',
    additionalProperties: false,
    minProperties: 1,
  },
);
export type UpdateClientRequest = Static<typeof UpdateClientRequest>;

export const RevokeTokenRequest = Type.Object(
  {
    jti: Type.String({
      minLength: 1,
      maxLength: 128,
      pattern: '^[\\x21-\\x7E]+$',
      description: 'The token id to revoke (printable ASCII)',
    }),
    exp: Type.Optional(
      Type.Integer({
        minimum: 0,
        // 9999-12-31T23:59:59Z: far past any token's life, and within the database's bigint (a larger
        // number overflowed it: a 500 instead of this 400).
        maximum: 253_402_300_799,
        description:
          "The token's exp (Unix seconds, at most 253402300799 = 9999-12-31) when known; otherwise the longest lifetime is assumed",
      }),
    ),
  },
  { $id: 'https://schemas.cr-einvoice.dev/auth-revoke-token-request.json', additionalProperties: false },
);
export type RevokeTokenRequest = Static<typeof RevokeTokenRequest>;

export const SigningKeyView = Type.Object(
  {
    kid: Type.String({ description: 'RFC 7638 thumbprint' }),
    status: Type.Union([Type.Literal('next'), Type.Literal('current'), Type.Literal('previous')]),
    createdAt: Type.String(),
    activatesAt: Type.Union([Type.String(), Type.Null()]),
    publicKeyPem: Type.String(),
  },
  { $id: 'https://schemas.cr-einvoice.dev/auth-signing-key.json', additionalProperties: false },
);
export type SigningKeyView = Static<typeof SigningKeyView>;

export const KeyRetiredResponse = Type.Object(
  {
    retired: Type.String({
      description: 'kid of the key withdrawn from the JWKS; its private half is destroyed',
    }),
    current: Type.String({ description: 'kid of the key that signs now' }),
    next: Type.String({ description: 'kid of the published next key' }),
  },
  { $id: 'https://schemas.cr-einvoice.dev/auth-key-retired.json', additionalProperties: false },
);
export type KeyRetiredResponse = Static<typeof KeyRetiredResponse>;

export const SigningKeyList = Type.Object(
  { keys: Type.Array(SigningKeyView) },
  { $id: 'https://schemas.cr-einvoice.dev/auth-signing-key-list.json', additionalProperties: false },
);
export type SigningKeyList = Static<typeof SigningKeyList>;
