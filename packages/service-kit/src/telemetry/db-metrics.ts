import type { Db } from '../db/types';
import { metrics, onScrape } from './metrics';

/** db_pool_connections{state} from the database handle at every scrape. */
export function collectDbPoolMetrics(db: Db): () => void {
  return onScrape('db-pool', async () => {
    const stats = db.poolStats?.();
    if (!stats) return;
    metrics.db.connections.set({ state: 'total' }, stats.total);
    metrics.db.connections.set({ state: 'idle' }, stats.idle);
    metrics.db.connections.set({ state: 'waiting' }, stats.waiting);
  });
}
