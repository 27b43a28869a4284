// One tenant's lookups cannot hold up another's (ADR 0063): the public-API client's shared token bucket (5 at
// once, 2 a second, Hacienda's limits) serves waiting tenants in turn, a submission's exoneration check ahead
// of lookups, each tenant has HACIENDA_LOOKUPS_PER_TENANT lookups at once at most (then 429), and no lookup
// waits for a token past HACIENDA_LOOKUP_MAX_WAIT_MS (then 502 with Retry-After). Against the real
// hacienda-sandbox app, with the production client, only its retries shortened.
import { createCabysSearch } from '@cr/cabys';
import { HaciendaPublicApi, type PublicApiOptions, TokenBucket } from '@cr/hacienda-client';
import { haciendaCabysFallback } from '../src/lookups/cabys-fallback';
import type { PublicApiLookups } from '../src/lookups/lookup-deps';
import { createLookupLimiter } from '../src/lookups/tenant-lookup-limit';
import { post } from './support/client';
import { exoneratedInvoice } from './support/document-mother';
import { type HaciendaDouble, startHaciendaDouble } from './support/hacienda-sandbox';
import { issuerBody } from './support/issuer-mother';
import { type TestApp, startTestApp } from './support/test-app';

jest.setTimeout(90_000);

let hacienda: HaciendaDouble;
let app: TestApp;
const TAXPAYER = '3101123456';
const RECEPTOR = '3101999888';
const JUGO = '2132100000100';
const FUTURE = new Date(Date.now() + 365 * 86_400_000).toISOString().slice(0, 10);

/**
 * The public-API client of each test: the production one (its bucket of 5 at 2 a second, its lanes and
 * cache, all fresh) but for the test's options and shortened retries. The app calls it through `publicApi`,
 * which only forwards: one app for the file, since starting one takes seconds.
 */
let client: HaciendaPublicApi;
function useClient(options: Partial<PublicApiOptions> = {}): void {
  client = new HaciendaPublicApi({
    baseUrl: hacienda.url,
    timeoutMs: 2_000,
    retryDelaysMs: [5, 5, 5],
    ...options,
  });
}
const publicApi: PublicApiLookups = {
  taxpayer: (...args) => client.taxpayer(...args),
  exoneration: (...args) => client.exoneration(...args),
  cabys: (...args) => client.cabys(...args),
  cabysByCodigo: (...args) => client.cabysByCodigo(...args),
};

beforeAll(async () => {
  hacienda = await startHaciendaDouble();
  await hacienda.addTaxpayer({
    identificacion: TAXPAYER,
    tipoIdentificacion: '02',
    nombre: 'EMPRESA DE PRUEBA SOCIEDAD ANONIMA',
    actividades: [{ codigo: '6201.0', descripcion: 'PROGRAMACION', estado: 'A', tipo: 'P' }],
  });
  // HACIENDA_LOOKUP_RATE_LIMIT's default window: every tenant's lookups below are within it.
  app = await startTestApp({
    publicApi,
    // No local catalogue: CABYS searches go to Hacienda too.
    cabys: createCabysSearch({ fallback: haciendaCabysFallback(publicApi) }),
    lookupLimiter: createLookupLimiter({ limit: 60, windowSeconds: 60 }),
  });
}, 90_000);
afterAll(async () => {
  await app?.close();
  await hacienda?.stop();
});

const lookUp = (tenant: string, identificacion: string) =>
  post(app, tenant, '/api/hacienda/contribuyente', { identificacion });

type Answer = Awaited<ReturnType<typeof lookUp>>;

/** `count` lookups of distinct unregistered ids by `tenant`, all at once. */
function burst(tenant: string, count: number): Promise<Answer[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => lookUp(tenant, String(310100000000 + i))));
}

/** Each refusal has the documented shape of the lookup routes' 429: the code, the reason, Retry-After. */
function expectRefusedAtOnce(refused: Answer[]): void {
  for (const r of refused) {
    expect(r.body).toMatchObject({
      error: 'too_many_requests',
      message: expect.stringMatching(/^too many Hacienda lookups at once for this tenant; retry in \d+ s$/),
    });
    expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  }
}

async function timed<T>(work: Promise<T>): Promise<{ result: T; ms: number }> {
  const started = Date.now();
  const result = await work;
  return { result, ms: Date.now() - started };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const countOf = (answers: Answer[], status: number) => answers.filter((r) => r.status === status).length;

/** Slots the tenant has taken of its lookup window. */
async function windowSlots(tenant: string): Promise<number> {
  const { rows } = await app.db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM tenant_rate_hits WHERE tenant_id = $1 AND name = 'Hacienda lookups'",
    [tenant],
  );
  return rows[0]!.n;
}

/** An invoice to RECEPTOR whose first line is exonerated (type 04) by `autorizacion`, for JUGO. */
const invoiceExoneratedBy = (numero: number, autorizacion: string) =>
  exoneratedInvoice(numero, {
    receptor: RECEPTOR,
    codigo: JUGO,
    autorizacion,
    fechaEmision: '2024-01-15T00:00:00-06:00',
  });

/** A tenant with the issuer registered, and an authorization for RECEPTOR that no one has looked up yet. */
async function readyToSubmit(tenant: string, autorizacion: string): Promise<void> {
  await hacienda.addExoneration({
    numeroDocumento: autorizacion,
    identificacion: RECEPTOR,
    porcentajeExoneracion: 13,
    fechaEmision: '2024-01-15',
    fechaVencimiento: FUTURE,
    cabys: [JUGO],
  });
  expect((await post(app, tenant, '/api/enviar/emisor', issuerBody())).status).toBe(200);
}

describe("a tenant's burst of lookups within its window", () => {
  it('when one tenant sends 60 lookups at once, then beyond its lookups at once it gets 429 with Retry-After, and another tenant is answered within 2 s', async () => {
    useClient(); // every default: 4 lookups at once per tenant, 10 s of waiting at most
    const acme = burst('acme1', 60);
    await pause(300);
    const beta = await timed(lookUp('beta1', TAXPAYER));
    expect(beta.result.status).toBe(200);
    expect(beta.ms).toBeLessThan(2_000);

    const answers = await acme;
    expect(countOf(answers, 404) + countOf(answers, 429)).toBe(60);
    expect(countOf(answers, 429)).toBeGreaterThanOrEqual(30);
    expectRefusedAtOnce(answers.filter((r) => r.status === 429));
  });

  it('when a tenant has as many lookups at once as it may, then its next is 429 at once and takes no slot of its window; other tenants are answered', async () => {
    // One token a second holds the admitted lookups waiting in the bucket, so the refusals are certain.
    useClient({ lookupsPerLane: 2, bucket: new TokenBucket({ capacity: 1, refillPerSecond: 1 }) });
    const { result, ms } = await timed(
      Promise.all(Array.from({ length: 6 }, (_, i) => lookUp('acme2', String(310100000100 + i)))),
    );
    expect(countOf(result, 429)).toBeGreaterThanOrEqual(3);
    expect(countOf(result, 429) + countOf(result, 404)).toBe(6);
    expectRefusedAtOnce(result.filter((r) => r.status === 429));
    expect(ms).toBeLessThan(6_000);
    expect(await windowSlots('acme2')).toBe(countOf(result, 404));
    expect((await lookUp('beta2', TAXPAYER)).status).toBe(200);
  });
});

describe("another tenant's lookups waiting in the shared bucket", () => {
  // Tenants allowed 40 lookups at once: acme's 30 all wait in the bucket (15 s of its rate).
  const manyAtOnce: Partial<PublicApiOptions> = { lookupsPerLane: 40, maxWaitMs: 5_000 };

  it("when a tenant looks up, then it takes its turn: answered within 2 s, not after the other tenant's queue", async () => {
    useClient(manyAtOnce);
    const acme = burst('acme3', 30);
    await pause(300);
    const beta = await timed(lookUp('beta3', TAXPAYER));
    expect(beta.result.status).toBe(200);
    expect(beta.ms).toBeLessThan(2_000);
    // acme's lookups past the bounded wait fail (502), none hangs.
    const answers = await acme;
    expect(countOf(answers, 404) + countOf(answers, 502)).toBe(30);
  });

  it("when a tenant submits a document whose exoneration Hacienda must confirm, then the check goes ahead of the other tenant's lookups", async () => {
    await readyToSubmit('gamma4', 'AL-00050001-24');
    useClient(manyAtOnce);
    const acme = burst('acme4', 30);
    await pause(300);
    const submitted = await timed(
      post(app, 'gamma4', '/api/enviar/items', invoiceExoneratedBy(8001, 'AL-00050001-24')),
    );
    expect(submitted.result.status).toBe(200);
    expect(submitted.result.body.clave).toMatch(/^\d{50}$/);
    expect(submitted.ms).toBeLessThan(3_000);
    await acme;
  });
});

describe('no token within HACIENDA_LOOKUP_MAX_WAIT_MS', () => {
  // One token every 4 s and a wait of at most 1 s: a second caller cannot get one in time.
  const slow = () => ({ maxWaitMs: 1_000, bucket: new TokenBucket({ capacity: 1, refillPerSecond: 0.25 }) });

  it('when lookups cannot get a token in time, then 502 upstream_error with Retry-After at the bound, not a hang', async () => {
    useClient(slow());
    const { result, ms } = await timed(
      Promise.all(['t1', 't2', 't3'].map((tenant) => lookUp(tenant, TAXPAYER))),
    );
    expect(ms).toBeLessThan(3_000);
    expect(result.map((r) => r.status).sort()).toEqual([200, 502, 502]);
    for (const r of result.filter((x) => x.status === 502)) {
      expect(r.body).toMatchObject({
        error: 'upstream_error',
        message: expect.stringMatching(/^Hacienda public API busy: no turn within 1 s/),
      });
      expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
  });

  it("when a submission's exoneration check cannot get a token in time, then 502 upstream_error as when Hacienda is down, and nothing is stored", async () => {
    await readyToSubmit('gamma6', 'AL-00050002-24');
    useClient(slow());
    expect((await lookUp('acme6', TAXPAYER)).status).toBe(200); // takes the bucket's one token
    const { result, ms } = await timed(
      post(app, 'gamma6', '/api/enviar/items', invoiceExoneratedBy(8002, 'AL-00050002-24')),
    );
    expect(ms).toBeLessThan(3_000);
    expect(result.status).toBe(502);
    expect(result.body).toMatchObject({
      error: 'upstream_error',
      message: expect.stringMatching(/^Hacienda public API busy: no turn within 1 s/),
    });
    expect(Number(result.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const stored = await app.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM documents WHERE tenant_id = 'gamma6'",
    );
    expect(stored.rows[0]!.n).toBe(0);
  });
});

describe('CABYS searches through the fallback to Hacienda', () => {
  it('when one tenant sends 20 searches at once, then they wait in its lane: beyond its lookups at once 429, never an error', async () => {
    useClient();
    const searches = Promise.all(
      Array.from({ length: 20 }, (_, i) => post(app, 'acme7', '/api/hacienda/cabys', { name: `jugo ${i}` })),
    );
    await pause(300);
    expect((await lookUp('beta7', TAXPAYER)).status).toBe(200);
    const answers = await searches;
    expect(countOf(answers, 200) + countOf(answers, 429)).toBe(20);
    expect(countOf(answers, 429)).toBeGreaterThan(0);
    expectRefusedAtOnce(answers.filter((r) => r.status === 429));
  });
});
