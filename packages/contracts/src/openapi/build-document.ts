// Turns a list of route descriptions into an OpenAPI 3.1 document. The request and response bodies are
// the contracts' own TypeBox schemas (plain JSON Schema 2020-12 compatible), placed once in
// components/schemas under a name derived from their `$id` and referenced from every operation; every
// error response is the shared ErrorBody with the route's own list of `error` codes.
import type { TSchema } from '@sinclair/typebox';
import { ErrorBody, type ErrorCode } from '../error.schema';

/** The status each error code is answered with (the same mapping as service-kit's AppError). */
export const STATUS_OF_ERROR: Readonly<Record<ErrorCode, number>> = {
  bad_request: 400,
  unauthorized: 401,
  invalid_credentials: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unprocessable: 422,
  too_many_requests: 429,
  internal_error: 500,
  upstream_error: 502,
  service_unavailable: 503,
};

export type JsonObject = { [key: string]: unknown };
export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface BodyDoc {
  schema: TSchema;
  /** Named examples; each is validated against `schema` by the contracts' tests. */
  examples?: Record<string, { summary?: string; value: unknown }>;
  contentType?: string;
}

export interface ResponseDoc {
  status: number;
  description: string;
  body?: BodyDoc;
  headers?: Record<string, { description: string; schema: JsonObject }>;
}

export interface ErrorDoc {
  code: ErrorCode;
  /** When this route answers it, e.g. "a field is missing or malformed". */
  when: string;
  /** A message the service really produces for it (taken from the tests). */
  message: string;
  /** Headers the error response may carry, e.g. Retry-After on a 429. */
  headers?: Record<string, { description: string; schema: JsonObject }>;
}

export interface ParameterDoc {
  name: string;
  in: 'path' | 'query' | 'header';
  description: string;
  required?: boolean;
  schema: JsonObject;
  example?: unknown;
}

export interface RouteDoc {
  method: HttpMethod;
  /** OpenAPI path, with `{param}` placeholders. */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  /** Names of security schemes (any one suffices); empty: no authentication. */
  security: string[];
  parameters?: ParameterDoc[];
  requestBody?: BodyDoc;
  /** The largest body this route reads, when not the document's `bodyLimitBytes`. */
  bodyLimitBytes?: number;
  responses: ResponseDoc[];
  errors: ErrorDoc[];
}

export interface DocumentOptions {
  title: string;
  version: string;
  description: string;
  servers: JsonObject[];
  tags: { name: string; description: string }[];
  securitySchemes: Record<string, JsonObject>;
  routes: RouteDoc[];
  /** The largest request body the service reads by default (its 413 `payload_too_large` beyond it). */
  bodyLimitBytes: number;
}

const JSON_TYPE = 'application/json';

/** `https://schemas.cr-einvoice.dev/auth-create-client-request.json` → `AuthCreateClientRequest`. */
export function componentNameOf(schema: TSchema): string {
  const id = (schema as { $id?: unknown }).$id;
  if (typeof id !== 'string') throw new Error('openapi: a body schema needs an $id to become a component');
  const base = id.replace(/^.*\//, '').replace(/\.json$/, '');
  return base
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
}

/** A plain JSON copy of a TypeBox schema (its symbol keys dropped). */
function plain(schema: TSchema): JsonObject {
  return JSON.parse(JSON.stringify(schema)) as JsonObject;
}

class Components {
  readonly schemas: Record<string, JsonObject> = {};
  private readonly byId = new Map<string, string>();

  /** Registers a schema (and, first, every schema with an `$id` nested in it); returns its `$ref`. */
  ref(schema: TSchema): { $ref: string } {
    return { $ref: `#/components/schemas/${this.add(plain(schema))}` };
  }

  private add(schema: JsonObject): string {
    const id = schema.$id as string;
    const name = componentNameOf(schema as TSchema);
    const known = this.byId.get(id);
    if (known) return known;
    if (this.schemas[name]) throw new Error(`openapi: two schemas are named ${name}`);
    this.byId.set(id, name);
    const { $id: _id, ...rest } = schema;
    // The `$id` is dropped: inside the document a schema is known by its component name, and a nested
    // `$id` would change the base URI that `#/components/...` references are resolved against.
    this.schemas[name] = this.replaceNested(rest) as JsonObject;
    return name;
  }

  private replaceNested(node: unknown): unknown {
    if (Array.isArray(node)) return node.map((n) => this.replaceNested(n));
    if (node === null || typeof node !== 'object') return node;
    const obj = node as JsonObject;
    if (typeof obj.$id === 'string') return { $ref: `#/components/schemas/${this.add(obj)}` };
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(obj)) out[k] = this.replaceNested(v);
    return out;
  }
}

function content(components: Components, body: BodyDoc): JsonObject {
  const media: JsonObject = { schema: components.ref(body.schema) };
  if (body.examples) media.examples = body.examples;
  return { [body.contentType ?? JSON_TYPE]: media };
}

function errorResponses(components: Components, errors: ErrorDoc[]): Record<string, JsonObject> {
  const byStatus = new Map<number, ErrorDoc[]>();
  for (const e of errors) {
    const status = STATUS_OF_ERROR[e.code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), e]);
  }
  const out: Record<string, JsonObject> = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const codes = [...new Set(list.map((e) => e.code))];
    const examples: JsonObject = {};
    list.forEach((e, i) => {
      const key = examples[e.code] ? `${e.code}_${i}` : e.code;
      examples[key] = { summary: e.when, value: { error: e.code, message: e.message } };
    });
    const headers = Object.assign({}, ...list.map((e) => e.headers ?? {})) as JsonObject;
    out[String(status)] = {
      description: list.map((e) => `\`${e.code}\`: ${e.when}`).join('; '),
      ...(Object.keys(headers).length ? { headers } : {}),
      content: {
        [JSON_TYPE]: {
          // The shared ErrorBody, with `error` narrowed to the codes this route answers with this status.
          schema: {
            allOf: [components.ref(ErrorBody)],
            properties: { error: { type: 'string', enum: codes } },
          },
          examples,
        },
      },
    };
  }
  return out;
}

/** The 413 of a route that reads a body: the service's own limit, or the gateway's in front of it. */
function tooLarge(limitBytes: number): ErrorDoc {
  return {
    code: 'payload_too_large',
    when: 'the body is larger than this route reads (the gateway in front answers the same for its own limit)',
    message: `request body exceeds the limit of ${limitBytes} bytes`,
  };
}

function operation(components: Components, route: RouteDoc, bodyLimitBytes: number): JsonObject {
  const responses: Record<string, JsonObject> = {};
  for (const r of route.responses) {
    const res: JsonObject = { description: r.description };
    if (r.headers) res.headers = r.headers;
    if (r.body) res.content = content(components, r.body);
    responses[String(r.status)] = res;
  }
  const errors = route.requestBody
    ? [...route.errors, tooLarge(route.bodyLimitBytes ?? bodyLimitBytes)]
    : route.errors;
  for (const [status, res] of Object.entries(errorResponses(components, errors))) {
    if (responses[status]) throw new Error(`openapi: ${route.operationId} documents ${status} twice`);
    responses[status] = res;
  }
  const op: JsonObject = {
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
  };
  if (route.description) op.description = route.description;
  if (route.parameters?.length)
    op.parameters = route.parameters.map((p) => ({ ...p, required: p.in === 'path' ? true : !!p.required }));
  if (route.requestBody) op.requestBody = { required: true, content: content(components, route.requestBody) };
  op.responses = responses;
  op.security = route.security.map((name) => ({ [name]: [] }));
  return op;
}

export function buildDocument(options: DocumentOptions): JsonObject {
  const components = new Components();
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const route of options.routes) {
    const item = paths[route.path] ?? {};
    paths[route.path] = item;
    if (item[route.method]) throw new Error(`openapi: ${route.method} ${route.path} is described twice`);
    item[route.method] = operation(components, route, options.bodyLimitBytes);
  }
  return {
    openapi: '3.1.0',
    info: { title: options.title, version: options.version, description: options.description },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: options.servers,
    tags: options.tags,
    paths,
    components: { schemas: components.schemas, securitySchemes: options.securitySchemes },
  };
}
