// The auth-server's settings, all from the environment and validated at start.
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { databaseSettingsProperties, loadConfig, telemetrySettingsProperties } from '@cr/service-kit';
import { type Static, Type } from '@sinclair/typebox';
import { PACKAGE_ROOT } from './package-root';
import { HASH_NICE } from './passwords';

export const REPO_ROOT = resolve(PACKAGE_ROOT, '../..');

export const AuthConfigSchema = Type.Object({
  NODE_ENV: Type.String({ default: 'development' }),
  AUTH_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 4000 }),
  /** Loopback unless asked: the images set 0.0.0.0 (a container is reached through its network only). */
  AUTH_HOST: Type.String({ default: '127.0.0.1' }),
  AUTH_ISSUER: Type.String({ format: 'uri', default: 'http://localhost:4000' }),
  AUTH_AUDIENCE: Type.String({ minLength: 1, default: 'tenant-api' }),
  /** Guards /admin/*; when unset the admin API answers 404 as if it did not exist. */
  AUTH_ADMIN_TOKEN: Type.Optional(Type.String({ minLength: 24 })),
  /** `id:base64key[,id:base64key…]`, newest first; generated into DATA_DIR outside production when unset. */
  SECRETS_KEY: Type.Optional(Type.String({ minLength: 1 })),
  ...databaseSettingsProperties,
  DATABASE_URL: Type.Optional(Type.String({ minLength: 1 })),
  DATA_DIR: Type.String({ default: join(REPO_ROOT, '.data', 'auth-server') }),
  LOG_LEVEL: Type.String({ default: 'info' }),
  ...telemetrySettingsProperties(9400),
  /** `parseTrustProxy`: false, true (= one hop, the gateway), a hop count or addresses/subnets. */
  TRUST_PROXY: Type.Optional(Type.String()),
  /** Opens GET /health/details (the readiness reasons); unset → that route does not exist. */
  HEALTH_TOKEN: Type.Optional(Type.String({ minLength: 16 })),
  /** Cache-Control max-age of the JWKS; a retired key stays published this much past its last token. */
  JWKS_MAX_AGE_SECONDS: Type.Integer({ minimum: 0, maximum: 3600, default: 300 }),
  /** How often a replica re-reads keys from the database (another replica may have rotated). */
  KEY_REFRESH_SECONDS: Type.Integer({ minimum: 1, maximum: 3600, default: 60 }),
  ARGON2_MEMORY_KIB: Type.Integer({ minimum: 8192, maximum: 1048576, default: 19456 }),
  ARGON2_TIME_COST: Type.Integer({ minimum: 1, maximum: 20, default: 2 }),
  ARGON2_PARALLELISM: Type.Integer({ minimum: 1, maximum: 16, default: 1 }),
  /**
   * Password hashes computed at once; more wait in a bounded queue, and beyond that get 503. One core is
   * left to the event loop so JWKS and health stay fast while logins saturate the others.
   */
  HASH_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 64,
    default: Math.max(1, availableParallelism() - 1),
  }),
  HASH_QUEUE_LIMIT: Type.Integer({ minimum: 0, maximum: 100000, default: 512 }),
  /** Logouts per credential and minute (logout-limit.ts): each is a revocation every tenant-api replica holds. */
  LOGOUTS_PER_MINUTE: Type.Integer({ minimum: 0, maximum: 100000, default: 60 }),
  /** Nice value of the argon2 threads (Linux): 0 competes with the event loop, 19 takes only idle CPU. */
  HASH_NICE: Type.Integer({ minimum: 0, maximum: 19, default: HASH_NICE }),
});
export type AuthConfig = Static<typeof AuthConfigSchema>;

export function loadAuthConfig(env: NodeJS.ProcessEnv = process.env): AuthConfig {
  return loadConfig(AuthConfigSchema, env);
}
