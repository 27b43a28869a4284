export * from './types';
export * from './migrate';
export * from './open';
export { openPglite } from './pglite';
export { openPostgres } from './postgres';
export * from './settings';
