export * from './signature';
export * from './target-policy';
export { DEFAULT_DNS_TIMEOUT_MS, DEFAULT_DNS_TRIES, type ResolverOptions } from './resolve-host';
export * from './deliver';
export * from './schedule';
