// The tenant-api's CABYS search: the catalogue imported into DATA_DIR (`pnpm cabys:import <file>`) or else
// the one in HACIENDA_DATA_DIR (cabys.json or the BCCR xlsx), indexed in memory at start (ADR 0006); without
// either, Hacienda's public /fe/cabys. `reload()` swaps in a freshly imported copy without a restart; main.ts
// calls it when the imported file changes. The submissions' CABYS check asks it first (`has`, ADR 0066).
import { join } from 'node:path';
import { CABYS_JSON_NAME, type CabysSearch, createCabysSearch, loadCabysCatalogue } from '@cr/cabys';
import type { Logger } from '@cr/service-kit';
import { haciendaCabysFallback } from './cabys-fallback';
import type { PublicApiLookups } from './lookup-deps';

/** Where `cabys:import` installs its normalised copy for the tenant-api to load. */
export function importedCabysPath(dataDir: string): string {
  return join(dataDir, CABYS_JSON_NAME);
}

export interface TenantCabys extends CabysSearch {
  /** Loads the catalogue again; on failure the current one stays and the error is logged. */
  reload(): Promise<void>;
}

export async function loadTenantCabys(options: {
  dataDir: string;
  haciendaDataDir?: string;
  publicApi: Pick<PublicApiLookups, 'cabys' | 'cabysByCodigo'>;
  logger: Logger;
}): Promise<TenantCabys> {
  const fallback = haciendaCabysFallback(options.publicApi);
  const build = async (): Promise<CabysSearch> => {
    const loaded = await loadCabysCatalogue({
      files: [importedCabysPath(options.dataDir)],
      dirs: options.haciendaDataDir ? [options.haciendaDataDir] : [],
    });
    if (loaded) {
      options.logger.info(`CABYS catalogue: ${loaded.count} codes from ${loaded.file} (${loaded.loadMs} ms)`);
      return createCabysSearch({ index: loaded.index });
    }
    options.logger.warn(
      'no local CABYS catalogue (run `pnpm cabys:import <file>` or set HACIENDA_DATA_DIR); searches go to Hacienda, and so does every CABYS code a document is checked for before signing',
    );
    return createCabysSearch({ fallback });
  };
  let current = await build();
  return {
    get source() {
      return current.source;
    },
    has: (code) => current.has(code),
    search: (query, opts) => current.search(query, opts),
    async reload() {
      try {
        current = await build();
      } catch (err) {
        options.logger.error('CABYS catalogue reload failed; the previous one stays in use', { err });
      }
    },
  };
}
