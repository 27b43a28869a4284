// The tenant API's OpenAPI 3.1 document. The tenant is the left-most label of the host
// (`https://{tenant}.api.example.com`); every /api route needs a Bearer token issued to that tenant.
import type { TSchema } from '@sinclair/typebox';
import { SuccessMessage } from '../common.schema';
import { EmisorQuery, EmisorQueryResponse, EmisorRegistration } from '../emisor.schema';
import {
  WebhookConfigRequest,
  WebhookConfigResponse,
  WebhookConsultResponse,
  WebhookReplayRequest,
  WebhookReplayResponse,
} from '../webhook.schema';
import {
  type ErrorDoc,
  type JsonObject,
  type ResponseDoc,
  type RouteDoc,
  buildDocument,
} from './build-document';
import { API_VERSION, NO_STORE, badBody, healthRoutes, json } from './common-routes';
import * as ex from './examples';

const BEARER = 'bearerAuth';

/** Answered by every tenant route: a host that names no tenant, a missing or foreign token. */
export const TENANT_ROUTE_ERRORS: ErrorDoc[] = [
  {
    code: 'unauthorized',
    when: 'no Bearer token, or it is invalid, expired, revoked or issued to another tenant (with `WWW-Authenticate`)',
    message: 'missing Authorization: Bearer token',
  },
  {
    code: 'not_found',
    when: 'the host is not `<tenant>.<TENANT_BASE_DOMAIN>`',
    message: 'unknown host',
  },
];

interface ApiRoute {
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  body?: { schema: TSchema; example: unknown; badExample: string };
  ok: ResponseDoc;
  errors: ErrorDoc[];
}

function apiPost(r: ApiRoute): RouteDoc {
  return {
    method: 'post',
    path: r.path,
    operationId: r.operationId,
    tag: r.tag,
    summary: r.summary,
    ...(r.description ? { description: r.description } : {}),
    security: [BEARER],
    ...(r.body ? { requestBody: json(r.body.schema, r.body.example) } : {}),
    responses: [r.ok],
    errors: [...(r.body ? [badBody(r.body.badExample)] : []), ...TENANT_ROUTE_ERRORS, ...r.errors],
  };
}

/** Every route of the tenant API, as the document describes it (exported for the example tests). */
export function tenantApiRoutes(): RouteDoc[] {
  return [
    apiPost({
      path: '/api/enviar/emisor',
      operationId: 'registerIssuer',
      tag: 'emisor',
      summary: 'Register an issuer with its Hacienda credentials and .p12 certificate',
      description:
        'Registering the same data again succeeds (idempotent). The certificate must open with the PIN, be current, and name the issuer.',
      body: {
        schema: EmisorRegistration,
        example: ex.emisorRegistrationExample,
        badExample: 'certificadoHacienda: cannot be opened with pinCertificado',
      },
      ok: {
        status: 200,
        description: 'registered (or already registered with the same data)',
        body: json(SuccessMessage, ex.emisorRegisteredExample),
      },
      errors: [
        {
          code: 'conflict',
          when: 'the issuer is registered with other data',
          message:
            'identificacion: issuer 3101123456 is already registered; use /api/actualizar/emisor to change it',
        },
      ],
    }),
    apiPost({
      path: '/api/actualizar/emisor',
      operationId: 'updateIssuer',
      tag: 'emisor',
      summary: "Replace a registered issuer's data",
      body: {
        schema: EmisorRegistration,
        example: ex.emisorRegistrationExample,
        badExample: 'ubicacion.canton: must match the expected format (canton code, 2 digits)',
      },
      ok: { status: 200, description: 'updated', body: json(SuccessMessage, ex.emisorUpdatedExample) },
      errors: [
        {
          code: 'not_found',
          when: 'the issuer is not registered',
          message: 'identificacion: issuer 3101123456 is not registered',
        },
      ],
    }),
    apiPost({
      path: '/api/consultar/emisor',
      operationId: 'getIssuer',
      tag: 'emisor',
      summary: "An issuer's public data and certificate expiry",
      body: {
        schema: EmisorQuery,
        example: ex.emisorQueryExample,
        badExample: 'identificacion: is required',
      },
      ok: {
        status: 200,
        description: 'the issuer',
        body: json(EmisorQueryResponse, ex.emisorQueryResponseExample),
      },
      errors: [
        {
          code: 'not_found',
          when: 'the issuer is not registered',
          message: 'identificacion: issuer 3101123456 is not registered',
        },
      ],
    }),
    apiPost({
      path: '/api/configurar/webhook',
      operationId: 'configureWebhook',
      tag: 'webhook',
      summary: 'Set the URL that receives document events; returns a new signing secret',
      description:
        'Each call rotates the secret; for 24 h deliveries are signed with both the new and the previous one (Standard Webhooks).',
      body: {
        schema: WebhookConfigRequest,
        example: ex.webhookConfigRequestExample,
        badExample: 'url: must not point to a private, loopback or reserved address',
      },
      ok: {
        status: 200,
        description: 'configured; the secret is shown only here',
        body: json(WebhookConfigResponse, ex.webhookConfigResponseExample),
        headers: NO_STORE,
      },
      errors: [],
    }),
    apiPost({
      path: '/api/consultar/webhook',
      operationId: 'getWebhook',
      tag: 'webhook',
      summary: 'The webhook configuration and its latest deliveries',
      ok: {
        status: 200,
        description: 'the webhook',
        body: json(WebhookConsultResponse, ex.webhookConsultResponseExample),
      },
      errors: [
        {
          code: 'not_found',
          when: 'no webhook is configured',
          message: 'no webhook is configured; use /api/configurar/webhook',
        },
      ],
    }),
    apiPost({
      path: '/api/reenviar/webhook',
      operationId: 'replayWebhook',
      tag: 'webhook',
      summary: "Send a document's final-state event again",
      body: {
        schema: WebhookReplayRequest,
        example: ex.webhookReplayRequestExample,
        badExample: 'clave: is required',
      },
      ok: {
        status: 200,
        description: 'the event is queued',
        body: json(WebhookReplayResponse, ex.webhookReplayResponseExample),
      },
      errors: [
        {
          code: 'not_found',
          when: 'no document of the tenant has this clave',
          message: `clave: document ${ex.EXAMPLE_CLAVE} not found`,
        },
        {
          code: 'conflict',
          when: 'the document has no final state yet',
          message: `clave: document ${ex.EXAMPLE_CLAVE} has no final state yet (estado enviado)`,
        },
      ],
    }),
    ...healthRoutes('health', 'database'),
  ];
}

export interface TenantApiOpenApiOptions {
  /** The domain under which each tenant has its subdomain; default `api.example.com`. */
  baseDomain?: string;
}

export function buildTenantApiOpenApi(options: TenantApiOpenApiOptions = {}): JsonObject {
  const baseDomain = options.baseDomain ?? 'api.example.com';
  return buildDocument({
    title: 'tenant-api',
    version: API_VERSION,
    description:
      "Electronic invoicing for Costa Rica's Hacienda (v4.4), one subdomain per tenant. Log in at the auth-server (`POST /login`) and send the token as `Authorization: Bearer <token>` to your tenant's host. Every error is `{error, message}` with a stable `error` code; a 400 names each offending field in `message` and `details`.",
    servers: [
      {
        url: `https://{tenant}.${baseDomain}`,
        description: "your tenant's subdomain (the `base` you log in with)",
        variables: { tenant: { default: 'acme', description: 'your client base' } },
      },
      { url: '/', description: 'the host this document was read from' },
    ],
    tags: [
      { name: 'emisor', description: 'Issuers (emisores) of the tenant' },
      {
        name: 'webhook',
        description: "Events sent to the tenant's URL when a document reaches a final state",
      },
      { name: 'health', description: 'Probes for the orchestrator; served on any host, without a token' },
    ],
    securitySchemes: {
      [BEARER]: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: 'An access token from the auth-server (`POST /login`), issued to the tenant of the host',
      },
    },
    routes: tenantApiRoutes(),
  });
}
