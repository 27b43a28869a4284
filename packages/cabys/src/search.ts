// The one search the HTTP route calls: the local index when a catalogue is loaded, otherwise a fallback
// function the app supplies (the tenant-api passes Hacienda's public /fe/cabys through @cr/hacienda-client,
// whose shared rate limiter and cache keep the service's IP from being blocked).
import { AppError } from '@cr/service-kit';
import type { CabysItem } from './catalogue';
import { type CabysIndex, type SearchOptions, clampLimit } from './search-index';

export type CabysSource = 'local' | 'hacienda';

/**
 * Answers a search when there is no local catalogue: `query` is trimmed, whitespace-collapsed, at most 200
 * characters and never empty; `limit` is already clamped to 1–200. Ranked best first. Failures reach the
 * caller as they are (an `AppError` such as `upstream_error` keeps its status).
 */
export type CabysFallback = (query: string, options: FallbackOptions) => Promise<CabysItem[]>;

export interface FallbackOptions {
  limit: number;
  /** The caller's own limit on calls that reach the fallback's source; runs only when the answer is not cached. */
  beforeRequest?: () => Promise<void>;
  /** Whose search this is (a tenant): the fallback's source serves waiting callers by turns of it. */
  lane?: string;
}

export interface CabysSearch {
  /** Where answers come from; undefined when neither a catalogue nor a fallback is configured. */
  readonly source: CabysSource | undefined;
  /**
   * Whether the local catalogue has exactly this 13-digit code; false without one (the fallback is never
   * asked). Synchronous and allocation-free: a submission asks it for every line (ADR 0066).
   */
  has(code: string): boolean;
  /** Ranked results, best first. Rejects with the fallback's error when it fails and `service_unavailable`
   *  when there is no source at all. */
  search(
    query: string,
    options?: SearchOptions & Pick<FallbackOptions, 'beforeRequest' | 'lane'>,
  ): Promise<CabysItem[]>;
}

export function createCabysSearch(deps: { index?: CabysIndex; fallback?: CabysFallback }): CabysSearch {
  const { index, fallback } = deps;
  const source: CabysSource | undefined = index ? 'local' : fallback ? 'hacienda' : undefined;
  return {
    source,
    has: (code) => index?.has(code) === true,
    async search(query, options = {}) {
      if (index) return index.search(query, options);
      if (fallback) {
        const q = typeof query === 'string' ? query.trim().replace(/\s+/g, ' ').slice(0, 200) : '';
        if (q === '') return [];
        const limit = clampLimit(options.limit);
        const { beforeRequest, lane } = options;
        const passed = {
          ...(beforeRequest ? { beforeRequest } : {}),
          ...(lane !== undefined ? { lane } : {}),
        };
        return (await fallback(q, { limit, ...passed })).slice(0, limit);
      }
      throw new AppError(
        'service_unavailable',
        'no CABYS catalogue is loaded (HACIENDA_DATA_DIR or an imported file) and no HACIENDA_PUBLIC_API_URL is set',
      );
    },
  };
}
