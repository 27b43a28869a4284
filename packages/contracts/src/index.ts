export * from './ajv';
export * from './error.schema';
export * from './login.schema';
export * from './common.schema';
export * from './document.schema';
export * from './emisor.schema';
export * from './lookups.schema';
