// @cr/tenant-api: the app factory and the pieces later features build on.
export * from './app';
export * from './compose';
export * from './config';
export * from './auth/token-verifier';
export * from './auth/require-auth';
export * from './auth/key-source';
export * from './auth/revocation-list';
export * from './auth/build-auth';
export * from './tenancy/resolve-tenant';
export * from './db/with-tenant';
export * from './territory/territorial-table';
export * from './emisor/issuer-deps';
export * from './emisor/load-signing-material';
export * from './emisor/certificate';
export * from './webhooks';
export { loadTenantCabys, type TenantCabys } from './lookups/cabys-catalogue';
