// API keys (issue 11, item 3): per-client machine credentials exchanged at POST /login for a token that
// carries the key's scopes, and the one table of which scope each tenant-api route needs.
import { type Static, Type } from '@sinclair/typebox';

export const API_SCOPES = [
  'documents:write',
  'documents:read',
  'issuers:write',
  'issuers:read',
  'webhooks:write',
  'webhooks:read',
  'delivery:write',
  'delivery:read',
  'lookups:read',
] as const;
export type ApiScope = (typeof API_SCOPES)[number];

/**
 * Every authenticated tenant-api route and the scope it needs (`METHOD /path`, parameters as `{name}`).
 * A token without a `scope` claim (password login) has every scope. A test walks the app's router and
 * fails when a route under /api has no entry, so a new route cannot be left open to every key.
 */
export const TENANT_API_ROUTE_SCOPES: Readonly<Record<string, ApiScope>> = {
  'POST /api/enviar/items': 'documents:write',
  'POST /api/consultar/documento': 'documents:read',
  'GET /api/documentos': 'documents:read',
  'GET /api/descargar/{clave}/xml': 'documents:read',
  'GET /api/descargar/{clave}/respuesta': 'documents:read',
  'GET /api/descargar/{clave}/pdf': 'documents:read',
  'POST /api/recepcion/documentos': 'documents:write',
  'GET /api/recepcion/documentos': 'documents:read',
  'GET /api/recepcion/documentos/{clave}': 'documents:read',
  'GET /api/recepcion/documentos/{clave}/xml': 'documents:read',
  'GET /api/recepcion/documentos/{clave}/respuesta-hacienda': 'documents:read',
  'POST /api/recepcion/documentos/{clave}/respuesta': 'documents:write',
  'POST /api/recepcion/sincronizar': 'documents:write',
  'POST /api/enviar/emisor': 'issuers:write',
  'POST /api/actualizar/emisor': 'issuers:write',
  'POST /api/configurar/marca': 'delivery:write',
  'POST /api/configurar/correo': 'delivery:write',
  'POST /api/reenviar/correo': 'delivery:write',
  'POST /api/consultar/correo': 'delivery:read',
  'POST /api/consultar/emisor': 'issuers:read',
  'GET /api/emisores': 'issuers:read',
  'POST /api/configurar/webhook': 'webhooks:write',
  'POST /api/reenviar/webhook': 'webhooks:write',
  'POST /api/consultar/webhook': 'webhooks:read',
  'POST /api/hacienda/cabys': 'lookups:read',
  'POST /api/hacienda/exoneracion': 'lookups:read',
  'POST /api/hacienda/contribuyente': 'lookups:read',
};

const ROUTE_PATTERNS = Object.entries(TENANT_API_ROUTE_SCOPES).map(([route, scope]) => {
  const [method, path] = route.split(' ') as [string, string];
  const pattern = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}/]+\}/g, '[^/]+');
  return { method, regex: new RegExp(`^${pattern}$`), scope };
});

/** The scope `METHOD path` needs (a concrete path such as /api/descargar/506…/pdf), or undefined if unlisted. */
export function scopeForRoute(method: string, path: string): ApiScope | undefined {
  const upper = method.toUpperCase();
  // HEAD is served by the GET route.
  const wanted = upper === 'HEAD' ? 'GET' : upper;
  return ROUTE_PATTERNS.find((r) => r.method === wanted && r.regex.test(path))?.scope;
}

export const ApiScopeSchema = Type.Union(
  API_SCOPES.map((scope) => Type.Literal(scope)),
  { description: API_SCOPES.join(', ') },
);

export const CreateApiKeyRequest = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 100,
      format: 'single-line',
      description: 'What the key is for (shown in lists)',
    }),
    scopes: Type.Array(ApiScopeSchema, { minItems: 1, maxItems: API_SCOPES.length, uniqueItems: true }),
  },
  { $id: 'https://schemas.cr-einvoice.dev/auth-create-api-key-request.json', additionalProperties: false },
);
export type CreateApiKeyRequest = Static<typeof CreateApiKeyRequest>;

const apiKeyFields = {
  id: Type.String({ description: 'Public id of the key (also inside the key)' }),
  base: Type.String(),
  name: Type.String(),
  scopes: Type.Array(ApiScopeSchema),
  createdAt: Type.String({ description: 'ISO 8601' }),
  revokedAt: Type.Union([Type.String(), Type.Null()], { description: 'ISO 8601, or null while usable' }),
  lastUsedAt: Type.Union([Type.String(), Type.Null()], { description: 'ISO 8601 of the last login with it' }),
};

export const ApiKeyView = Type.Object(apiKeyFields, {
  $id: 'https://schemas.cr-einvoice.dev/auth-api-key.json',
  additionalProperties: false,
});
export type ApiKeyView = Static<typeof ApiKeyView>;

export const CreatedApiKey = Type.Object(
  {
    ...apiKeyFields,
    key: Type.String({ description: 'The key itself (`crk_…`): shown this once, stored only as a hash' }),
  },
  { $id: 'https://schemas.cr-einvoice.dev/auth-created-api-key.json', additionalProperties: false },
);
export type CreatedApiKey = Static<typeof CreatedApiKey>;

export const ApiKeyList = Type.Object(
  { keys: Type.Array(ApiKeyView) },
  { $id: 'https://schemas.cr-einvoice.dev/auth-api-key-list.json', additionalProperties: false },
);
export type ApiKeyList = Static<typeof ApiKeyList>;
