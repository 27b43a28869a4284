// Fallback for when no local catalogue is loaded: Hacienda's public CABYS API
// (`GET {HACIENDA_PUBLIC_API_URL}/fe/cabys?q=<text>&top=N` → `{total, cantidad, cabys[{codigo, descripcion,
// categorias, impuesto, uri}]}`, REFERENCE.md §10.3). Answers are cached for a while: the public API blocks
// an IP for 10 minutes after bursts (§10.5), and a user typing repeats the same queries.
import { AppError } from '@cr/service-kit';
import axios, { type AxiosInstance, isAxiosError } from 'axios';
import { CABYS_CODE, type CabysItem } from './catalogue';
import { foldText } from './normalize';
import { clampLimit } from './search-index';

export interface CabysPublicClientOptions {
  /** Base URL of Hacienda's public API (HACIENDA_PUBLIC_API_URL), e.g. https://api.hacienda.go.cr */
  baseUrl: string;
  /** Per-request timeout; default 5 s. */
  timeoutMs?: number;
  /** How long an answer is reused; default 10 minutes. */
  cacheTtlMs?: number;
  /** Most answers kept; the oldest go first. Default 500. */
  cacheSize?: number;
  /** Clock, for tests. */
  now?: () => number;
}

export interface CabysPublicClient {
  /** Ranked as Hacienda ranks them, at most `limit` (default 50, max 200). Throws `upstream_error` (502). */
  search(query: string, options?: { limit?: number }): Promise<CabysItem[]>;
  /** The entry for a 13-digit code, or undefined when Hacienda does not know it. */
  lookup(code: string): Promise<CabysItem | undefined>;
  /** Drops every cached answer. */
  clearCache(): void;
}

interface CacheEntry<T> {
  expires: number;
  value: Promise<T>;
}

/** Maps one element of Hacienda's answer; anything that is not a proper CABYS item is dropped. */
function toItem(raw: unknown): CabysItem | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { codigo, descripcion, impuesto } = raw as Record<string, unknown>;
  const code = typeof codigo === 'number' ? String(codigo).padStart(13, '0') : codigo;
  if (typeof code !== 'string' || !CABYS_CODE.test(code)) return undefined;
  if (typeof descripcion !== 'string' || descripcion.trim() === '') return undefined;
  const rate = typeof impuesto === 'string' ? Number(impuesto) : impuesto;
  if (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 0 || rate > 100) return undefined;
  return { codigo: code, descripcion: descripcion.trim(), impuesto: rate };
}

function upstreamError(err: unknown): AppError {
  if (isAxiosError(err)) {
    if (err.response?.status === 429) {
      return new AppError('upstream_error', 'Hacienda CABYS API refused the request (rate limit, HTTP 429)', {
        cause: err,
      });
    }
    if (err.response) {
      return new AppError('upstream_error', `Hacienda CABYS API answered HTTP ${err.response.status}`, {
        cause: err,
      });
    }
    if (err.code === 'ECONNABORTED' || err.code === 'ETIMEDOUT') {
      return new AppError('upstream_error', 'Hacienda CABYS API did not answer in time', { cause: err });
    }
    return new AppError(
      'upstream_error',
      `Hacienda CABYS API is unreachable (${err.code ?? 'network error'})`,
      {
        cause: err,
      },
    );
  }
  return new AppError('upstream_error', 'Hacienda CABYS API gave an unreadable answer', { cause: err });
}

export function createCabysPublicClient(options: CabysPublicClientOptions): CabysPublicClient {
  const http: AxiosInstance = axios.create({
    baseURL: options.baseUrl.replace(/\/+$/, ''),
    timeout: options.timeoutMs ?? 5_000,
    headers: { Accept: 'application/json' },
    // no proxies from the environment, no redirects to elsewhere
    proxy: false,
    maxRedirects: 0,
  });
  const ttl = options.cacheTtlMs ?? 10 * 60_000;
  const maxEntries = options.cacheSize ?? 500;
  const now = options.now ?? Date.now;
  const cache = new Map<string, CacheEntry<unknown>>();

  function cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    const t = now();
    const hit = cache.get(key);
    if (hit && hit.expires > t) return hit.value as Promise<T>;
    cache.delete(key);
    const value = load();
    cache.set(key, { expires: t + ttl, value });
    // failures are not kept: the next call tries again
    value.catch(() => {
      if (cache.get(key)?.value === value) cache.delete(key);
    });
    while (cache.size > maxEntries) {
      const oldest = cache.keys().next().value as string;
      cache.delete(oldest);
    }
    return value;
  }

  async function fetchSearch(q: string, top: number): Promise<CabysItem[]> {
    let data: unknown;
    try {
      ({ data } = await http.get('/fe/cabys', { params: { q, top } }));
    } catch (err) {
      if (isAxiosError(err) && err.response?.status === 404) return [];
      throw upstreamError(err);
    }
    const list = (data as { cabys?: unknown } | null)?.cabys;
    if (!Array.isArray(list)) throw upstreamError(new Error('no cabys array in the answer'));
    const items: CabysItem[] = [];
    for (const raw of list) {
      const item = toItem(raw);
      if (item) items.push(item);
    }
    return items.slice(0, top);
  }

  async function fetchCode(code: string): Promise<CabysItem | undefined> {
    let data: unknown;
    try {
      ({ data } = await http.get('/fe/cabys', { params: { codigo: code } }));
    } catch (err) {
      if (isAxiosError(err) && err.response?.status === 404) return undefined;
      throw upstreamError(err);
    }
    const list = Array.isArray(data) ? data : [data];
    return list.map(toItem).find((i) => i?.codigo === code);
  }

  return {
    async search(query, opts = {}) {
      const limit = clampLimit(opts.limit);
      const q = typeof query === 'string' ? query.trim().replace(/\s+/g, ' ').slice(0, 200) : '';
      if (q === '') return [];
      if (CABYS_CODE.test(q)) {
        const item = await cached(`codigo:${q}`, () => fetchCode(q));
        return item ? [item] : [];
      }
      // cache on the folded text so "Café" and "cafe" share an answer
      return cached(`q:${foldText(q)}:${limit}`, () => fetchSearch(q, limit));
    },
    lookup(code) {
      if (typeof code !== 'string' || !CABYS_CODE.test(code)) return Promise.resolve(undefined);
      return cached(`codigo:${code}`, () => fetchCode(code));
    },
    clearCache() {
      cache.clear();
    },
  };
}
