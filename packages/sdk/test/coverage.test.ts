// Route coverage: every operation of the services' OpenAPI documents (built here from the contracts, as
// the services serve them) has an SDK method, unless EXCLUDED_OPERATIONS gives the reason it has none; and
// every method really calls its operation's method and path (through a fetch that records the request).
// The generated files are checked against the contracts too (the operations map, and every file by
// `generate --check`).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildAuthServerOpenApi, buildTenantApiOpenApi } from '@cr/contracts';
import { documentOperations } from '../scripts/document-operations';
import {
  CrEinvoiceClient,
  EXCLUDED_OPERATIONS,
  NOT_REPEATABLE,
  OPERATIONS,
  SDK_METHODS,
  type OperationKey,
  type ResponseBody,
  type SdkMethodPath,
} from '../src';

const CLAVE = '50601012600310112345600100001010000000001112345678';

/** One call of each SDK method; a method added without its line here fails the last test. */
const SAMPLE_CALLS: Record<SdkMethodPath, (c: CrEinvoiceClient) => Promise<unknown>> = {
  'auth.login': (c) => c.auth.login(),
  'auth.logout': (c) => c.auth.logout(),
  'emisores.register': (c) => c.emisores.register({} as never),
  'emisores.update': (c) => c.emisores.update({} as never),
  'emisores.get': (c) => c.emisores.get(3101123456),
  'emisores.listar': (c) => c.emisores.listar(),
  'documentos.enviar': (c) => c.documentos.enviar({} as never),
  'documentos.consultar': (c) => c.documentos.consultar(CLAVE),
  'documentos.listar': (c) => c.documentos.listar({ estado: 'aceptado', limite: 10 }),
  'documentos.descargarXml': (c) => c.documentos.descargarXml(CLAVE),
  'documentos.descargarRespuesta': (c) => c.documentos.descargarRespuesta(CLAVE),
  'documentos.descargarPdf': (c) => c.documentos.descargarPdf(CLAVE, 'tiquete'),
  'entrega.configurarMarca': (c) => c.entrega.configurarMarca({ pieDePagina: 'Gracias' }),
  'entrega.configurarCorreo': (c) => c.entrega.configurarCorreo({ predeterminado: true }),
  'entrega.consultarCorreo': (c) => c.entrega.consultarCorreo(),
  'entrega.reenviarCorreo': (c) => c.entrega.reenviarCorreo(CLAVE, ['contabilidad@pixdea.cr']),
  'hacienda.cabys': (c) => c.hacienda.cabys('cafe'),
  'hacienda.exoneracion': (c) => c.hacienda.exoneracion('AL-00020402-24'),
  'hacienda.contribuyente': (c) => c.hacienda.contribuyente('3101123456'),
  'webhooks.configure': (c) => c.webhooks.configure('https://example.com/hook'),
  'webhooks.get': (c) => c.webhooks.get(),
  'webhooks.replay': (c) => c.webhooks.replay(CLAVE),
  'recepcion.recibir': (c) => c.recepcion.recibir({} as never),
  'recepcion.listar': (c) => c.recepcion.listar({ estado: 'pendiente' }),
  'recepcion.consultar': (c) => c.recepcion.consultar(CLAVE),
  'recepcion.descargarXml': (c) => c.recepcion.descargarXml(CLAVE),
  'recepcion.descargarRespuestaHacienda': (c) => c.recepcion.descargarRespuestaHacienda(CLAVE),
  'recepcion.responder': (c) => c.recepcion.responder(CLAVE, {} as never),
  'recepcion.sincronizar': (c) => c.recepcion.sincronizar('3101779527'),
};

/** The operations that answer JSON on success. */
type JsonOperation = {
  [K in OperationKey]: (typeof OPERATIONS)[K]['response'] extends 'json' ? K : never;
}[OperationKey];
/** Those whose success type came out `never` (a success status types.ts does not read): none. */
type WithoutSuccessType = {
  [K in JsonOperation]: [ResponseBody<K>] extends [never] ? K : never;
}[JsonOperation];
// Checked by the compiler (typecheck): an operation listed in WithoutSuccessType makes this line fail, naming it.
const everySuccessTyped: [WithoutSuccessType] extends [never] ? true : WithoutSuccessType = true;

function documented() {
  return [
    ...documentOperations('auth', buildAuthServerOpenApi()),
    ...documentOperations('tenant', buildTenantApiOpenApi()),
  ];
}

const TOKEN = `e30.${Buffer.from(JSON.stringify({ exp: 4102444800 })).toString('base64url')}.sig`;

function recordingClient(): { client: CrEinvoiceClient; requests: { method: string; path: string }[] } {
  const requests: { method: string; path: string }[] = [];
  const client = new CrEinvoiceClient({
    authUrl: 'https://auth.example.com',
    tenantUrl: 'https://acme.api.example.com',
    credentials: { base: 'acme', password: 'secret' },
    fetch: async (input, init) => {
      const url = new URL(input);
      requests.push({ method: init.method ?? 'GET', path: url.pathname });
      const body = url.pathname === '/login' ? { token: TOKEN, expires_in: 28800, token_type: 'Bearer' } : {};
      const xml = url.pathname.includes('/descargar/');
      return new Response(xml ? '<x/>' : JSON.stringify(body), {
        status: 200,
        headers: { 'content-type': xml ? 'application/xml' : 'application/json' },
      });
    },
  });
  return { client, requests };
}

describe('SDK route coverage', () => {
  it('when a documented operation has neither an SDK method nor a stated exclusion, then it is listed here', () => {
    const covered = new Set<string>([...Object.values(SDK_METHODS), ...Object.keys(EXCLUDED_OPERATIONS)]);
    const missing = documented()
      .map((o) => `${o.key} (${o.method} ${o.path})`)
      .filter((line) => !covered.has(line.split(' ')[0]!));
    expect(missing).toEqual([]);
  });

  it('when an SDK method or exclusion names an operation, then the documents have it', () => {
    const keys = new Set<string>(documented().map((o) => o.key));
    const stale = [...Object.values(SDK_METHODS), ...Object.keys(EXCLUDED_OPERATIONS)].filter(
      (k) => !keys.has(k),
    );
    expect(stale).toEqual([]);
  });

  it('when the documents change, then the generated operations map was regenerated from them', () => {
    const generated = Object.values(OPERATIONS).map(
      (o) => `${o.service}.${o.operationId} ${o.method} ${o.path}`,
    );
    const now = documented().map((o) => `${o.key} ${o.method} ${o.path}`);
    expect(generated.sort()).toEqual(now.sort());
  });

  it('when an operation is marked as not to be repeated, then it is a POST an SDK method calls, with the reason', () => {
    const called = new Set<string>(Object.values(SDK_METHODS));
    for (const [key, reason] of Object.entries(NOT_REPEATABLE)) {
      expect(called.has(key)).toBe(true);
      expect(OPERATIONS[key as keyof typeof OPERATIONS].method).toBe('POST');
      expect(reason!.length).toBeGreaterThan(20);
    }
  });

  it('when the contracts change, then every generated file was regenerated from them (generate --check)', () => {
    const PACKAGE_DIR = join(__dirname, '..');
    const tsx = join(PACKAGE_DIR, '..', '..', 'node_modules', '.bin', 'tsx');
    const check = spawnSync(tsx, ['scripts/generate.ts', '--check'], { cwd: PACKAGE_DIR, encoding: 'utf8' });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });

  it('when the webhook URL receives an event, then its type is either kind the tenant-api sends', () => {
    const events = readFileSync(join(__dirname, '..', 'src', 'generated', 'events.ts'), 'utf8');
    expect(events).toContain(
      'WebhookEvent: components["schemas"]["WebhookEventPayload"] | components["schemas"]["RecepcionDeadlineEvent"]',
    );
  });

  it('when an operation answers JSON, then its success body has a type (not never)', () => {
    expect(everySuccessTyped).toBe(true);
  });

  it('every exclusion says why', () => {
    for (const reason of Object.values(EXCLUDED_OPERATIONS)) expect(reason.length).toBeGreaterThan(20);
  });

  it.each(Object.keys(SDK_METHODS) as SdkMethodPath[])(
    'when %s is called, then it sends its operation’s method and path',
    async (method) => {
      const { client, requests } = recordingClient();
      const call = SAMPLE_CALLS[method];
      expect(call).toBeDefined();
      await call(client);
      const op = OPERATIONS[SDK_METHODS[method]];
      const expectedPath = op.path.replace('{clave}', CLAVE);
      expect(requests.at(-1)).toEqual({ method: op.method, path: expectedPath });
    },
  );
});
