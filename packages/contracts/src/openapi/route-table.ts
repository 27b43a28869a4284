// Lists the routes an express 5 app registers (walking its router stack) and compares them with an
// OpenAPI document, both ways: a registered route missing from the document, and a documented operation
// no route serves. Typed structurally so the contracts need not depend on express.
import type { JsonObject } from './build-document';

export interface RegisteredRoute {
  method: string;
  /** In OpenAPI form: `/admin/clients/{base}`. */
  path: string;
}

interface RouteLike {
  path: string | string[];
  methods: Record<string, boolean>;
}

interface LayerLike {
  route?: RouteLike;
  handle?: { stack?: LayerLike[] };
  rawPath?: unknown;
  name?: string;
}

interface AppLike {
  router?: { stack?: LayerLike[] };
  locals?: { mountedApps?: AppLike[] };
  mountpath?: string | string[];
}

/** `/clients/:base` → `/clients/{base}`. */
export function toOpenApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function join(prefix: string, path: string): string {
  const joined = `${prefix.replace(/\/$/, '')}/${path.replace(/^\//, '')}`;
  return joined.length > 1 ? joined.replace(/\/$/, '') : joined;
}

function pathsOf(raw: unknown, where: string): string[] {
  const list = Array.isArray(raw) ? raw : [raw];
  return list.map((p) => {
    if (typeof p !== 'string')
      throw new Error(`route-table: a non-string path at ${where} cannot be compared`);
    return p;
  });
}

function walk(stack: LayerLike[], prefix: string, app: AppLike | undefined, out: RegisteredRoute[]): void {
  for (const layer of stack) {
    if (layer.route) {
      for (const path of pathsOf(layer.route.path, prefix)) {
        for (const [method, on] of Object.entries(layer.route.methods)) {
          if (!on) continue;
          if (method === '_all') throw new Error(`route-table: ${join(prefix, path)} answers every method`);
          out.push({ method, path: toOpenApiPath(join(prefix, path)) });
        }
      }
    } else if (layer.handle?.stack) {
      // A Router mounted with use(): its routes live under the layer's path.
      for (const path of pathsOf(layer.rawPath ?? '/', prefix))
        walk(layer.handle.stack, join(prefix, path), app, out);
    } else if (layer.name === 'mounted_app') {
      // express wraps a mounted sub-app in a closure; an app that mounts one lists it in
      // `locals.mountedApps` so its routes can be walked too.
      const mounted = app?.locals?.mountedApps?.filter((m) =>
        pathsOf(layer.rawPath ?? '/', prefix).includes(String(m.mountpath ?? '/')),
      );
      if (!mounted?.length)
        throw new Error(
          `route-table: a sub-app mounted at ${prefix || '/'} is not listed in app.locals.mountedApps`,
        );
      for (const m of mounted) out.push(...listRoutes(m, join(prefix, String(m.mountpath ?? '/'))));
    }
  }
}

/** Every method + path the app routes, sub-routers and listed sub-apps included. */
export function listRoutes(app: unknown, prefix = ''): RegisteredRoute[] {
  const a = app as AppLike;
  const stack = a.router?.stack;
  if (!stack) throw new Error('route-table: not an express 5 app (no router stack)');
  const out: RegisteredRoute[] = [];
  walk(stack, prefix, a, out);
  return out;
}

export interface CoverageReport {
  /** Registered but not in the document. */
  undocumented: string[];
  /** In the document but not registered. */
  unserved: string[];
}

/** Compares routes and document; `exempt` paths (e.g. `/docs`) are left out of both sides. */
export function compareRoutes(
  document: JsonObject,
  routes: RegisteredRoute[],
  exempt: string[] = [],
): CoverageReport {
  const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`;
  const registered = new Set(
    routes.filter((r) => !exempt.includes(r.path)).map((r) => key(r.method, r.path)),
  );
  const documented = new Set<string>();
  const paths = (document.paths ?? {}) as Record<string, Record<string, unknown>>;
  for (const [path, item] of Object.entries(paths)) {
    if (exempt.includes(path)) continue;
    for (const method of Object.keys(item)) {
      if (['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'].includes(method))
        documented.add(key(method, path));
    }
  }
  return {
    undocumented: [...registered].filter((k) => !documented.has(k)).sort(),
    unserved: [...documented].filter((k) => !registered.has(k)).sort(),
  };
}
