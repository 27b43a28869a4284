import type { TSchema } from '@sinclair/typebox';
import { validate } from '../ajv';
import { DocumentRequest } from '../document.schema';
import { ErrorBody } from '../error.schema';
import { documentRequestExample } from './examples';
import { authServerRoutes, buildAuthServerOpenApi } from './auth-server.openapi';
import { type JsonObject, type RouteDoc, STATUS_OF_ERROR, componentNameOf } from './build-document';
import { buildTenantApiOpenApi, tenantApiRoutes } from './tenant-api.openapi';

type Validator = {
  validate(spec: JsonObject): Promise<{ valid: boolean; errors?: unknown }>;
  resolveRefs(): JsonObject;
  version: string;
};

async function openApiValidator(): Promise<Validator> {
  // The validator is an ES module; loaded the native way (not through the CommonJS transform).
  const load = new Function('m', 'return import(m)') as (
    m: string,
  ) => Promise<{ Validator: new () => Validator }>;
  const { Validator } = await load('@seriousme/openapi-schema-validator');
  return new Validator();
}

const documents: [string, () => JsonObject, () => RouteDoc[]][] = [
  ['auth-server', () => buildAuthServerOpenApi(), authServerRoutes],
  ['tenant-api', () => buildTenantApiOpenApi(), tenantApiRoutes],
];

function refsOf(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const n of node) refsOf(n, out);
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refsOf(v, out);
    }
  }
  return out;
}

function resolvePointer(doc: JsonObject, ref: string): unknown {
  return ref
    .slice(2)
    .split('/')
    .reduce<unknown>((node, seg) => (node as Record<string, unknown> | undefined)?.[seg], doc);
}

describe.each(documents)('the %s OpenAPI document', (_name, build, routes) => {
  it('when validated against the OpenAPI 3.1 schema, then it is valid', async () => {
    const validator = await openApiValidator();
    const result = await validator.validate(build());
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('when a response loses its description, then the validator refuses the document (it really checks)', async () => {
    const doc = build();
    const paths = doc.paths as Record<string, Record<string, { responses: Record<string, JsonObject> }>>;
    const first = Object.values(Object.values(paths)[0]!)[0]!;
    delete Object.values(first.responses)[0]!.description;
    const result = await (await openApiValidator()).validate(doc);
    expect(result.valid).toBe(false);
  });

  it('when every $ref is followed, then it lands on a schema of the document', () => {
    const doc = build();
    const refs = refsOf(doc);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      expect(ref).toMatch(/^#\/components\/schemas\/[A-Za-z0-9]+$/);
      expect(resolvePointer(doc, ref)).toEqual(expect.any(Object));
    }
    // No `$id` inside: it would move the base URI that the references resolve against.
    expect(JSON.stringify(doc)).not.toContain('"$id"');
  });

  it('when built twice, then it is the same JSON (it can be served and cached as is)', () => {
    expect(JSON.stringify(build())).toBe(JSON.stringify(build()));
  });

  it.each(routes().map((r) => [`${r.method.toUpperCase()} ${r.path}`, r] as const))(
    'when %s has examples, then each one is valid against its schema',
    (_label, route) => {
      const bodies = [route.requestBody, ...route.responses.map((r) => r.body)].filter(
        (b): b is NonNullable<typeof b> => b !== undefined,
      );
      for (const body of bodies) {
        for (const [name, example] of Object.entries(body.examples ?? {})) {
          const result = validate(body.schema as TSchema, example.value);
          if (!result.ok)
            throw new Error(
              `${componentNameOf(body.schema)} example ${name}: ${JSON.stringify(result.issues)}`,
            );
        }
      }
      if (route.requestBody) expect(route.requestBody.examples).toBeDefined();
      for (const e of route.errors) {
        expect(validate(ErrorBody, { error: e.code, message: e.message }).ok).toBe(true);
        expect(e.message.length).toBeGreaterThan(5);
      }
    },
  );

  it('when an operation is read, then every error response names its codes and they match its status', () => {
    const doc = build();
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, JsonObject>>)) {
      for (const [method, op] of Object.entries(item)) {
        for (const [status, res] of Object.entries(op.responses as Record<string, JsonObject>)) {
          if (Number(status) < 400 || path.startsWith('/health')) continue;
          const media = (res.content as Record<string, JsonObject>)['application/json']!;
          const codes = ((media.schema as JsonObject).properties as { error: { enum: string[] } }).error.enum;
          expect(codes.length).toBeGreaterThan(0);
          for (const code of codes)
            expect([method, path, STATUS_OF_ERROR[code as keyof typeof STATUS_OF_ERROR]]).toEqual([
              method,
              path,
              Number(status),
            ]);
          for (const ex of Object.values(media.examples as Record<string, { value: { error: string } }>))
            expect(codes).toContain(ex.value.error);
        }
      }
    }
  });
});

describe('the tenant-api document', () => {
  it('when read, then every /api operation needs the Bearer token and answers 401, 404 (unknown host) and 503 (revocations not loaded, with Retry-After)', () => {
    const doc = buildTenantApiOpenApi();
    const paths = doc.paths as Record<string, Record<string, JsonObject>>;
    const api = Object.entries(paths).filter(([p]) => p.startsWith('/api/'));
    expect(api.length).toBeGreaterThanOrEqual(6);
    for (const [, item] of api) {
      for (const op of Object.values(item)) {
        expect(op.security).toEqual([{ bearerAuth: [] }]);
        expect(Object.keys(op.responses as JsonObject)).toEqual(
          expect.arrayContaining(['401', '404', '503']),
        );
        expect(op.responses).toHaveProperty(['503', 'headers', 'Retry-After']);
      }
    }
  });

  it('when a base domain is given, then the server is the tenant subdomain under it', () => {
    const doc = buildTenantApiOpenApi({ baseDomain: 'api.factura.cr' });
    expect(doc.servers).toEqual([
      expect.objectContaining({
        url: 'https://{tenant}.api.factura.cr',
        variables: { tenant: expect.objectContaining({ default: 'acme' }) },
      }),
      { url: '/', description: expect.any(String) },
    ]);
  });

  it('when the issuer registration body is described, then it is the contract schema by reference', () => {
    const doc = buildTenantApiOpenApi();
    const op = (doc.paths as Record<string, Record<string, JsonObject>>)['/api/enviar/emisor']!.post!;
    expect(JSON.stringify(op.requestBody)).toContain('#/components/schemas/EmisorRegistration');
    const schemas = (doc.components as { schemas: Record<string, JsonObject> }).schemas;
    expect(schemas.EmisorRegistration!.required).toEqual(
      expect.arrayContaining(['identificacion', 'certificadoHacienda']),
    );
  });
});

describe('the tenant-api document: documents, callback and lookups', () => {
  const paths = () => buildTenantApiOpenApi().paths as Record<string, Record<string, JsonObject>>;
  const responses = (path: string, method: string) =>
    paths()[path]![method]!.responses as Record<string, JsonObject>;

  it('when the downloads are read, then they answer application/xml and take the clave from the path', () => {
    for (const which of ['xml', 'respuesta']) {
      const op = paths()[`/api/descargar/{clave}/${which}`]!.get!;
      const ok = responses(`/api/descargar/{clave}/${which}`, 'get')['200']!;
      expect(Object.keys(ok.content as JsonObject)).toEqual(['application/xml']);
      expect(ok.headers).toHaveProperty('Content-Disposition');
      expect(op.parameters).toEqual([expect.objectContaining({ name: 'clave', in: 'path', required: true })]);
    }
    expect(JSON.stringify(responses('/api/descargar/{clave}/respuesta', 'get')['404'])).toContain(
      'is not available yet',
    );
  });

  it('when the callback is read, then it needs no token and answers no 401', () => {
    const op = paths()['/hacienda/callback/{token}']!.post!;
    expect(op.security).toEqual([]);
    expect(Object.keys(op.responses as JsonObject)).toEqual(['200', '404']);
  });

  it('when the submission is read, then it takes the optional Idempotency-Key and answers 403 (scope), 409, 413, 422, 429 (its exoneration lookups) and 502', () => {
    const op = paths()['/api/enviar/items']!.post!;
    expect(op.parameters).toEqual([
      expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false }),
    ]);
    expect(Object.keys(op.responses as JsonObject)).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '422',
      '429',
      '502',
      '503',
    ]);
    expect(op.responses).toHaveProperty(['429', 'headers', 'Retry-After']);
  });

  it('when an operation reads a body, then it answers 413 payload_too_large naming its limit (the upload of received documents 4 MB)', () => {
    const limits: Record<string, string> = {};
    for (const [path, item] of Object.entries(paths())) {
      for (const [method, op] of Object.entries(item)) {
        const tooLarge = JSON.stringify((op.responses as JsonObject)['413'] ?? null);
        if (op.requestBody)
          expect([method, path, tooLarge]).toEqual([
            method,
            path,
            expect.stringContaining('payload_too_large'),
          ]);
        else expect([method, path, tooLarge]).toEqual([method, path, 'null']);
        if (op.requestBody)
          limits[`${method} ${path}`] = /exceeds the limit of (\d+) bytes/.exec(tooLarge)![1]!;
      }
    }
    expect(limits['post /api/enviar/items']).toBe(String(256 * 1024));
    expect(limits['post /api/recepcion/documentos']).toBe(String(4 * 1024 * 1024));
  });

  it.each(['/api/reenviar/correo', '/api/reenviar/webhook'])(
    'when the resend %s is read, then it answers 429 too_many_requests with Retry-After',
    (path) => {
      const r = responses(path, 'post');
      expect(r['429']!.headers).toHaveProperty('Retry-After');
      expect(JSON.stringify(r['429'])).toContain('too_many_requests');
    },
  );

  it.each(['/api/hacienda/exoneracion', '/api/hacienda/contribuyente', '/api/hacienda/cabys'])(
    'when the lookup %s is read, then it answers 429 and 502 with Retry-After',
    (path) => {
      const r = responses(path, 'post');
      expect(r['429']!.headers).toHaveProperty('Retry-After');
      expect(r['502']!.headers).toHaveProperty('Retry-After');
      expect(JSON.stringify(r['429'])).toContain('too_many_requests');
    },
  );

  it('when the issuer writes are read, then they answer EmisorWriteResponse with a warnings example', () => {
    for (const path of ['/api/enviar/emisor', '/api/actualizar/emisor']) {
      const ok = JSON.stringify(responses(path, 'post')['200']);
      expect(ok).toContain('#/components/schemas/EmisorWriteResponse');
      expect(ok).toContain('"warnings"');
    }
  });
});

describe('the auth-server document', () => {
  it('when read, then the admin API uses the admin token and the login answers invalid_credentials', () => {
    const doc = buildAuthServerOpenApi();
    const paths = doc.paths as Record<string, Record<string, JsonObject>>;
    for (const [p, item] of Object.entries(paths).filter(([p]) => p.startsWith('/admin/')))
      for (const op of Object.values(item)) expect([p, op.security]).toEqual([p, [{ adminToken: [] }]]);
    const login = paths['/login']!.post!;
    const r401 = (login.responses as Record<string, JsonObject>)['401']!;
    expect(JSON.stringify(r401)).toContain('invalid_credentials');
    expect(login.security).toEqual([]);
  });
});

describe('componentNameOf', () => {
  it('when given a schema $id, then the name is its file name in PascalCase', () => {
    expect(
      componentNameOf({ $id: 'https://schemas.cr-einvoice.dev/auth-create-client-request.json' } as TSchema),
    ).toBe('AuthCreateClientRequest');
  });
});

describe('the document request example', () => {
  it('when validated against DocumentRequest, then it is valid (it is shown by the document routes)', () => {
    expect(validate(DocumentRequest, documentRequestExample)).toMatchObject({ ok: true });
  });
});
