// Settings of the sandbox, every one overridable by the environment. Open mode (auto-provisioned IdP users,
// unguarded admin API when no token is set) is the development default and off in production.
import { join, resolve } from 'node:path';
import { databaseSettingsProperties, loadConfig, telemetrySettingsProperties } from '@cr/service-kit';
import { type Static, Type } from '@sinclair/typebox';
import { PACKAGE_ROOT } from './package-root';

export const REPO_ROOT = resolve(PACKAGE_ROOT, '../..');

export const SandboxConfigSchema = Type.Object({
  SANDBOX_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 4002 }),
  /** Loopback unless asked (its admin API may be open in development); the image sets 0.0.0.0. */
  SANDBOX_HOST: Type.String({ default: '127.0.0.1' }),
  /** Opens GET /health/details (the readiness reasons); unset → that route does not exist. */
  HEALTH_TOKEN: Type.Optional(Type.String({ minLength: 16 })),
  DATA_DIR: Type.String({ default: join(REPO_ROOT, '.data', 'hacienda-sandbox') }),
  ...databaseSettingsProperties,
  DATABASE_URL: Type.Optional(Type.String()),
  LOG_LEVEL: Type.String({ default: 'info' }),
  ...telemetrySettingsProperties(9402),
  /** Public base URL (Location headers, token `iss`); default: the address the client used. */
  SANDBOX_PUBLIC_URL: Type.Optional(Type.String({ format: 'uri' })),
  NODE_ENV: Type.String({ default: 'development' }),
  SANDBOX_OPEN_MODE: Type.Optional(Type.Boolean()),
  SANDBOX_ADMIN_TOKEN: Type.Optional(Type.String({ minLength: 16 })),
  SANDBOX_TRUST_ANY_CA: Type.Boolean({ default: false }),
  SANDBOX_PROCESSING_DELAY_MS: Type.Integer({ minimum: 0, default: 1000 }),
  SANDBOX_ACCESS_TOKEN_TTL: Type.Integer({ minimum: 1, default: 300 }),
  SANDBOX_REFRESH_TOKEN_TTL: Type.Integer({ minimum: 1, default: 1800 }),
  SANDBOX_RECEPCION_RATE_LIMIT: Type.Integer({ minimum: 1, default: 120 }),
  SANDBOX_RECEPCION_RATE_WINDOW_S: Type.Integer({ minimum: 1, default: 60 }),
  SANDBOX_PUBLIC_RATE_LIMIT: Type.Integer({ minimum: 1, default: 100 }),
  SANDBOX_PUBLIC_RATE_WINDOW_S: Type.Integer({ minimum: 1, default: 5 }),
  SANDBOX_CALLBACK_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 5000 }),
  SANDBOX_CALLBACK_RETRY_DELAY_MS: Type.Integer({ minimum: 0, default: 1000 }),
  HACIENDA_XSD_DIR: Type.String({ default: join(REPO_ROOT, '..', 'shared', 'hacienda', 'xsd') }),
  HACIENDA_DATA_DIR: Type.String({ default: join(REPO_ROOT, '..', 'shared', 'hacienda', 'cabys') }),
});

export interface SandboxConfig extends Static<typeof SandboxConfigSchema> {
  /** Resolved: SANDBOX_OPEN_MODE, or true outside production. */
  openMode: boolean;
}

export function loadSandboxConfig(env: Record<string, string | undefined> = process.env): SandboxConfig {
  const raw = loadConfig(SandboxConfigSchema, env);
  return { ...raw, openMode: raw.SANDBOX_OPEN_MODE ?? raw.NODE_ENV !== 'production' };
}
