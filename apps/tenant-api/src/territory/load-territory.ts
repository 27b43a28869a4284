// Loads the territorial table at start; without it addresses are checked by shape only, loudly.
import type { Logger } from '@cr/service-kit';
import { TERRITORIAL_FILE, TerritorialTable } from './territorial-table';

export function loadTerritory(dir: string | undefined, logger: Logger): TerritorialTable | undefined {
  const table = dir ? TerritorialTable.loadFrom(dir) : undefined;
  if (!table) {
    logger.warn(
      `territorial table ${TERRITORIAL_FILE} not found${dir ? ` in ${dir}` : ' (HACIENDA_DATA_DIR is not set)'}: issuer addresses are checked by shape only`,
    );
    return undefined;
  }
  logger.info('territorial table loaded', { barrios: table.size });
  return table;
}
