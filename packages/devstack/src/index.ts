export * from './growth';
export * from './process-memory';
export * from './service-databases';
export * from './node-heap';
export * from './bundle-path';
// The launcher's development admin token is written as the apps write their development secrets.
export { loadOrCreateDevSecret } from '@cr/service-kit';
