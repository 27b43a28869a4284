export * from './types';
export * from './migrate';
export * from './open';
export { openPglite } from './pglite';
export { DataDirInUseError } from './pglite-lock';
export { startPgliteMaintenance, type PgliteMaintenance } from './pglite-maintenance';
export { openPostgres } from './postgres';
export * from './settings';
export { CteWrites } from './cte-writes';
