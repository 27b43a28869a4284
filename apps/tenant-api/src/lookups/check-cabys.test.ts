import { createCabysIndex, createCabysSearch } from '@cr/cabys';
import type { DocumentLinea } from '@cr/contracts';
import { type CabysItem, HaciendaUpstreamError, type PublicResult } from '@cr/hacienda-client';
import { invoice, line, paymentReceipt, surtidoLine } from '@cr/hacienda-xml/src/testing/mothers';
import { AppError, MemoryTransport, createLogger } from '@cr/service-kit';
import { type CabysCheckDeps, type CabysLookup, MAX_CABYS_REQUESTS, checkCabys } from './check-cabys';

// The mothers' codes, all real: a service, and the surtido's basket and its three products.
const SERVICE = '8314300000000';
const BASKET = '2399999002200';
const JAM = '2149400000400';
const CHEESE = '2225102010100';
const JUICE = '2132100000100';
// Real codes the small local catalogue below lacks, and codes that exist nowhere.
const NEW_SERVICE = '8111100000000';
const NEW_GOODS = '2391102010100';
const FAKE = '9999999999999';
const FAKE_TOO = '2399101000000';

const local = createCabysSearch({
  index: createCabysIndex(
    [SERVICE, BASKET, JAM, CHEESE, JUICE].map((codigo) => ({ codigo, descripcion: 'x', impuesto: 13 })),
  ),
});

/**
 * Hacienda's catalogue as /fe/cabys?codigo= answers it, in memory (Hacienda's side, not our code), with the
 * client's cache in front: a cached code answers without the caller's hook, any other runs it first.
 */
function hacienda(
  catalogue: string[],
  options: { cached?: string[]; fail?: Error; answer?: (codigo: string) => PublicResult<CabysItem> } = {},
) {
  const sent: string[] = [];
  const cached = new Set(options.cached ?? []);
  const lookup: CabysLookup = {
    async cabysByCodigo(codigo, lookupOptions = {}) {
      if (!cached.has(codigo)) {
        await lookupOptions.beforeRequest?.();
        sent.push(codigo);
        if (options.fail) throw options.fail;
        cached.add(codigo);
      }
      if (options.answer) return options.answer(codigo);
      return catalogue.includes(codigo)
        ? { kind: 'found', value: { codigo, descripcion: 'x', categorias: [], impuesto: 13 } }
        : { kind: 'notFound' };
    },
  };
  return { sent, lookup };
}

function deps(lookup: CabysLookup) {
  const log = new MemoryTransport();
  const tenants: string[] = [];
  const d: CabysCheckDeps = {
    local,
    lookupFor: (tenantId) => {
      tenants.push(tenantId);
      return lookup;
    },
    logger: createLogger({ service: 'test', level: 'debug', transports: [log] }),
  };
  return { deps: d, log, tenants };
}

const withLines = (...lines: DocumentLinea[]) =>
  invoice({ detalleServicio: lines.map((l, i) => ({ ...l, numeroLinea: i + 1 })) });

const notInCatalogue = (code: string) => `CABYS ${code} is not in Hacienda's catalogue`;

describe('checkCabys', () => {
  it('when the local catalogue has every code, lines and surtido components, then no promise and Hacienda is not asked', () => {
    const h = hacienda([]);
    const { deps: d, tenants } = deps(h.lookup);
    const document = withLines(line(1), surtidoLine(2), line(3, { cabys: JUICE }));

    expect(checkCabys({ tenantId: 'acme', document }, d)).toBeUndefined();
    expect(h.sent).toEqual([]);
    expect(tenants).toEqual([]);
  });

  it('when the lines have no CABYS (a payment receipt), then there is nothing to ask', () => {
    const { deps: d } = deps(hacienda([]).lookup);
    expect(checkCabys({ tenantId: 'acme', document: paymentReceipt() }, d)).toBeUndefined();
  });

  it("when codes are missing locally but in Hacienda's catalogue, then no issues and one lookup per code, for the tenant", async () => {
    const h = hacienda([NEW_SERVICE, NEW_GOODS]);
    const { deps: d, log, tenants } = deps(h.lookup);
    const document = withLines(
      line(1, { cabys: NEW_SERVICE }),
      line(2),
      line(3, { cabys: NEW_GOODS }),
      line(4, { cabys: NEW_SERVICE }),
    );

    expect(await checkCabys({ tenantId: 'acme', document }, d)).toEqual([]);
    expect(h.sent).toEqual([NEW_SERVICE, NEW_GOODS]);
    expect(tenants).toEqual(['acme']);
    expect(log.text).toBe('');
  });

  it('when Hacienda says a code does not exist, then every line and surtido component naming it is an issue, in document order', async () => {
    const h = hacienda([NEW_SERVICE]);
    const { deps: d } = deps(h.lookup);
    const basket = surtidoLine(2);
    basket.detalleSurtido![1]!.codigo = FAKE;
    const document = withLines(
      line(1, { cabys: FAKE }),
      basket,
      line(3, { cabys: NEW_SERVICE }),
      line(4, { cabys: FAKE_TOO }),
    );

    expect(await checkCabys({ tenantId: 'acme', document }, d)).toEqual([
      { path: 'detalleServicio[0].codigo', reason: notInCatalogue(FAKE) },
      { path: 'detalleServicio[1].detalleSurtido[1].codigo', reason: notInCatalogue(FAKE) },
      { path: 'detalleServicio[3].codigo', reason: notInCatalogue(FAKE_TOO) },
    ]);
    expect(h.sent).toEqual([FAKE, NEW_SERVICE, FAKE_TOO]);
  });

  it('when Hacienda answers items but none with exactly the code, then the code is an issue', async () => {
    const other: PublicResult<CabysItem> = {
      kind: 'found',
      value: { codigo: NEW_GOODS, descripcion: 'x', categorias: [] },
    };
    const { deps: d } = deps(hacienda([], { answer: () => other }).lookup);
    const document = withLines(line(1, { cabys: FAKE }));

    expect(await checkCabys({ tenantId: 'acme', document }, d)).toEqual([
      { path: 'detalleServicio[0].codigo', reason: notInCatalogue(FAKE) },
    ]);
  });

  it('when Hacienda is unreachable, then no issues, no further request for the document, and a warning names the codes', async () => {
    const down = new HaciendaUpstreamError('Hacienda public API unavailable on /fe/cabys (ECONNREFUSED)');
    const h = hacienda([], { fail: down });
    const { deps: d, log } = deps(h.lookup);
    const document = withLines(line(1, { cabys: FAKE }), line(2, { cabys: FAKE_TOO }));

    expect(await checkCabys({ tenantId: 'acme', document }, d)).toEqual([]);
    expect(h.sent).toEqual([FAKE]);
    const entry = JSON.parse(log.lines[0]!);
    expect(entry).toMatchObject({
      level: 'warn',
      message: expect.stringContaining('Hacienda will judge them'),
      tenantId: 'acme',
      codes: [FAKE, FAKE_TOO],
      cause: expect.stringContaining('ECONNREFUSED'),
    });
  });

  it('when a request fails, then codes already cached are still judged', async () => {
    const h = hacienda([], { fail: new HaciendaUpstreamError('down'), cached: [FAKE_TOO] });
    const { deps: d } = deps(h.lookup);
    const document = withLines(line(1, { cabys: NEW_SERVICE }), line(2, { cabys: FAKE_TOO }));

    expect(await checkCabys({ tenantId: 'acme', document }, d)).toEqual([
      { path: 'detalleServicio[1].codigo', reason: notInCatalogue(FAKE_TOO) },
    ]);
  });

  it("when the tenant's window of lookups is used up, then no issue and no 429: the codes are left to Hacienda (info)", async () => {
    const h = hacienda([]);
    const window: CabysLookup = {
      cabysByCodigo: (codigo, options = {}) =>
        h.lookup.cabysByCodigo(codigo, {
          beforeRequest: async () => {
            await options.beforeRequest?.();
            throw new AppError(
              'too_many_requests',
              'too many Hacienda lookups for this tenant; retry in 42 s',
            );
          },
        }),
    };
    const { deps: d, log } = deps(window);
    const document = withLines(line(1, { cabys: FAKE }));

    expect(await checkCabys({ tenantId: 'acme', document }, d)).toEqual([]);
    expect(JSON.parse(log.lines[0]!)).toMatchObject({
      level: 'info',
      codes: [FAKE],
      cause: expect.stringContaining('retry in 42 s'),
    });
  });

  it(`when more than ${MAX_CABYS_REQUESTS} codes would reach Hacienda, then only ${MAX_CABYS_REQUESTS} are sent, and cached ones still answer`, async () => {
    const codes = Array.from(
      { length: MAX_CABYS_REQUESTS + 2 },
      (_, i) => `99999999999${String(i).padStart(2, '0')}`,
    );
    const h = hacienda([], { cached: [codes.at(-1)!] });
    const { deps: d, log } = deps(h.lookup);
    const document = withLines(...codes.map((cabys, i) => line(i + 1, { cabys })));

    const issues = await checkCabys({ tenantId: 'acme', document }, d);

    expect(h.sent).toEqual(codes.slice(0, MAX_CABYS_REQUESTS));
    expect(issues?.map((i) => i.path)).toEqual([
      ...codes.slice(0, MAX_CABYS_REQUESTS).map((_, i) => `detalleServicio[${i}].codigo`),
      `detalleServicio[${codes.length - 1}].codigo`,
    ]);
    expect(JSON.parse(log.lines[0]!)).toMatchObject({
      level: 'info',
      codes: [codes[MAX_CABYS_REQUESTS]],
      cause: `more than ${MAX_CABYS_REQUESTS} codes to ask in one document`,
    });
  });

  it('when Hacienda refuses the lookup as malformed, then the code is not an issue and a warning says so', async () => {
    const { deps: d, log } = deps(hacienda([], { answer: () => ({ kind: 'invalid' }) }).lookup);
    const document = withLines(line(1, { cabys: FAKE }));

    expect(await checkCabys({ tenantId: 'acme', document }, d)).toEqual([]);
    expect(JSON.parse(log.lines[0]!)).toMatchObject({ level: 'warn', codes: [FAKE] });
  });
});
