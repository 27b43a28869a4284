export * from './context';
export * from './tracing';
export * from './metrics';
export * from './metrics-server';
export * from './db-metrics';
export * from './settings';
export * from './start';
