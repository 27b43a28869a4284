// Pieces shared by both services' documents: the health routes, the errors every route may answer, and
// small helpers to write a route description briefly.
import type { TSchema } from '@sinclair/typebox';
import { LivenessResponse, ReadinessResponse } from '../operations.schema';
import type { BodyDoc, ErrorDoc, RouteDoc } from './build-document';
import { livenessExample, readinessExample } from './examples';

export const API_VERSION = '1.0.0';

/** A JSON body with one example named `example`. */
export function json(schema: TSchema, value?: unknown, summary?: string): BodyDoc {
  return value === undefined
    ? { schema }
    : { schema, examples: { example: { ...(summary ? { summary } : {}), value } } };
}

/** The 400 of a route that takes no fields (no body, or `{}`) for a body that holds one or is not an object. */
export function fieldsRefused(field: string): ErrorDoc {
  return {
    code: 'bad_request',
    when: 'the body holds a field or is not a JSON object: this route takes none (send no body, or `{}`)',
    message: `${field}: is not an allowed field`,
  };
}

/** The 400 every route with a JSON body answers for a body that is not JSON or fails its schema. */
export function badBody(message: string): ErrorDoc {
  return {
    code: 'bad_request',
    when: 'the body is not JSON, is compressed (bodies are read as sent: no `Content-Encoding`), or a field is missing or malformed',
    message,
  };
}

/** The 503 of a tenant-api replica that verified a token but has never loaded the revocation list. */
export const REVOCATIONS_NOT_LOADED: ErrorDoc = {
  code: 'service_unavailable',
  when: 'the token checked out but this replica has not yet loaded the revocation list from the auth-server (with `Retry-After`)',
  message: 'token revocations are not loaded from the auth-server yet; retry shortly',
  headers: {
    'Retry-After': {
      description: 'seconds to wait before asking again',
      schema: { type: 'integer', minimum: 1 },
    },
  },
};

export const NO_STORE = {
  'Cache-Control': {
    description: 'no-store: the answer holds a credential or changes at any time',
    schema: { type: 'string' },
  },
};

/** Security scheme of /health/details: the HEALTH_TOKEN setting. */
export const HEALTH_SCHEME = 'healthToken';
export const healthSecurityScheme = {
  [HEALTH_SCHEME]: {
    type: 'http',
    scheme: 'bearer',
    description: 'The HEALTH_TOKEN setting (operators and monitoring only)',
  },
};

export function healthRoutes(tag: string, readinessChecks: string): RouteDoc[] {
  return [
    {
      method: 'get',
      path: '/health/live',
      operationId: 'healthLive',
      tag,
      summary: 'Liveness: the process is up',
      security: [],
      responses: [
        { status: 200, description: 'the process answers', body: json(LivenessResponse, livenessExample) },
      ],
      errors: [],
    },
    ...(['/health/ready', '/health'] as const).map(
      (path): RouteDoc => ({
        method: 'get',
        path,
        operationId: path === '/health' ? 'health' : 'healthReady',
        tag,
        summary: 'Readiness: every dependency answers',
        description: `Runs the readiness checks (${readinessChecks}), each with a 2 s limit. Served on any host. Each check is \`ok\` or \`failing\`: the reasons are at /health/details, never here.`,
        security: [],
        responses: [
          { status: 200, description: 'every check passed', body: json(ReadinessResponse, readinessExample) },
          {
            status: 503,
            description: 'a check failed; `checks` names it (`failing`), without the reason',
            body: json(ReadinessResponse, { status: 'unavailable', checks: { database: 'failing' } }),
          },
        ],
        errors: [],
      }),
    ),
    {
      method: 'get',
      path: '/health/details',
      operationId: 'healthDetails',
      tag,
      summary: 'Readiness with the reason of each failing check (HEALTH_TOKEN)',
      description:
        'The same checks as /health/ready, with the reason of a failure (which may name hosts or errors of the inside). Answers 404 when HEALTH_TOKEN is not configured.',
      security: [HEALTH_SCHEME],
      responses: [
        { status: 200, description: 'every check passed', body: json(ReadinessResponse, readinessExample) },
        {
          status: 503,
          description: 'a check failed; `checks` names it and why',
          body: json(ReadinessResponse, { status: 'unavailable', checks: { database: 'timed out' } }),
        },
      ],
      errors: [
        {
          code: 'unauthorized',
          when: 'no or a wrong HEALTH_TOKEN',
          message: 'a valid health token is required',
        },
        {
          code: 'not_found',
          when: 'HEALTH_TOKEN is not configured',
          message: 'no route for GET /health/details',
        },
      ],
    },
  ];
}
