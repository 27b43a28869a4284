export * from './types';
export * from './migrate';
export * from './open';
export { openPglite } from './pglite';
export { startPgliteMaintenance, type PgliteMaintenance } from './pglite-maintenance';
export { openPostgres } from './postgres';
export * from './settings';
export { CteWrites } from './cte-writes';
