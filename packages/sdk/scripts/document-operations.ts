// Lists the operations of an OpenAPI document in the shape the generated operations map records.
export type Service = 'auth' | 'tenant';

export interface DocumentOperation {
  key: `${Service}.${string}`;
  service: Service;
  operationId: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  /** 'bearer': the client's token; 'admin': an operator token; 'none': no Authorization. */
  auth: 'bearer' | 'admin' | 'none';
  request: 'json' | 'none';
  /** How the success body is read. */
  response: 'json' | 'text' | 'binary' | 'none';
  pathParams: string[];
}

type JsonObject = { [key: string]: unknown };

/** JSON is parsed, XML and other text decoded as UTF-8, anything else (PDF) kept as bytes. */
function responseKind(media: string[]): DocumentOperation['response'] {
  if (media.length === 0) return 'none';
  if (media.some((m) => m === 'application/json' || m.endsWith('+json'))) return 'json';
  if (media.some((m) => m.startsWith('text/') || m.endsWith('/xml') || m.endsWith('+xml'))) return 'text';
  return 'binary';
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

export function documentOperations(service: Service, document: JsonObject): DocumentOperation[] {
  const out: DocumentOperation[] = [];
  const paths = (document.paths ?? {}) as Record<string, Record<string, JsonObject>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const operationId = op.operationId;
      if (typeof operationId !== 'string') throw new Error(`${method} ${path} has no operationId`);
      const security = (op.security ?? []) as Record<string, unknown>[];
      const schemes = security.flatMap((s) => Object.keys(s));
      const responses = (op.responses ?? {}) as Record<string, JsonObject>;
      const success = Object.entries(responses).find(([status]) => /^2\d\d$/.test(status))?.[1];
      const media = Object.keys((success?.content ?? {}) as JsonObject);
      out.push({
        key: `${service}.${operationId}`,
        service,
        operationId,
        method: method.toUpperCase() as DocumentOperation['method'],
        path,
        auth: schemes.length === 0 ? 'none' : schemes.some((s) => /admin/i.test(s)) ? 'admin' : 'bearer',
        request: op.requestBody ? 'json' : 'none',
        response: responseKind(media),
        pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!),
      });
    }
  }
  return out;
}
