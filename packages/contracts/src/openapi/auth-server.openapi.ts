// The auth-server's OpenAPI 3.1 document: login, logout, JWKS, revocation list, admin API, health.
import {
  CLIENT_LIST_LIMIT,
  ClientList,
  ClientView,
  CreateClientRequest,
  RevokeTokenRequest,
  SigningKeyList,
  UpdateClientRequest,
  KeyRetiredResponse,
} from '../auth-admin.schema';
import { ApiKeyList, ApiKeyView, CreateApiKeyRequest, CreatedApiKey } from '../api-keys.schema';
import { SuccessMessage } from '../common.schema';
import { LoginRequest, LoginResponse } from '../login.schema';
import { KeyRotationResponse, TokenRevokedResponse } from '../operations.schema';
import { JwkSet, RevocationList } from '../revocations.schema';
import {
  type ErrorDoc,
  type JsonObject,
  type ParameterDoc,
  type RouteDoc,
  buildDocument,
} from './build-document';
import {
  API_VERSION,
  NO_STORE,
  badBody,
  fieldsRefused,
  healthRoutes,
  healthSecurityScheme,
  json,
} from './common-routes';
import * as ex from './examples';

const ADMIN = 'adminToken';
const BEARER = 'bearerAuth';

const adminErrors: ErrorDoc[] = [
  {
    code: 'unauthorized',
    when: 'the admin token is missing or wrong (with `WWW-Authenticate: Bearer`)',
    message: 'a valid admin token is required',
  },
  {
    code: 'not_found',
    when: 'the admin API is disabled (no AUTH_ADMIN_TOKEN configured): it answers like an unknown route',
    message: 'no route for GET /admin/keys',
  },
];

const baseParam: ParameterDoc = {
  name: 'base',
  in: 'path',
  description: "the client's base (a DNS label)",
  schema: { type: 'string', pattern: '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$' },
  example: 'acme',
};
const badBase: ErrorDoc = {
  code: 'bad_request',
  when: 'the path `base` is not a DNS label',
  message: 'base: must be a DNS label (lower-case letters, digits, hyphen; 1-63)',
};

/** Every route of the auth-server, as the document describes it (exported for the example tests). */
export function authServerRoutes(): RouteDoc[] {
  return [
    {
      method: 'post',
      path: '/login',
      operationId: 'login',
      tag: 'auth',
      summary: 'Log in a client: an RS256 access token for 8 hours',
      description:
        "With `password` the token has every scope (no `scope` claim). With `apiKey` instead (a machine client) the token carries the key's scopes (`scope`, space-separated) and its id (`akid`); the tenant-api refuses routes outside them with 403. Unknown client, wrong password or key, revoked key and disabled client get the same 401 body. Failed logins are throttled per client and per IP.",
      security: [],
      requestBody: json(LoginRequest, ex.loginRequestExample),
      responses: [
        {
          status: 200,
          description: 'the access token',
          body: json(LoginResponse, ex.loginResponseExample),
          headers: NO_STORE,
        },
      ],
      errors: [
        badBody('password: is required'),
        {
          code: 'bad_request',
          when: 'both `password` and `apiKey` are sent',
          message: 'apiKey: send either password or apiKey, not both',
        },
        {
          code: 'invalid_credentials',
          when: 'base or password is incorrect, or the client is disabled',
          message: 'base or password is incorrect',
        },
        {
          code: 'too_many_requests',
          when: 'too many failed logins for this client or IP (with `Retry-After`)',
          message: 'too many failed logins; retry in 60 s',
        },
        {
          code: 'service_unavailable',
          when: 'too many password verifications in progress (with `Retry-After: 1`)',
          message: 'too many logins in progress; retry shortly',
        },
      ],
    },
    {
      method: 'post',
      path: '/logout',
      operationId: 'logout',
      tag: 'auth',
      summary: 'Revoke the presented token until it would have expired',
      security: [BEARER],
      responses: [
        {
          status: 200,
          description: 'the token is revoked',
          body: json(SuccessMessage, ex.logoutResponseExample),
        },
      ],
      errors: [
        {
          code: 'unauthorized',
          when: 'no Bearer token, or it is invalid or expired',
          message: 'token is invalid or expired',
        },
        {
          code: 'too_many_requests',
          when: "the token's credential (the password, or the API key) has revoked LOGOUTS_PER_MINUTE (60) live tokens this minute; this one is not revoked (with `Retry-After`)",
          message:
            "too many logouts with this password's tokens (at most 60 a minute); this token is not revoked: retry in 42 s",
        },
      ],
    },
    {
      method: 'get',
      path: '/.well-known/jwks.json',
      operationId: 'getJwks',
      tag: 'auth',
      summary: 'The public signing keys (current, next and previous) as a JWK Set',
      security: [],
      responses: [
        {
          status: 200,
          description: 'the JWK Set; cacheable for JWKS_MAX_AGE seconds',
          body: { ...json(JwkSet, ex.jwkSetExample), contentType: 'application/jwk-set+json' },
        },
      ],
      errors: [],
    },
    {
      method: 'get',
      path: '/revocations',
      operationId: 'listRevocations',
      tag: 'auth',
      summary: 'Unexpired revoked token ids, for verifiers to poll',
      security: [],
      parameters: [
        {
          name: 'since',
          in: 'query',
          description:
            'Unix seconds: only entries revoked at or after it (pass the previous `asOf`); default 0',
          schema: { type: 'string', pattern: '^\\d{1,12}$' },
          example: '1767200000',
        },
      ],
      responses: [
        {
          status: 200,
          description: 'the revocation list',
          body: json(RevocationList, ex.revocationListExample),
        },
      ],
      errors: [
        {
          code: 'bad_request',
          when: '`since` is not a non-negative integer',
          message: 'since: must be a Unix time in seconds (a non-negative integer)',
        },
      ],
    },
    {
      method: 'get',
      path: '/admin/clients',
      operationId: 'listClients',
      tag: 'admin',
      summary: 'The clients, a page at a time by base',
      description:
        "Pages follow each other by base: pass the answer's `next` as `after` until it is null. Deleted clients are not listed; their bases stay reserved (see `POST /admin/clients`).",
      security: [ADMIN],
      parameters: [
        {
          name: 'after',
          in: 'query',
          description: 'list the bases after this one: the `next` of the previous page',
          schema: { type: 'string', pattern: '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$' },
          example: 'globex',
        },
        {
          name: 'limit',
          in: 'query',
          description: `page size, 1..${CLIENT_LIST_LIMIT.max} (default ${CLIENT_LIST_LIMIT.default})`,
          schema: { type: 'integer', minimum: 1, maximum: CLIENT_LIST_LIMIT.max },
        },
      ],
      responses: [
        {
          status: 200,
          description: 'one page',
          body: json(ClientList, ex.clientListExample),
          headers: NO_STORE,
        },
      ],
      errors: [
        {
          code: 'bad_request',
          when: '`after` is not a base, or `limit` is not an integer from 1 to 200',
          message: 'limit: must be an integer from 1 to 200',
        },
        ...adminErrors,
      ],
    },
    {
      method: 'post',
      path: '/admin/clients',
      operationId: 'createClient',
      tag: 'admin',
      summary: 'Create a client (its base is also its tenant subdomain)',
      description:
        'A deleted client\'s base stays reserved: the tenant-api keeps that tenant\'s issuers (with their Hacienda credentials and .p12) and documents, which are tax records. Creating a client with it is refused (409) unless the request says `"reclaim": true`, which gives that data to the new client.',
      security: [ADMIN],
      requestBody: json(CreateClientRequest, ex.createClientRequestExample),
      responses: [{ status: 201, description: 'the client', body: json(ClientView, ex.clientViewExample) }],
      errors: [
        badBody('password: must NOT have fewer than 12 characters'),
        ...adminErrors,
        {
          code: 'conflict',
          when: 'a client with this base exists',
          message: 'base: client "acme" already exists',
        },
        {
          code: 'conflict',
          when: 'a deleted client had this base and `reclaim` is not true',
          message:
            'base: client "acme" was deleted on 2025-03-01T10:00:00.000Z; its tenant data remains under that base: issuers with their Hacienda credentials and .p12, documents, and the webhook endpoint and e-mail settings, which would then receive the events and mail of the new client. Create it with "reclaim": true only to give all of it to the new client',
        },
      ],
    },
    {
      method: 'patch',
      path: '/admin/clients/{base}',
      operationId: 'updateClient',
      tag: 'admin',
      summary: 'Enable or disable a client, or set its password',
      description:
        'Disabling a client or changing its password revokes every token it holds: the subject is published in `GET /revocations` with `notBefore` = now, and the tenant-api refuses its tokens with an earlier `iat` on its next poll.',
      security: [ADMIN],
      parameters: [baseParam],
      requestBody: json(UpdateClientRequest, ex.updateClientRequestExample),
      responses: [
        {
          status: 200,
          description: 'the client as it is now',
          body: json(ClientView, { ...ex.clientViewExample, disabled: true }),
        },
      ],
      errors: [
        badBody('disabled: must be of type boolean'),
        badBase,
        ...adminErrors,
        { code: 'not_found', when: 'no client has this base', message: 'client "acme" does not exist' },
      ],
    },
    {
      method: 'delete',
      path: '/admin/clients/{base}',
      operationId: 'deleteClient',
      tag: 'admin',
      summary: 'Delete a client (and revoke every token it holds)',
      description:
        'Only the client (its password, API keys and tokens) goes. Its tenant data in the tenant-api (issuers with their Hacienda credentials and .p12, documents, the webhook endpoint and e-mail settings) is kept, being tax records, so the base stays reserved: `POST /admin/clients` refuses it with 409 unless `"reclaim": true` hands all of that to a new client, whose events then go to the kept webhook endpoint until it configures its own.',
      security: [ADMIN],
      parameters: [baseParam],
      responses: [{ status: 204, description: 'deleted' }],
      errors: [
        badBase,
        ...adminErrors,
        { code: 'not_found', when: 'no client has this base', message: 'client "acme" does not exist' },
      ],
    },
    {
      method: 'post',
      path: '/admin/clients/{base}/api-keys',
      operationId: 'createApiKey',
      tag: 'admin',
      summary: 'Create an API key for a client: shown once, stored only as a digest',
      description:
        'The answer is the only place the key (`crk_…`) appears; store it like a password. Log in with `POST /login {base, apiKey}`: the token carries the scopes given here.',
      security: [ADMIN],
      parameters: [baseParam],
      requestBody: json(CreateApiKeyRequest, ex.createApiKeyRequestExample),
      responses: [
        {
          status: 201,
          description: 'the key, with its secret this once',
          body: json(CreatedApiKey, ex.createdApiKeyExample),
          headers: NO_STORE,
        },
      ],
      errors: [
        badBody('scopes/0: must be equal to one of the allowed values'),
        badBase,
        ...adminErrors,
        { code: 'not_found', when: 'no client has this base', message: 'client "acme" does not exist' },
      ],
    },
    {
      method: 'get',
      path: '/admin/clients/{base}/api-keys',
      operationId: 'listApiKeys',
      tag: 'admin',
      summary: "A client's API keys, revoked ones included, never the keys themselves",
      security: [ADMIN],
      parameters: [baseParam],
      responses: [
        {
          status: 200,
          description: 'the keys',
          body: json(ApiKeyList, { keys: [ex.apiKeyViewExample] }),
          headers: NO_STORE,
        },
      ],
      errors: [
        badBase,
        ...adminErrors,
        { code: 'not_found', when: 'no client has this base', message: 'client "acme" does not exist' },
      ],
    },
    {
      method: 'delete',
      path: '/admin/clients/{base}/api-keys/{id}',
      operationId: 'revokeApiKey',
      tag: 'admin',
      summary: 'Revoke an API key and every token issued for it',
      description:
        'The key no longer logs in, and its tokens are published in `GET /revocations` (subject `apikey:<id>`): the tenant-api refuses them from its next poll.',
      security: [ADMIN],
      parameters: [
        baseParam,
        {
          name: 'id',
          in: 'path',
          description: 'the key id',
          schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{16}$' },
          example: ex.apiKeyViewExample.id,
        },
      ],
      responses: [
        {
          status: 200,
          description: 'the key as it is now',
          body: json(ApiKeyView, { ...ex.apiKeyViewExample, revokedAt: '2025-02-01T09:00:00.000Z' }),
        },
      ],
      errors: [
        badBase,
        { code: 'bad_request', when: 'the id is not a key id', message: 'id: must be an API key id' },
        ...adminErrors,
        {
          code: 'not_found',
          when: 'the client has no such key',
          message: 'api key "Hk3v9QwLx2Tb7mPa" of client "acme" does not exist',
        },
      ],
    },
    {
      method: 'get',
      path: '/admin/keys',
      operationId: 'listSigningKeys',
      tag: 'admin',
      summary: 'The signing keys and their state (public halves only)',
      security: [ADMIN],
      responses: [
        { status: 200, description: 'the keys', body: json(SigningKeyList, ex.signingKeyListExample) },
      ],
      errors: adminErrors,
    },
    {
      method: 'post',
      path: '/admin/keys/rotate',
      operationId: 'rotateSigningKeys',
      tag: 'admin',
      summary: 'Rotate: the next key becomes current and a new next key is published',
      security: [ADMIN],
      responses: [
        {
          status: 200,
          description: 'the rotation',
          body: json(KeyRotationResponse, ex.keyRotationResponseExample),
        },
      ],
      errors: [fieldsRefused('kid'), ...adminErrors],
    },
    {
      method: 'post',
      path: '/admin/keys/{kid}/retire',
      operationId: 'retireSigningKey',
      tag: 'admin',
      summary: 'Retire a key now (it leaked): out of the JWKS, never signs again, private half destroyed',
      description:
        'When the key is the current one, the published next key signs from now on and a new next key is published. Verifiers drop the key when they refetch the JWKS (its Cache-Control max-age).',
      security: [ADMIN],
      parameters: [
        {
          name: 'kid',
          in: 'path',
          required: true,
          description: 'the key id (its RFC 7638 thumbprint, base64url), as `GET /admin/keys` lists it',
          schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,128}$' },
          example: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
        },
      ],
      responses: [
        {
          status: 200,
          description: 'retired',
          body: json(KeyRetiredResponse, {
            retired: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
            current: 'kO4yC1Jv4fHc3b5b0m3sXb2QbHk9hQ4m0JrGJm8m8uA',
            next: 'p3D7Q0yY8fBq9m5W3b2QbHk9hQ4m0JrGJm8m8uA1xYz',
          }),
        },
      ],
      errors: [
        {
          code: 'bad_request',
          when: 'the path `kid` is not base64url (1-128 characters)',
          message: 'kid: must be a key id (base64url)',
        },
        fieldsRefused('reason'),
        ...adminErrors,
        {
          code: 'not_found',
          when: 'no published key has this kid',
          message: 'kid: no published signing key "…"',
        },
      ],
    },
    {
      method: 'post',
      path: '/admin/tokens/revoke',
      operationId: 'revokeToken',
      tag: 'admin',
      summary: 'Revoke a token by its jti',
      security: [ADMIN],
      requestBody: json(RevokeTokenRequest, ex.revokeTokenRequestExample),
      responses: [
        {
          status: 200,
          description: 'revoked',
          body: json(TokenRevokedResponse, ex.tokenRevokedResponseExample),
        },
      ],
      errors: [badBody('jti: is required'), ...adminErrors],
    },
    ...healthRoutes('health', 'database, signing key loaded'),
  ];
}

export interface AuthServerOpenApiOptions {
  /** Public URL of the auth-server; default `https://auth.example.com`. */
  serverUrl?: string;
}

export function buildAuthServerOpenApi(options: AuthServerOpenApiOptions = {}): JsonObject {
  return buildDocument({
    title: 'auth-server',
    version: API_VERSION,
    description:
      'Issues the RS256 access tokens of the tenant API (`POST /login`), publishes their keys (JWKS) and revocations, and administers clients and keys. Every error is `{error, message}` with a stable `error` code.',
    servers: [{ url: options.serverUrl ?? 'https://auth.example.com' }],
    tags: [
      { name: 'auth', description: 'Login, logout, and what token verifiers read' },
      { name: 'admin', description: 'Administration, with `Authorization: Bearer AUTH_ADMIN_TOKEN`' },
      { name: 'health', description: 'Probes for the orchestrator' },
    ],
    securitySchemes: {
      ...healthSecurityScheme,
      [BEARER]: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: 'An access token from POST /login',
      },
      [ADMIN]: { type: 'http', scheme: 'bearer', description: 'The AUTH_ADMIN_TOKEN setting' },
    },
    routes: authServerRoutes(),
    // The app's JSON parser limit (16kb, apps/auth-server/src/app.ts).
    bodyLimitBytes: 16 * 1024,
  });
}
