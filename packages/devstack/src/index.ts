export * from './growth';
export * from './process-memory';
export * from './service-databases';
export * from './node-heap';
export * from './bundle-path';
