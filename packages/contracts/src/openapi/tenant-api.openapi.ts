// The tenant API's OpenAPI 3.1 document. The tenant is the left-most label of the host
// (`https://{tenant}.api.example.com`); every /api route needs a Bearer token issued to that tenant.
import { type TSchema, Type } from '@sinclair/typebox';
import { SuccessMessage } from '../common.schema';
import {
  CorreoConfigRequest,
  CorreoConfigResponse,
  CorreoResendRequest,
  CorreoResendResponse,
  MarcaConfigRequest,
  MarcaConfigResponse,
} from '../delivery.schema';
import { DocumentRequest } from '../document.schema';
import { EmisorQuery, EmisorQueryResponse, EmisorRegistration } from '../emisor.schema';
import {
  CabysQuery,
  CabysResponse,
  ContribuyenteQuery,
  ContribuyenteResponse,
  EmisorWriteResponse,
  ExoneracionQuery,
  ExoneracionResponse,
} from '../lookups.schema';
import {
  RecepcionDocumentRequest,
  RecepcionDocumentResponse,
  RecepcionListResponse,
  RecepcionRespuestaRequest,
  RecepcionRespuestaResponse,
  RecepcionSincronizarRequest,
  RecepcionSincronizarResponse,
} from '../recepcion.schema';
import { DocumentListResponse, EmisorListResponse, TIPOS_DOCUMENTO } from '../listings.schema';
import { DocumentQuery, DocumentQueryResponse, EnviarItemsResponse } from '../submission.schema';
import {
  WebhookConfigRequest,
  WebhookConfigResponse,
  WebhookConsultResponse,
  WebhookReplayRequest,
  WebhookReplayResponse,
} from '../webhook.schema';
import {
  type ErrorDoc,
  type HttpMethod,
  type JsonObject,
  type ParameterDoc,
  type ResponseDoc,
  type RouteDoc,
  buildDocument,
} from './build-document';
import type { BodyDoc } from './build-document';
import {
  API_VERSION,
  NO_STORE,
  REVOCATIONS_NOT_LOADED,
  badBody,
  fieldsRefused,
  healthRoutes,
  healthSecurityScheme,
  json,
} from './common-routes';
import { TENANT_API_ROUTE_SCOPES } from '../api-keys.schema';
import * as ex from './examples';
import { sessionCookieSecurityScheme, sessionRoutes } from './session-routes';

const BEARER = 'bearerAuth';

const RETRY_AFTER = {
  'Retry-After': {
    description: 'seconds to wait before asking again',
    schema: { type: 'integer', minimum: 1 },
  },
};

/**
 * Answered by every tenant route: a host that names no tenant, a missing or foreign token, and a token that
 * cannot be checked against revocations yet.
 */
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
  REVOCATIONS_NOT_LOADED,
];

/** The lookups reaching Hacienda's public API count against the tenant's window (LOOKUP_LIMIT). */
const LOOKUP_LIMITED: ErrorDoc = {
  code: 'too_many_requests',
  when: 'the tenant used up its window of lookups that reach Hacienda\'s public API, or has HACIENDA_LOOKUPS_PER_TENANT of them waiting or in flight already ("too many Hacienda lookups at once for this tenant"; with `Retry-After`)',
  message: 'too many Hacienda lookups for this tenant; retry in 42 s',
  headers: RETRY_AFTER,
};

/** Hacienda's public API failed after the retries, or the client is pausing after Hacienda's own 429. */
function hacienda502(path: string): ErrorDoc {
  return {
    code: 'upstream_error',
    when: "Hacienda's public API failed on every retry (5xx, timeout, refused connection), the service is pausing after Hacienda's own 429, or the call got no turn at the service's shared limit on calls to it within HACIENDA_LOOKUP_MAX_WAIT_MS (these two with `Retry-After`)",
    message: `Hacienda public API unavailable on ${path} (answered 503)`,
    headers: RETRY_AFTER,
  };
}

/** A signed XML file (the comprobante, or Hacienda's MensajeHacienda). */
const XmlDocument = Type.String({
  $id: 'https://schemas.cr-einvoice.dev/xml-document.json',
  contentMediaType: 'application/xml',
  description: 'an XML document, UTF-8, exactly as signed (its bytes are what the signature covers)',
});

const CLAVE_PARAMETER: ParameterDoc = {
  name: 'clave',
  in: 'path',
  description: 'the 50-digit clave of a document of the tenant',
  schema: { type: 'string', pattern: '^\\d{50}$' },
  example: ex.EXAMPLE_CLAVE,
};

/** The emission-date filters of a listing. */
const EMISSION_DATES: ParameterDoc[] = [
  {
    name: 'desde',
    in: 'query',
    description: 'emitted on or after (YYYY-MM-DD, Costa Rica)',
    schema: { type: 'string', format: 'date' },
  },
  {
    name: 'hasta',
    in: 'query',
    description: 'emitted on or before (YYYY-MM-DD, Costa Rica)',
    schema: { type: 'string', format: 'date' },
  },
];

/** A listing's cursor and page size. */
const PAGE_PARAMETERS: ParameterDoc[] = [
  {
    name: 'cursor',
    in: 'query',
    description: 'the `cursor` of the previous page',
    schema: { type: 'string' },
  },
  {
    name: 'limite',
    in: 'query',
    description: 'page size, 1..200 (default 50)',
    schema: { type: 'integer', minimum: 1, maximum: 200 },
  },
];

interface ApiRoute {
  method?: HttpMethod;
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  parameters?: ParameterDoc[];
  body?: {
    schema: TSchema;
    example: unknown;
    badExample: string;
    /** Further named examples (e.g. one per document kind), each validated like the first. */
    moreExamples?: Record<string, { summary: string; value: unknown }>;
    /** The largest body the route reads, when not BODY_LIMIT's default. */
    limitBytes?: number;
  };
  /** The success answer, or several when the route answers more than one status (201 new, 200 seen before). */
  ok: ResponseDoc | ResponseDoc[];
  errors: ErrorDoc[];
}

/** A route under /api: Bearer token of the host's tenant; 400 for a bad body, 401, 404 for an unknown host. */
/** The 403 of a token issued for an API key without the route's scope (TENANT_API_ROUTE_SCOPES). */
function scopeError(method: string, path: string): ErrorDoc[] {
  const scope = TENANT_API_ROUTE_SCOPES[`${method.toUpperCase()} ${path}`];
  if (!scope) return [];
  return [
    {
      code: 'forbidden',
      when: `the token was issued for an API key without the scope \`${scope}\` (password logins have every scope)`,
      message: `this token lacks the scope ${scope} (an API key created without it)`,
    },
  ];
}

function apiRoute(r: ApiRoute): RouteDoc {
  return {
    method: r.method ?? 'post',
    path: r.path,
    operationId: r.operationId,
    tag: r.tag,
    summary: r.summary,
    ...(r.description ? { description: r.description } : {}),
    security: [BEARER],
    ...(r.parameters ? { parameters: r.parameters } : {}),
    ...(r.body
      ? { requestBody: withMoreExamples(json(r.body.schema, r.body.example), r.body.moreExamples) }
      : {}),
    ...(r.body?.limitBytes ? { bodyLimitBytes: r.body.limitBytes } : {}),
    responses: Array.isArray(r.ok) ? r.ok : [r.ok],
    errors: [
      ...(r.body ? [badBody(r.body.badExample)] : []),
      ...TENANT_ROUTE_ERRORS,
      ...scopeError(r.method ?? 'post', r.path),
      ...r.errors,
    ],
  };
}

/** The answer of the issuer writes: a message, and warnings when Hacienda's registry disagrees. */
function emisorWritten(description: string, plain: unknown): ResponseDoc {
  return {
    status: 200,
    description: `${description}; \`warnings\` lists what Hacienda's taxpayer registry disagrees with (the issuer is stored anyway)`,
    body: {
      schema: EmisorWriteResponse,
      examples: {
        example: { value: plain },
        warnings: {
          summary: "Hacienda's registry lists another activity and legal name",
          value: ex.emisorRegisteredWithWarningsExample,
        },
        unchecked: {
          summary: "Hacienda's registry could not be reached",
          value: ex.emisorUnreachableRegistryExample,
        },
      },
    },
  };
}

function download(which: 'xml' | 'respuesta'): RouteDoc {
  const isXml = which === 'xml';
  return apiRoute({
    method: 'get',
    path: `/api/descargar/{clave}/${which}`,
    operationId: isXml ? 'downloadDocumentXml' : 'downloadHaciendaResponse',
    tag: 'documentos',
    summary: isXml
      ? 'The signed comprobante (XML)'
      : "Hacienda's answer to the document (MensajeHacienda XML)",
    ...(isXml
      ? {}
      : {
          description: 'Available once Hacienda has given its final answer (estado aceptado or rechazado).',
        }),
    parameters: [CLAVE_PARAMETER],
    ok: {
      status: 200,
      description: isXml ? 'the signed XML as sent to Hacienda' : "Hacienda's signed MensajeHacienda",
      body: {
        schema: XmlDocument,
        contentType: 'application/xml',
        examples: { example: { value: isXml ? ex.comprobanteXmlExample : ex.respuestaXmlExample } },
      },
      headers: {
        'Content-Disposition': {
          description: isXml
            ? 'attachment; filename="<clave>.xml"'
            : 'attachment; filename="<clave>_respuesta.xml"',
          schema: { type: 'string' },
        },
      },
    },
    errors: [
      { code: 'bad_request', when: 'clave is not 50 digits', message: 'clave: must be 50 digits' },
      {
        code: 'not_found',
        when: 'no document of the tenant has this clave',
        message: `clave: document ${ex.EXAMPLE_CLAVE} not found`,
      },
      ...(isXml
        ? []
        : [
            {
              code: 'not_found' as const,
              when: 'Hacienda has not answered yet',
              message: `clave: Hacienda's answer to ${ex.EXAMPLE_CLAVE} is not available yet (estado enviado)`,
            },
          ]),
    ],
  });
}

/** A PDF file (the printable representation of a comprobante). */
const PdfDocument = Type.String({
  $id: 'https://schemas.cr-einvoice.dev/pdf-document.json',
  contentMediaType: 'application/pdf',
  format: 'binary',
  description: 'a PDF file',
});

function downloadPdf(): RouteDoc {
  return apiRoute({
    method: 'get',
    path: '/api/descargar/{clave}/pdf',
    operationId: 'downloadDocumentPdf',
    tag: 'entrega',
    summary: 'The printable representation of the document (PDF, letter or 80 mm ticket)',
    description:
      "Issuer and receptor, clave and consecutivo, every line with its CABYS code, taxes and exonerations, the summary with the tax breakdown, payment means, references, Hacienda's legend and a QR code with the clave; the tenant's logo and footer (`configurar/marca`). The same document and branding always give the same bytes, so this file equals the e-mail attachment and the webhook's PDF entry. Available from submission on (a ticket is printed at once), refused once Hacienda rejected the document.",
    parameters: [
      CLAVE_PARAMETER,
      {
        name: 'formato',
        in: 'query',
        description:
          'carta (letter) or tiquete (80 mm); default tiquete for a ticket, carta for every other kind',
        schema: { type: 'string', enum: ['carta', 'tiquete'] },
        example: 'carta',
      },
    ],
    ok: {
      status: 200,
      description: 'the PDF',
      body: { schema: PdfDocument, contentType: 'application/pdf', examples: {} },
      headers: {
        'Content-Disposition': {
          description: 'attachment; filename="<clave>.pdf"',
          schema: { type: 'string' },
        },
      },
    },
    errors: [
      { code: 'bad_request', when: 'clave is not 50 digits', message: 'clave: must be 50 digits' },
      {
        code: 'bad_request',
        when: 'formato is not carta or tiquete',
        message: 'formato: must be one of carta, tiquete',
      },
      {
        code: 'not_found',
        when: 'no document of the tenant has this clave',
        message: `clave: document ${ex.EXAMPLE_CLAVE} not found`,
      },
      {
        code: 'conflict',
        when: 'Hacienda rejected the document (or refused its submission)',
        message: `clave: document ${ex.EXAMPLE_CLAVE} was not accepted by Hacienda (estado rechazado); it has no PDF`,
      },
      {
        code: 'conflict',
        when: "the clave is a received document's: its answer (MensajeReceptor) is XML only",
        message: `clave: ${ex.EXAMPLE_CLAVE} is a received document; its answer (MensajeReceptor) has no PDF: download it with /xml, and Hacienda's verdict with /respuesta`,
      },
      {
        code: 'too_many_requests',
        when: 'the tenant already has PDF_RENDERS_PER_TENANT downloads rendering (with `Retry-After: 1`)',
        message: 'too many PDF renders at once for this tenant; retry in 1 s',
        headers: RETRY_AFTER,
      },
    ],
  });
}

/** Issuer registrations and updates open a .p12 each: a tenant has a window of them (issuer-write-limit.ts). */
const ISSUER_WRITES_LIMITED: ErrorDoc = {
  code: 'too_many_requests',
  when: 'the tenant used up its window of issuer registrations and updates (ISSUER_WRITE_RATE_LIMIT per ISSUER_WRITE_RATE_WINDOW_SECONDS, with `Retry-After`); nothing is stored',
  message: 'too many issuer registrations or updates for this tenant; retry in 42 s',
  headers: RETRY_AFTER,
};

/** A body's examples plus further named ones. */
function withMoreExamples(
  body: BodyDoc,
  more: Record<string, { summary: string; value: unknown }> | undefined,
): BodyDoc {
  return more ? { ...body, examples: { ...body.examples, ...more } } : body;
}

/** Every route of the tenant API, as the document describes it (exported for the example tests). */
export function tenantApiRoutes(): RouteDoc[] {
  return [
    apiRoute({
      path: '/api/enviar/emisor',
      operationId: 'registerIssuer',
      tag: 'emisor',
      summary: 'Register an issuer with its Hacienda credentials and .p12 certificate',
      description:
        "Registering the same data again succeeds (idempotent). The certificate must open with the PIN, be current, and name the issuer. The issuer is also compared with Hacienda's taxpayer registry (registered id, active activity, legal name): what disagrees comes back as `warnings`, never as a refusal.",
      body: {
        schema: EmisorRegistration,
        example: ex.emisorRegistrationExample,
        badExample: 'certificadoHacienda: cannot be opened with pinCertificado',
      },
      ok: emisorWritten('registered (or already registered with the same data)', ex.emisorRegisteredExample),
      errors: [
        {
          code: 'conflict',
          when: 'the issuer is registered with other data',
          message:
            'identificacion: issuer 3101123456 is already registered; use /api/actualizar/emisor to change it',
        },
        ISSUER_WRITES_LIMITED,
      ],
    }),
    apiRoute({
      path: '/api/actualizar/emisor',
      operationId: 'updateIssuer',
      tag: 'emisor',
      summary: "Replace a registered issuer's data",
      body: {
        schema: EmisorRegistration,
        example: ex.emisorRegistrationExample,
        badExample: 'ubicacion.canton: must match pattern ^(0[1-9]|[1-9][0-9])$',
      },
      ok: emisorWritten('updated', ex.emisorUpdatedExample),
      errors: [
        {
          code: 'not_found',
          when: 'the issuer is not registered',
          message: 'identificacion: issuer 3101123456 is not registered',
        },
        ISSUER_WRITES_LIMITED,
      ],
    }),
    apiRoute({
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
    apiRoute({
      method: 'get',
      path: '/api/emisores',
      operationId: 'listIssuers',
      tag: 'emisor',
      summary: "The tenant's issuers, with how long each certificate has left",
      description:
        "`porVencer` is true when the certificate expires within the service's warning window (CERT_EXPIRY_WARNING_DAYS, 30 days by default) or has expired: renew the .p12 at ATV and send it with /api/actualizar/emisor.",
      ok: {
        status: 200,
        description: 'every issuer of the tenant, by identificacion',
        body: json(EmisorListResponse, ex.emisorListExample),
      },
      errors: [],
    }),
    apiRoute({
      method: 'get',
      path: '/api/documentos',
      operationId: 'listDocuments',
      tag: 'documentos',
      summary: "The tenant's documents, newest first",
      description:
        'Filters combine (AND). Newest by emission first; `cursor` continues after the last row of the previous page with the same filters.',
      parameters: [
        {
          name: 'tipo',
          in: 'query',
          description:
            '1 invoice, 2 debit note, 3 credit note, 4 ticket, 8 purchase invoice, 9 export invoice, 10 payment receipt; 5, 6, 7 answers to received documents',
          schema: { type: 'string', enum: [...TIPOS_DOCUMENTO] },
        },
        {
          name: 'estado',
          in: 'query',
          description: 'pendiente, enviado, aceptado, rechazado or error',
          schema: { type: 'string', enum: ['pendiente', 'enviado', 'aceptado', 'rechazado', 'error'] },
        },
        ...EMISSION_DATES,
        {
          name: 'receptor',
          in: 'query',
          description:
            "the receptor's identification number without hyphens: a national one (digits) or a foreign one (Tipo 05, letters and digits)",
          schema: { type: 'string', pattern: '^[A-Za-z0-9]{1,20}$' },
        },
        {
          name: 'q',
          in: 'query',
          description:
            'text found in the clave, the consecutivo, the receptor number or the numeroReferencia',
          schema: { type: 'string', minLength: 1, maxLength: 50 },
        },
        ...PAGE_PARAMETERS,
      ],
      ok: {
        status: 200,
        description: 'one page; `cursor` is null on the last one',
        body: json(DocumentListResponse, ex.documentListExample),
      },
      errors: [
        {
          code: 'bad_request',
          when: 'a filter or the cursor is malformed, or a parameter is unknown',
          message: 'estado: must be one of pendiente, enviado, aceptado, rechazado, error',
        },
      ],
    }),
    apiRoute({
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
    apiRoute({
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
        fieldsRefused('clave'),
        {
          code: 'not_found',
          when: 'no webhook is configured',
          message: 'no webhook is configured; use /api/configurar/webhook',
        },
      ],
    }),
    apiRoute({
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
        description:
          'the event is queued; while a replay of this document is still waiting, asking again answers that replay (its `eventId`) instead of queueing another. `webhook` says whether it will be delivered: without a URL, or with the endpoint deactivated by a 410 Gone, it is only recorded as not delivered',
        body: withMoreExamples(
          json(WebhookReplayResponse, ex.webhookReplayResponseExample, 'the endpoint is active'),
          {
            sinUrl: { summary: 'no webhook URL is configured', value: ex.webhookReplayNoUrlExample },
            desactivado: {
              summary: 'the receiver answered 410 Gone',
              value: ex.webhookReplayDeactivatedExample,
            },
          },
        ),
      },
      errors: [
        {
          code: 'too_many_requests',
          when: 'the tenant used up its window of replays (WEBHOOK_REPLAY_RATE_LIMIT, with `Retry-After`)',
          message: 'too many webhook replays for this tenant; retry in 42 s',
          headers: RETRY_AFTER,
        },
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
    apiRoute({
      path: '/api/enviar/items',
      operationId: 'submitDocument',
      tag: 'documentos',
      summary:
        'Submit a document (invoice, debit or credit note, ticket, purchase or export invoice, payment receipt) to Hacienda',
      description:
        "Validates the body (the contract, then Hacienda's rules: amounts, receptor, references), confirms any exoneration of type 04 or 11 with Hacienda and any CABYS code the service's catalogue lacks, then numbers, builds and signs the v4.4 XML and queues it. Hacienda's answer follows asynchronously (see `consultar/documento` and the webhook). The same body with the same numeroReferencia answers the same clave again; an `Idempotency-Key` header makes any retry safe for 24 h.",
      parameters: [
        {
          name: 'Idempotency-Key',
          in: 'header',
          description:
            'optional: a retry with the same key and body gets the first answer again (24 h, per tenant); 1 to 255 visible ASCII characters',
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
          example: 'factura-33',
        },
      ],
      body: {
        schema: DocumentRequest,
        example: ex.documentRequestExample,
        badExample: 'detalleServicio[0].precioUnitario: must match pattern ^\\d{1,13}(\\.\\d{1,5})?$',
        moreExamples: {
          multiTax: {
            summary: 'Several taxes and discounts on one line (selectivo, alcohol, IVA; a regalía)',
            value: ex.multiTaxRequestExample,
          },
          surtido: {
            summary: 'A surtido (package) line: its components with their own taxes (DetalleSurtido)',
            value: ex.surtidoRequestExample,
          },
          debitNote: { summary: 'Nota de débito (tipoDoc 2)', value: ex.debitNoteRequestExample },
          purchaseInvoice: {
            summary: 'Factura de compra (tipoDoc 8): the supplier as proveedor',
            value: ex.purchaseInvoiceRequestExample,
          },
          exportInvoice: {
            summary: 'Factura de exportación (tipoDoc 9): foreign receptor, USD, tariff heading',
            value: ex.exportInvoiceRequestExample,
          },
          paymentReceipt: {
            summary: 'Recibo electrónico de pago (tipoDoc 10) for a sale on credit',
            value: ex.paymentReceiptRequestExample,
          },
        },
      },
      ok: {
        status: 200,
        description: 'received and queued for Hacienda (or received before with the same body)',
        body: json(EnviarItemsResponse, ex.enviarItemsResponseExample),
      },
      errors: [
        {
          code: 'bad_request',
          when: "the document breaks one of Hacienda's rules (each offending field in `details`)",
          message: 'detalleServicio[0].montoTotalLinea: does not match the computed amount (tolerance 0.01)',
        },
        {
          code: 'bad_request',
          when: 'an exoneration of type 04 or 11 is not backed by Hacienda (unknown, expired, another receptor, CABYS not covered, percentage too high)',
          message:
            'detalleServicio[0].codigo: CABYS 2399101000100 is not among the codes exoneration AL-00020402-24 covers (8314300000000)',
        },
        {
          code: 'bad_request',
          when: "a CABYS code (a line's or a surtido component's) is not in Hacienda's catalogue: a code the service's catalogue lacks is asked of Hacienda's public API before signing, so no consecutivo is spent; one Hacienda cannot be asked about (down, the tenant's lookups used up) is left to Hacienda",
          message: "detalleServicio[1].codigo: CABYS 9999999999999 is not in Hacienda's catalogue",
        },
        {
          code: 'bad_request',
          when: 'the Idempotency-Key header is malformed',
          message: 'Idempotency-Key: must be 1 to 255 visible ASCII characters',
        },
        {
          code: 'not_found',
          when: 'the emisor is not registered for this tenant',
          message: 'emisor: issuer 3101999999 is not registered',
        },
        {
          code: 'conflict',
          when: 'numeroReferencia was already used for this issuer, branch, terminal and type with another body',
          message: `numeroReferencia: this number was already used by document ${ex.EXAMPLE_CLAVE} with a different body`,
        },
        {
          code: 'conflict',
          when: 'a request with this Idempotency-Key is still being processed (with `Retry-After: 1`: ask again, the same key then gets its answer; a conflict of numeroReferencia has no Retry-After)',
          message: 'Idempotency-Key: a request with this key is still being processed',
          headers: RETRY_AFTER,
        },
        {
          code: 'conflict',
          when: 'the issuer was updated (POST /api/actualizar/emisor) while the document was being signed, three times in a row: each time the document is signed again with the issuer as it is, never stored with what it was; nothing is stored and numeroReferencia stays free (with `Retry-After: 1`: send it again)',
          message:
            'emisor: the issuer was updated while this document was being signed, several times in a row; nothing was stored: send the document again',
          headers: RETRY_AFTER,
        },
        {
          code: 'unprocessable',
          when: 'the Idempotency-Key was used with a different body',
          message: 'Idempotency-Key: this key was already used with a different request body',
        },
        {
          code: 'unprocessable',
          when: "the emisor's certificate has expired (or is not valid yet) by the service's clock: Hacienda rejects what it signs, so nothing is signed or stored and numeroReferencia stays free; upload a renewed .p12 with POST /api/actualizar/emisor, then send the document again",
          message:
            'emisor: the certificate of issuer 3101123456 expired at 2026-12-08T21:22:45-06:00; upload a renewed .p12 with POST /api/actualizar/emisor',
        },
        {
          ...LOOKUP_LIMITED,
          when: "confirming an exoneration of type 04 or 11 needs a lookup that reaches Hacienda's public API (not cached) and the tenant used up its window of lookups (HACIENDA_LOOKUP_RATE_LIMIT, with `Retry-After`); nothing is stored (a CABYS code is then left to Hacienda, not refused)",
        },
        {
          code: 'too_many_requests',
          when: 'the tenant already has SUBMISSIONS_PER_TENANT submissions in progress in the process that took the request (with `Retry-After: 1`); nothing is stored',
          message: 'too many submissions at once for this tenant; retry in 1 s',
          headers: RETRY_AFTER,
        },
        {
          ...hacienda502('/fe/ex'),
          when: "an exoneration of type 04 or 11 could not be confirmed because Hacienda's public API failed on every retry, is paused after its 429, or gave the check no turn within HACIENDA_LOOKUP_MAX_WAIT_MS (these two with `Retry-After`); nothing is stored",
        },
      ],
    }),
    apiRoute({
      path: '/api/consultar/documento',
      operationId: 'getDocument',
      tag: 'documentos',
      summary: "A document's state, Hacienda's message and the webhook deliveries",
      description:
        '`estado` goes pendiente → enviado → aceptado | rechazado (or error when Hacienda refused the submission itself; `mensajeHacienda.errorCause` then says why). A clave of another tenant is answered as unknown.',
      body: {
        schema: DocumentQuery,
        example: ex.documentQueryExample,
        badExample: 'clave: must match pattern ^\\d{50}$',
      },
      ok: {
        status: 200,
        description: 'the document',
        body: {
          schema: DocumentQueryResponse,
          examples: {
            example: { summary: 'accepted, event delivered', value: ex.documentQueryResponseExample },
            rechazado: {
              summary: "rejected, with Hacienda's detail",
              value: ex.documentRejectedResponseExample,
            },
          },
        },
      },
      errors: [
        {
          code: 'not_found',
          when: 'no document of the tenant has this clave',
          message: `clave: document ${ex.EXAMPLE_CLAVE} not found`,
        },
      ],
    }),
    download('xml'),
    download('respuesta'),
    downloadPdf(),
    apiRoute({
      path: '/api/configurar/marca',
      operationId: 'configureBranding',
      tag: 'entrega',
      summary: "Set the logo and footer of the tenant's PDFs",
      description:
        'Replaces the branding: what the body leaves out is removed. The logo must be a PNG or JPEG (checked by its content) of at most 150 KB.',
      body: {
        schema: MarcaConfigRequest,
        example: ex.marcaConfigRequestExample,
        badExample: 'logo: the PNG is damaged (its image data does not inflate to its size)',
      },
      ok: {
        status: 200,
        description: 'the branding now in use',
        body: json(MarcaConfigResponse, ex.marcaConfigResponseExample),
      },
      errors: [
        {
          code: 'too_many_requests',
          when: 'the tenant used up its window of branding changes (BRANDING_WRITE_RATE_LIMIT, with `Retry-After`)',
          message: 'too many branding changes for this tenant; retry in 42 s',
          headers: RETRY_AFTER,
        },
      ],
    }),
    apiRoute({
      path: '/api/configurar/correo',
      operationId: 'configureMail',
      tag: 'entrega',
      summary: "Set the SMTP server that sends the tenant's e-mails to its receptors",
      description:
        "Once Hacienda accepts a document, its receptor's correoElectronico (and the request's `copias`) get the signed XML, Hacienda's answer and the PDF. Without settings of its own the tenant uses the platform's server; `{predeterminado: true}` returns to it. The password is stored sealed and never shown again. A host that resolves to a private or loopback address is refused (unless the operator allows it).",
      body: {
        schema: CorreoConfigRequest,
        example: ex.correoConfigRequestExample,
        badExample: 'host: must not resolve to a private, loopback or reserved address',
      },
      ok: {
        status: 200,
        description: 'the settings now in use (never the password)',
        body: json(CorreoConfigResponse, ex.correoConfigResponseExample),
      },
      errors: [],
    }),
    apiRoute({
      path: '/api/consultar/correo',
      operationId: 'getMail',
      tag: 'entrega',
      summary: "Which SMTP server sends the tenant's e-mails",
      ok: {
        status: 200,
        description: 'the settings in use (never the password)',
        body: json(CorreoConfigResponse, ex.correoConfigResponseExample),
      },
      errors: [fieldsRefused('clave')],
    }),
    apiRoute({
      path: '/api/reenviar/correo',
      operationId: 'resendMail',
      tag: 'entrega',
      summary: "Send an accepted document's e-mail again",
      description:
        'A new e-mail (shown in `consultar/documento` under `correo.envios`) to `destinatarios`, or by default to the receptor and the copias of the request.',
      body: {
        schema: CorreoResendRequest,
        example: ex.correoResendRequestExample,
        badExample: 'clave: must match pattern ^\\d{50}$',
      },
      ok: {
        status: 200,
        description: 'the e-mail is queued',
        body: json(CorreoResendResponse, ex.correoResendResponseExample),
      },
      errors: [
        {
          code: 'too_many_requests',
          when: 'the tenant used up its window of e-mail resends (MAIL_RESEND_RATE_LIMIT, with `Retry-After`)',
          message: 'too many e-mail resends for this tenant; retry in 42 s',
          headers: RETRY_AFTER,
        },
        {
          code: 'too_many_requests',
          when: "`destinatarios` names an address the document does not (neither its receptor nor its copias), the tenant has no SMTP server of its own, and it used up its daily budget of such resends through the platform's server (MAIL_RESEND_NEW_ADDRESS_LIMIT, with `Retry-After`); nothing is queued",
          message:
            "too many e-mail resends to addresses the document does not name, through the platform's server for this tenant; retry in 52000 s",
          headers: RETRY_AFTER,
        },
        {
          code: 'not_found',
          when: 'no document of the tenant has this clave',
          message: `clave: document ${ex.EXAMPLE_CLAVE} not found`,
        },
        {
          code: 'conflict',
          when: 'the document is not accepted, or it has no recipient',
          message: `clave: document ${ex.EXAMPLE_CLAVE} is not accepted (estado enviado); only accepted documents are e-mailed`,
        },
      ],
    }),
    {
      method: 'post',
      path: '/hacienda/callback/{token}',
      operationId: 'haciendaCallback',
      tag: 'documentos',
      summary:
        "Hacienda's notice that it finished processing a document (called by Hacienda, not by clients)",
      description:
        "The `callbackUrl` sent with each submission (PUBLIC_URL + this path). No token and no tenant host: it is served on any host, and the unguessable per-document token is the only key. Its body is neither read nor trusted: the call only brings the status check with Hacienda forward, and that check decides the document's state.",
      security: [],
      parameters: [
        {
          name: 'token',
          in: 'path',
          description: "the document's callback token (43 base64url characters)",
          schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' },
          example: 'q3Jd9xK2mZ7vB1nW8pL4tR6yH0cF5gA2sD9eU3iO7kM',
        },
      ],
      responses: [
        {
          status: 200,
          description: 'the status check is scheduled',
          body: json(SuccessMessage, ex.callbackResponseExample),
        },
      ],
      errors: [
        {
          code: 'not_found',
          when: 'the token is malformed or names no document',
          message: 'unknown callback',
        },
      ],
    },
    apiRoute({
      path: '/api/hacienda/cabys',
      operationId: 'searchCabys',
      tag: 'hacienda',
      summary: 'CABYS codes for a product or service name, best match first',
      description:
        "Searches the CABYS catalogue loaded by the service (words, word prefixes, or a 13-digit code); without a local catalogue it asks Hacienda's public API, and then the search counts against the tenant's lookup window.",
      body: {
        schema: CabysQuery,
        example: ex.cabysQueryExample,
        badExample: 'name: is required',
      },
      ok: {
        status: 200,
        description: 'the matches (possibly none)',
        body: json(CabysResponse, ex.cabysResponseExample),
      },
      errors: [
        {
          code: 'bad_request',
          when: 'name is only spaces',
          message: 'name: must contain a search text, not only spaces',
        },
        {
          ...LOOKUP_LIMITED,
          when: `${LOOKUP_LIMITED.when}; only without a local catalogue`,
        },
        {
          ...hacienda502('/fe/cabys'),
          when: `${hacienda502('/fe/cabys').when}; only without a local catalogue`,
        },
        {
          code: 'service_unavailable',
          when: "the service has neither a CABYS catalogue (HACIENDA_DATA_DIR or an imported file) nor Hacienda's public API (HACIENDA_PUBLIC_API_URL) to search",
          message:
            'no CABYS catalogue is loaded (HACIENDA_DATA_DIR or an imported file) and no HACIENDA_PUBLIC_API_URL is set',
        },
      ],
    }),
    apiRoute({
      path: '/api/hacienda/exoneracion',
      operationId: 'getExoneracion',
      tag: 'hacienda',
      summary: 'An exoneration authorization as Hacienda holds it, and whether it is in force',
      body: {
        schema: ExoneracionQuery,
        example: ex.exoneracionQueryExample,
        badExample: 'exoneracion: is required',
      },
      ok: {
        status: 200,
        description: 'the authorization; `estado` vigente or vencida (Costa Rica time)',
        body: json(ExoneracionResponse, ex.exoneracionResponseExample),
      },
      errors: [
        {
          code: 'bad_request',
          when: 'exoneracion is not an authorization number (two letters, 8 digits, 2 digits)',
          message:
            'exoneracion: must be an authorization number as Hacienda issues it, two letters, 8 digits and 2 digits (e.g. AL-00020402-24)',
        },
        {
          code: 'bad_request',
          when: 'Hacienda refuses the number as malformed',
          message: 'exoneracion: Hacienda refuses AL-00020402-24 as malformed',
        },
        {
          code: 'not_found',
          when: 'Hacienda has no such authorization',
          message: "exoneracion: AL-00020402-24 does not exist in Hacienda's records",
        },
        LOOKUP_LIMITED,
        hacienda502('/fe/ex'),
        {
          code: 'upstream_error',
          when: 'Hacienda answered an authorization without expiry or percentage',
          message: 'Hacienda public API answered an exoneration without expiry or percentage',
        },
      ],
    }),
    apiRoute({
      path: '/api/hacienda/contribuyente',
      operationId: 'getContribuyente',
      tag: 'hacienda',
      summary: "A taxpayer in Hacienda's registry: name, regime, status and economic activities",
      body: {
        schema: ContribuyenteQuery,
        example: ex.contribuyenteQueryExample,
        badExample: 'identificacion: must be 9 to 12 digits without hyphens or spaces (e.g. 3101123456)',
      },
      ok: {
        status: 200,
        description: 'the taxpayer',
        body: json(ContribuyenteResponse, ex.contribuyenteResponseExample),
      },
      errors: [
        {
          code: 'bad_request',
          when: 'Hacienda refuses the id as invalid',
          message: 'identificacion: Hacienda refuses 3101123456 as invalid',
        },
        {
          code: 'not_found',
          when: 'Hacienda has no taxpayer with this id',
          message: 'identificacion: 3101999999 is not registered as a taxpayer with Hacienda',
        },
        LOOKUP_LIMITED,
        hacienda502('/fe/ae'),
      ],
    }),
    ...recepcionRoutes(),
    ...healthRoutes('health', 'database'),
  ];
}

const RECEIVED_EXAMPLE = {
  clave: ex.EXAMPLE_CLAVE,
  tipo: '01',
  receptor: '3101779527',
  emisor: { tipo: '02', numero: '3101123456', nombre: 'EMPRESA DE PRUEBA SOCIEDAD ANONIMA' },
  fechaEmision: '2026-11-23T10:15:00-06:00',
  moneda: 'CRC',
  total: '11300.00000',
  impuestos: '1300.00000',
  findings: [
    { code: 'xsd', severity: 'info', message: 'valid against FacturaElectronica_V4.4.xsd' },
    { code: 'arithmetic', severity: 'info', message: 'lines and totals add up (§9)' },
  ],
  vence: '2026-12-11',
  estado: 'pendiente',
  origen: 'carga',
  respuesta: null,
  recibido: '2026-11-23T16:20:00.000Z',
};

const RECEIVED_PARAMETER: ParameterDoc = {
  ...CLAVE_PARAMETER,
  description: 'the 50-digit clave of a document received by one of the tenant issuers',
};

const RECEIVED_NOT_FOUND: ErrorDoc = {
  code: 'not_found',
  when: 'the tenant received no document with this clave',
  message: `clave: received document ${ex.EXAMPLE_CLAVE} not found`,
};

/** Receiving (issue 13): supplier documents, the receiver's answer and the import from Hacienda. */
function recepcionRoutes(): RouteDoc[] {
  const received = (description: string, status = 200): ResponseDoc => ({
    status,
    description,
    body: json(RecepcionDocumentResponse, { status: 'success', data: RECEIVED_EXAMPLE }),
  });
  const xmlDownload = (which: 'xml' | 'respuesta-hacienda'): RouteDoc =>
    apiRoute({
      method: 'get',
      path: `/api/recepcion/documentos/{clave}/${which}`,
      operationId: which === 'xml' ? 'downloadReceivedXml' : 'downloadReceivedHaciendaAnswer',
      tag: 'recepcion',
      summary:
        which === 'xml'
          ? "The supplier's signed comprobante, as received"
          : "Hacienda's answer to the supplier's document, when it was supplied",
      parameters: [RECEIVED_PARAMETER],
      ok: {
        status: 200,
        description: 'the XML',
        body: {
          schema: XmlDocument,
          contentType: 'application/xml',
          examples: { example: { value: ex.comprobanteXmlExample } },
        },
      },
      errors: [
        { code: 'bad_request', when: 'clave is not 50 digits', message: 'clave: must be 50 digits' },
        RECEIVED_NOT_FOUND,
      ],
    });
  return [
    apiRoute({
      path: '/api/recepcion/documentos',
      operationId: 'receiveDocument',
      tag: 'recepcion',
      summary: "Receive a supplier's signed comprobante for one of the tenant's issuers",
      description:
        "Checks the document independently: Base64 and XML (no DTD is ever accepted), a v4.4 root, the XAdES-EPES signature, the receptor (one of the tenant's issuers), the official XSD, the signer's certificate, the §9 arithmetic and, when given, Hacienda's answer (signed, accepted). What cannot be stored is a 400; the rest is kept as `findings`. `vence` is the last day to answer: the 8th business day of the month after the emission (Costa Rican weekends and holidays, docs/decisions/0015). The same XML again answers the same record (200).",
      body: {
        schema: RecepcionDocumentRequest,
        example: { receptor: '3101779527', xml: 'PD94bWwgdmVyc2lvbj0iMS4wIj8+...' },
        badExample:
          'xml: the signature does not verify: reference_digest (the referenced content was changed)',
        // RECEPCION_BODY_LIMIT's default (4mb): a supplier's XML in Base64 and Hacienda's answer.
        limitBytes: 4 * 1024 * 1024,
      },
      ok: [
        received('stored with its findings', 201),
        received('stored before with the same XML: the same record, nothing stored again'),
      ],
      errors: [
        {
          code: 'not_found',
          when: 'receptor is not an issuer of the tenant',
          message: 'receptor: issuer 3101779527 is not registered',
        },
        {
          code: 'too_many_requests',
          when: 'the tenant already has RECEPCION_UPLOADS_PER_TENANT uploads in progress (with `Retry-After: 1`)',
          message: 'too many uploads at once for this tenant; retry in 1 s',
          headers: RETRY_AFTER,
        },
        {
          code: 'bad_request',
          when: 'the body holds more than 16 `{` or `[`: it is one object of strings, checked before it is parsed',
          message:
            "request body holds more than 16 '{' or '[': this route takes one object of strings (receptor, xml, respuestaHacienda)",
        },
        {
          code: 'conflict',
          when: 'the clave was received before with another XML',
          message: `xml: document ${ex.EXAMPLE_CLAVE} was already received with a different XML`,
        },
      ],
    }),
    apiRoute({
      method: 'get',
      path: '/api/recepcion/documentos',
      operationId: 'listReceivedDocuments',
      tag: 'recepcion',
      summary: 'The documents received by the tenant, unanswered first, by deadline',
      parameters: [
        {
          name: 'estado',
          in: 'query',
          description:
            'pendiente (no accepted answer yet), respondiendo (answer with Hacienda) or respondido',
          schema: { type: 'string', enum: ['pendiente', 'respondiendo', 'respondido'] },
        },
        ...EMISSION_DATES,
        ...PAGE_PARAMETERS,
      ],
      ok: {
        status: 200,
        description: 'one page; `cursor` is null on the last one',
        body: json(RecepcionListResponse, { status: 'success', data: [RECEIVED_EXAMPLE], cursor: null }),
      },
      errors: [
        {
          code: 'bad_request',
          when: 'a filter or the cursor is malformed',
          message: 'desde: must be a date YYYY-MM-DD',
        },
      ],
    }),
    apiRoute({
      method: 'get',
      path: '/api/recepcion/documentos/{clave}',
      operationId: 'getReceivedDocument',
      tag: 'recepcion',
      summary: 'One received document: findings, deadline, state and latest answer',
      parameters: [RECEIVED_PARAMETER],
      ok: received('the document'),
      errors: [
        { code: 'bad_request', when: 'clave is not 50 digits', message: 'clave: must be 50 digits' },
        RECEIVED_NOT_FOUND,
      ],
    }),
    xmlDownload('xml'),
    xmlDownload('respuesta-hacienda'),
    apiRoute({
      path: '/api/recepcion/documentos/{clave}/respuesta',
      operationId: 'answerReceivedDocument',
      tag: 'recepcion',
      summary: 'Accept (1), partially accept (2) or reject (3) a received document with a MensajeReceptor',
      description:
        "Builds the v4.4 MensajeReceptor (consecutivo type 05/06/07 from `numeroReferencia`), checks its amounts against the document and the condición del IVA, signs it with the receptor issuer's key and submits it to Hacienda with that issuer's credentials. Hacienda's verdict arrives by webhook (`folioType: RECEIVER_MESSAGE`) and through `consultar/documento` with the received clave.",
      parameters: [RECEIVED_PARAMETER],
      body: {
        schema: RecepcionRespuestaRequest,
        example: { mensaje: 1, condicionImpuesto: '01', numeroReferencia: 1 },
        badExample: 'detalleMensaje: is required for a partial acceptance or a rejection',
      },
      ok: {
        status: 202,
        description:
          'signed and queued for Hacienda; the same request again (same number and body, for the same document) answers the same, with the state its answer has reached and nothing signed again',
        body: json(RecepcionRespuestaResponse, {
          status: 'success',
          message: "MensajeReceptor 00100001050000000001 signed; Hacienda's answer will follow by webhook",
          data: {
            clave: ex.EXAMPLE_CLAVE,
            mensaje: 1,
            consecutivo: '00100001050000000001',
            estado: 'pendiente',
          },
        }),
      },
      errors: [
        RECEIVED_NOT_FOUND,
        {
          code: 'conflict',
          when: 'another answer is already with Hacienda or was accepted, or numeroReferencia is used by another request',
          message: `clave: document ${ex.EXAMPLE_CLAVE} was already answered (consecutivo 00100001050000000001, aceptado at Hacienda)`,
        },
        {
          code: 'unprocessable',
          when: "the receptor issuer's certificate has expired (or is not valid yet) by the service's clock: Hacienda rejects what it signs, so nothing is signed or stored, the document stays unanswered and numeroReferencia free; upload a renewed .p12 with POST /api/actualizar/emisor, then answer again",
          message:
            'receptor: the certificate of issuer 3101779527 expired at 2026-12-08T21:22:45-06:00; upload a renewed .p12 with POST /api/actualizar/emisor',
        },
      ],
    }),
    apiRoute({
      path: '/api/recepcion/sincronizar',
      operationId: 'synchronizeReceivedDocuments',
      tag: 'recepcion',
      summary: 'Import what Hacienda lists as issued to one of the tenant issuers and is not stored yet',
      body: {
        schema: RecepcionSincronizarRequest,
        example: { receptor: '3101779527' },
        badExample: 'receptor: must match pattern ^[0-9]{9,12}$',
      },
      ok: {
        status: 200,
        description: 'what was listed, imported, already stored and skipped (with the reason)',
        body: json(RecepcionSincronizarResponse, {
          status: 'success',
          data: { listados: 2, importados: [ex.EXAMPLE_CLAVE], yaRegistrados: 1, omitidos: [] },
        }),
      },
      errors: [
        {
          code: 'not_found',
          when: 'receptor is not an issuer of the tenant',
          message: 'receptor: issuer 3101779527 is not registered',
        },
        {
          code: 'upstream_error',
          when: "Hacienda's listing failed",
          message: 'Hacienda: GET /comprobantes answered serverError',
        },
        {
          code: 'too_many_requests',
          when: 'the tenant used up its window of synchronizations (RECEPCION_SYNC_LIMIT per RECEPCION_SYNC_WINDOW_SECONDS), or already has RECEPCION_UPLOADS_PER_TENANT uploads or synchronizations in progress (with `Retry-After`)',
          message: 'too many synchronizations with Hacienda for this tenant; retry in 42 s',
          headers: RETRY_AFTER,
        },
        {
          code: 'service_unavailable',
          when: "the issuer's Hacienda credentials cannot get a token now",
          message:
            "Hacienda: the IdP refused the issuer's credentials (invalid_credentials); try again later",
        },
      ],
    }),
    ...sessionRoutes(),
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
        name: 'documentos',
        description:
          "Electronic documents: submission to Hacienda, their state, the signed XML and Hacienda's answer; and Hacienda's callback",
      },
      {
        name: 'hacienda',
        description:
          "Lookups in Hacienda's public data (CABYS, exonerations, taxpayers); those reaching Hacienda are limited per tenant",
      },
      {
        name: 'webhook',
        description: "Events sent to the tenant's URL when a document reaches a final state",
      },
      {
        name: 'recepcion',
        description:
          "Documents suppliers issue to the tenant's issuers: checks, deadline, the receiver's answer (MensajeReceptor) and the import from Hacienda",
      },
      {
        name: 'entrega',
        description: 'Delivery to the receptor: the PDF and its branding',
      },
      { name: 'health', description: 'Probes for the orchestrator; served on any host, without a token' },
      {
        name: 'panel',
        description:
          'The web dashboard at /app: its browser session (cookie + CSRF, docs/dashboard.md); API clients use Bearer tokens',
      },
    ],
    securitySchemes: {
      ...healthSecurityScheme,
      ...sessionCookieSecurityScheme,
      [BEARER]: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: 'An access token from the auth-server (`POST /login`), issued to the tenant of the host',
      },
    },
    routes: tenantApiRoutes(),
    // BODY_LIMIT's default (256kb); the upload of received documents reads RECEPCION_BODY_LIMIT's.
    bodyLimitBytes: 256 * 1024,
  });
}
