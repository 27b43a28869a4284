// The one search the HTTP route calls: the local index when a catalogue is loaded, otherwise Hacienda's
// public API through the cached client.
import { AppError } from '@cr/service-kit';
import type { CabysItem } from './catalogue';
import type { CabysPublicClient } from './public-client';
import type { CabysIndex, SearchOptions } from './search-index';

export type CabysSource = 'local' | 'hacienda';

export interface CabysSearch {
  /** Where answers come from; undefined when neither a catalogue nor the public API is configured. */
  readonly source: CabysSource | undefined;
  /** Ranked results, best first. Rejects with `upstream_error` when the fallback cannot reach Hacienda and
   *  `service_unavailable` when there is no source at all. */
  search(query: string, options?: SearchOptions): Promise<CabysItem[]>;
}

export function createCabysSearch(deps: { index?: CabysIndex; fallback?: CabysPublicClient }): CabysSearch {
  const { index, fallback } = deps;
  const source: CabysSource | undefined = index ? 'local' : fallback ? 'hacienda' : undefined;
  return {
    source,
    async search(query, options = {}) {
      if (index) return index.search(query, options);
      if (fallback) return fallback.search(query, options);
      throw new AppError(
        'service_unavailable',
        'no CABYS catalogue is loaded (HACIENDA_DATA_DIR or an imported file) and no HACIENDA_PUBLIC_API_URL is set',
      );
    },
  };
}
