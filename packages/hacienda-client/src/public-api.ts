// Hacienda's public API (REFERENCE §10): taxpayer, exoneration and CABYS lookups. Answers are cached for a
// while and calls pass through a token bucket, because a burst gets the whole service's IP blocked for 10
// minutes (§10.5). 5xx and timeouts are retried with backoff, then surface as `HaciendaUpstreamError`
// (an `AppError` the error handler maps to 502); a 429 opens a pause during which no call is made.
// The bucket is shared by every tenant, so it is shared fairly (ADR 0063): a call names its lane (the
// tenant), waiting lanes take turns, a lane has a few lookups at once at most (`RateLimitedError` beyond),
// and no call waits for a token longer than `maxWaitMs` (a 502 with Retry-After, like the 429 pause).
import { AppError, KeyedConcurrency } from '@cr/service-kit';
import type { AxiosInstance, AxiosResponse } from 'axios';
import { LRUCache } from 'lru-cache';
import { classifyTransportError, createHttp, parseRetryAfterMs } from './http';
import { type Clock, RateLimitedError, realClock, realSleep, type Sleep, TokenBucket } from './limits';

export type PublicResult<T> =
  | { kind: 'found'; value: T }
  /** 404: not registered / does not exist. */
  | { kind: 'notFound' }
  /** 400: Hacienda says the parameter is invalid. */
  | { kind: 'invalid'; message?: string };

export interface Taxpayer {
  nombre: string;
  tipoIdentificacion: string;
  regimen?: { codigo: string; descripcion: string };
  situacion?: { moroso?: string; omiso?: string; estado?: string; administracionTributaria?: string };
  actividades: Array<{ estado?: string; tipo?: string; codigo: string; descripcion?: string }>;
  /** The JSON as received (its exact shape after CIIU 4 is unconfirmed, REFERENCE §10.1). */
  raw: unknown;
}

export interface Exoneration {
  numeroDocumento: string;
  identificacion: string;
  codigoProyectoCFIA?: number | string;
  fechaEmision?: string;
  fechaVencimiento?: string;
  porcentajeExoneracion?: number;
  tipoDocumento?: { codigo: string; descripcion?: string };
  nombreInstitucion?: string;
  poseeCabys: boolean;
  cabys: string[];
  raw: unknown;
}

export interface CabysItem {
  codigo: string;
  descripcion: string;
  categorias: string[];
  /** Usual IVA percentage (13, 4, 2, 1, 0); a hint, not the rule. */
  impuesto?: number;
  uri?: string;
}

export interface CabysSearch {
  total: number;
  cantidad: number;
  cabys: CabysItem[];
}

/** Hacienda's public API failed after retries, or is paused after a 429. */
export class HaciendaUpstreamError extends AppError {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(
      'upstream_error',
      message,
      retryAfterMs ? { headers: { 'Retry-After': String(Math.ceil(retryAfterMs / 1000)) } } : {},
    );
    this.name = 'HaciendaUpstreamError';
  }
}

export interface PublicApiOptions {
  /** HACIENDA_PUBLIC_API_URL, e.g. https://api.hacienda.go.cr */
  baseUrl: string;
  /** The whole request, connection to last byte of the answer (`createHttp`). */
  timeoutMs?: number;
  /** Delays before each retry of a 5xx/timeout/connection failure; default [300, 1000, 3000] ms. */
  retryDelaysMs?: readonly number[];
  /** How long answers stay cached; default 10 min (not-found answers: a tenth of it). */
  cacheTtlMs?: number;
  /** Most answers kept (default 2,000; at least 1: lru-cache refuses a bound of 0). */
  cacheMaxEntries?: number;
  /** Shared limiter; default a bucket of 5 with 2 per second, far under the published burst limits. */
  bucket?: TokenBucket;
  /**
   * Lookups of one lane (a tenant) waiting or in flight at once, default 4; beyond it `RateLimitedError` at
   * once. Urgent lookups (a submission's checks) are not counted: the submissions in progress bound them.
   */
  lookupsPerLane?: number;
  /**
   * Longest a lookup waits for tokens, all its tries together; default 10 s, well inside a gateway's 30 s.
   * Past it `HaciendaUpstreamError` with Retry-After: the service's share of Hacienda is used up for now.
   */
  maxWaitMs?: number;
  /** Pause after a 429 without Retry-After; default 10 min (the IP block). */
  blockPauseMs?: number;
  clock?: Clock;
  sleep?: Sleep;
}

const str = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
const num = (v: unknown): number | undefined => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
};

function mapCabysItem(v: unknown): CabysItem {
  const o = (v ?? {}) as Record<string, unknown>;
  const impuesto = num(o.impuesto);
  const uri = str(o.uri);
  return {
    codigo: str(o.codigo) ?? '',
    descripcion: str(o.descripcion) ?? '',
    categorias: Array.isArray(o.categorias) ? o.categorias.map((c) => String(c)) : [],
    ...(impuesto === undefined ? {} : { impuesto }),
    ...(uri ? { uri } : {}),
  };
}

export function mapTaxpayer(raw: unknown): Taxpayer {
  const o = (raw ?? {}) as Record<string, unknown>;
  const regimen = o.regimen as Record<string, unknown> | undefined;
  const situacion = o.situacion as Record<string, unknown> | undefined;
  const clean = <T extends Record<string, unknown>>(x: T) =>
    Object.fromEntries(Object.entries(x).filter(([, v]) => v !== undefined)) as T;
  return {
    nombre: str(o.nombre) ?? '',
    tipoIdentificacion: str(o.tipoIdentificacion) ?? '',
    ...(regimen
      ? { regimen: { codigo: str(regimen.codigo) ?? '', descripcion: str(regimen.descripcion) ?? '' } }
      : {}),
    ...(situacion
      ? {
          situacion: clean({
            moroso: str(situacion.moroso),
            omiso: str(situacion.omiso),
            estado: str(situacion.estado),
            administracionTributaria: str(situacion.administracionTributaria),
          }),
        }
      : {}),
    actividades: Array.isArray(o.actividades)
      ? o.actividades.map((a) => {
          const x = (a ?? {}) as Record<string, unknown>;
          return clean({
            estado: str(x.estado),
            tipo: str(x.tipo),
            codigo: str(x.codigo) ?? '',
            descripcion: str(x.descripcion),
          });
        })
      : [],
    raw,
  };
}

export function mapExoneration(raw: unknown): Exoneration {
  const o = (raw ?? {}) as Record<string, unknown>;
  const tipo = o.tipoDocumento as Record<string, unknown> | undefined;
  const out: Exoneration = {
    numeroDocumento: str(o.numeroDocumento) ?? '',
    identificacion: str(o.identificacion) ?? '',
    poseeCabys: o.poseeCabys === true,
    cabys: Array.isArray(o.cabys) ? o.cabys.map((c) => String(c)) : [],
    raw,
  };
  const cfia = o.codigoProyectoCFIA;
  if (typeof cfia === 'number' || typeof cfia === 'string') out.codigoProyectoCFIA = cfia;
  const fe = str(o.fechaEmision);
  if (fe) out.fechaEmision = fe;
  const fv = str(o.fechaVencimiento);
  if (fv) out.fechaVencimiento = fv;
  const pct = num(o.porcentajeExoneracion);
  if (pct !== undefined) out.porcentajeExoneracion = pct;
  if (tipo) {
    const d = str(tipo.descripcion);
    out.tipoDocumento = { codigo: str(tipo.codigo) ?? '', ...(d ? { descripcion: d } : {}) };
  }
  const inst = str(o.nombreInstitucion);
  if (inst) out.nombreInstitucion = inst;
  return out;
}

export interface LookupOptions {
  /**
   * Runs only when the answer is not cached, before any request (and before the shared token bucket): the
   * caller's own limit on calls that reach Hacienda, e.g. a tenant's window. If it throws, nothing is sent.
   */
  beforeRequest?: () => Promise<void>;
  /**
   * Whose lookup this is, e.g. the tenant: waiting lanes take turns at the shared bucket, and a lane has at
   * most `lookupsPerLane` lookups at once. Without it the call waits in the one lane of every unnamed call.
   */
  lane?: string;
  /** A lookup a submission waits for: served ahead of ordinary lookups, not counted in its lane's limit. */
  urgent?: boolean;
}

export class HaciendaPublicApi {
  private readonly http: AxiosInstance;
  private readonly clock: Clock;
  private readonly sleep: Sleep;
  private readonly bucket: TokenBucket;
  private readonly retryDelays: readonly number[];
  private readonly ttl: number;
  private readonly blockPauseMs: number;
  private readonly lanes: KeyedConcurrency;
  private readonly maxWaitMs: number;
  /**
   * Answers by request; the least recently used beyond `cacheMaxEntries` are dropped. Each keeps its own
   * expiry, read on the injected clock (lru-cache's own TTL reads performance.now()).
   */
  private readonly cache: LRUCache<string, { expires: number; value: PublicResult<unknown> }>;
  private pausedUntil = 0;

  constructor(options: PublicApiOptions) {
    this.http = createHttp(options.baseUrl, options.timeoutMs ?? 10_000, 'public-api');
    this.clock = options.clock ?? realClock;
    this.sleep = options.sleep ?? realSleep;
    this.bucket =
      options.bucket ??
      new TokenBucket({ capacity: 5, refillPerSecond: 2, clock: this.clock, sleep: this.sleep });
    this.retryDelays = options.retryDelaysMs ?? [300, 1_000, 3_000];
    this.ttl = options.cacheTtlMs ?? 600_000;
    this.cache = new LRUCache({ max: Math.max(1, options.cacheMaxEntries ?? 2_000) });
    this.blockPauseMs = options.blockPauseMs ?? 600_000;
    const perLane = options.lookupsPerLane ?? 4;
    this.lanes = new KeyedConcurrency(
      perLane,
      () => new RateLimitedError(`Hacienda lookups limit of ${perLane} at once reached`, 1_000),
    );
    this.maxWaitMs = options.maxWaitMs ?? 10_000;
  }

  /** `GET /fe/ae?identificacion=` (id without hyphens). */
  taxpayer(identificacion: string, options: LookupOptions = {}): Promise<PublicResult<Taxpayer>> {
    return this.lookup(
      '/fe/ae',
      { identificacion: identificacion.replace(/-/g, '').trim() },
      mapTaxpayer,
      options,
    );
  }

  /** `GET /fe/ex?autorizacion=` (e.g. AL-00460853-20). */
  exoneration(autorizacion: string, options: LookupOptions = {}): Promise<PublicResult<Exoneration>> {
    return this.lookup('/fe/ex', { autorizacion: autorizacion.trim() }, mapExoneration, options);
  }

  /** `GET /fe/cabys?q=&top=`: search by text. */
  cabys(q: string, top?: number, options: LookupOptions = {}): Promise<PublicResult<CabysSearch>> {
    const params: Record<string, string> = { q: q.trim() };
    if (top !== undefined) params.top = String(Math.max(1, Math.floor(top)));
    return this.lookup(
      '/fe/cabys',
      params,
      (raw) => {
        const o = (raw ?? {}) as Record<string, unknown>;
        const items = Array.isArray(o.cabys) ? o.cabys.map(mapCabysItem) : [];
        return {
          total: num(o.total) ?? items.length,
          cantidad: num(o.cantidad) ?? items.length,
          cabys: items,
        };
      },
      options,
    );
  }

  /** `GET /fe/cabys?codigo=` (13 digits): the item, or notFound when Hacienda returns an empty array. */
  async cabysByCodigo(codigo: string, options: LookupOptions = {}): Promise<PublicResult<CabysItem>> {
    const r = await this.lookup(
      '/fe/cabys',
      { codigo: codigo.trim() },
      (raw) => (Array.isArray(raw) ? raw : [raw]).filter((x) => x && typeof x === 'object').map(mapCabysItem),
      options,
    );
    if (r.kind !== 'found') return r;
    const item = r.value.find((i) => i.codigo === codigo.trim()) ?? r.value[0];
    return item ? { kind: 'found', value: item } : { kind: 'notFound' };
  }

  private async lookup<T>(
    path: string,
    params: Record<string, string>,
    map: (raw: unknown) => T,
    options: LookupOptions = {},
  ): Promise<PublicResult<T>> {
    const key = `${path}?${new URLSearchParams(params).toString()}`;
    const now = this.clock();
    const hit = this.cache.get(key);
    if (hit && hit.expires > now) return hit.value as PublicResult<T>;
    if (hit) this.cache.delete(key);

    // The lane's limit comes before the hook, so a refused call costs the caller nothing (no window slot).
    return this.inLane(options, async () => {
      await options.beforeRequest?.();
      const result = await this.fetch(path, params, map, options);
      if (result.kind !== 'invalid') {
        const ttl = result.kind === 'found' ? this.ttl : Math.ceil(this.ttl / 10);
        this.cache.set(key, { expires: this.clock() + ttl, value: result });
      }
      return result;
    });
  }

  private inLane<T>(options: LookupOptions, work: () => Promise<T>): Promise<T> {
    if (options.lane === undefined || options.urgent) return work();
    return this.lanes.run(options.lane, work);
  }

  /** Waits for the lane's turn at the bucket until `deadline`; then Hacienda must not be paused meanwhile. */
  private async takeTurn(options: LookupOptions, deadline: number): Promise<void> {
    this.throwIfPaused();
    try {
      await this.bucket.take({
        ...(options.lane === undefined ? {} : { lane: options.lane }),
        ...(options.urgent ? { urgent: true } : {}),
        maxWaitMs: deadline - this.clock(),
      });
    } catch (err) {
      if (!(err instanceof RateLimitedError)) throw err;
      throw new HaciendaUpstreamError(
        `Hacienda public API busy: no turn within ${this.maxWaitMs / 1000} s in the service's limit on calls to it`,
        err.retryAfterMs,
      );
    }
    // A 429 may have come while this call waited: its token is spent, but Hacienda is not called.
    this.throwIfPaused();
  }

  private throwIfPaused(): void {
    const paused = this.pausedUntil - this.clock();
    if (paused > 0) throw new HaciendaUpstreamError('Hacienda public API is pausing after a 429', paused);
  }

  private async fetch<T>(
    path: string,
    params: Record<string, string>,
    map: (raw: unknown) => T,
    options: LookupOptions,
  ): Promise<PublicResult<T>> {
    const deadline = this.clock() + this.maxWaitMs;
    let lastProblem = '';
    for (let attempt = 0; ; attempt++) {
      await this.takeTurn(options, deadline);
      let res: AxiosResponse | undefined;
      try {
        res = await this.http.get(path, { params, headers: { Accept: 'application/json' } });
      } catch (err) {
        lastProblem = classifyTransportError(err).message;
      }
      if (res) {
        if (res.status === 200) return { kind: 'found', value: map(res.data) };
        if (res.status === 404) return { kind: 'notFound' };
        if (res.status === 400) {
          const message = typeof res.data === 'string' && res.data.length < 300 ? res.data : undefined;
          return { kind: 'invalid', ...(message ? { message } : {}) };
        }
        if (res.status === 429) {
          const wait = parseRetryAfterMs(res, this.clock()) ?? this.blockPauseMs;
          this.pausedUntil = this.clock() + wait;
          throw new HaciendaUpstreamError('Hacienda public API rate limit reached', wait);
        }
        if (res.status < 500)
          throw new HaciendaUpstreamError(`Hacienda public API answered ${res.status} on ${path}`);
        lastProblem = `answered ${res.status}`;
      }
      const delay = this.retryDelays[attempt];
      if (delay === undefined) {
        throw new HaciendaUpstreamError(`Hacienda public API unavailable on ${path} (${lastProblem})`);
      }
      await this.sleep(delay);
    }
  }
}
