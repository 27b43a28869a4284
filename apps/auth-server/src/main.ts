// Starts the auth-server: settings from the environment (a bad one stops the process naming it), logger,
// database with migrations, signing keys (created on a fresh database), the HTTP app, periodic upkeep
// (re-reading keys rotated by another replica, pruning expired revocations and stale counters), and a
// graceful shutdown on SIGINT/SIGTERM.
import { join, resolve } from 'node:path';
import {
  exitWhenDatabaseStops,
  ConfigError,
  SecretBox,
  createLogger,
  listen,
  loadOrCreateDevSecret,
  migrate,
  onShutdown,
  databaseOptionsOf,
  openDatabase,
  parseTrustProxy,
  readMigrations,
  startTelemetry,
} from '@cr/service-kit';
import { createApp } from './app';
import { loadAuthConfig } from './config';
import { MIGRATIONS_DIR } from './package-root';
import { createAuthServices } from './services';

async function main(): Promise<void> {
  let config: ReturnType<typeof loadAuthConfig>;
  try {
    config = loadAuthConfig();
    parseTrustProxy(config.TRUST_PROXY);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`auth-server: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger({ service: 'auth-server', level: config.LOG_LEVEL });
  const production = config.NODE_ENV === 'production';
  const dataDir = resolve(config.DATA_DIR);

  let secretsKey = config.SECRETS_KEY;
  if (!secretsKey) {
    if (production) {
      console.error('auth-server: invalid configuration: SECRETS_KEY: is required in production');
      process.exit(2);
    }
    secretsKey = loadOrCreateDevSecret(
      join(dataDir, 'secrets-key'),
      () => SecretBox.generateSetting('dev1'),
      logger,
      'SECRETS_KEY',
    );
  }
  let secretBox: SecretBox;
  try {
    secretBox = SecretBox.fromSetting(secretsKey);
  } catch (err) {
    console.error(`auth-server: invalid configuration: SECRETS_KEY: ${(err as Error).message}`);
    process.exit(2);
  }
  if (!config.AUTH_ADMIN_TOKEN) logger.warn('AUTH_ADMIN_TOKEN is not set: the admin API is disabled');

  const db = await openDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: join(dataDir, 'pgdata'),
    applicationName: 'auth-server',
    ...databaseOptionsOf(config),
    onStopped: exitWhenDatabaseStops(logger),
    logger,
  });
  const applied = await migrate(db, readMigrations(MIGRATIONS_DIR));
  if (applied.length) logger.info('migrations applied', { applied });

  const services = await createAuthServices({
    db,
    secretBox,
    logger,
    issuer: config.AUTH_ISSUER,
    audience: config.AUTH_AUDIENCE,
    adminToken: config.AUTH_ADMIN_TOKEN,
    jwksMaxAgeSeconds: config.JWKS_MAX_AGE_SECONDS,
    argon2: {
      memoryCost: config.ARGON2_MEMORY_KIB,
      timeCost: config.ARGON2_TIME_COST,
      parallelism: config.ARGON2_PARALLELISM,
    },
    hashConcurrency: config.HASH_CONCURRENCY,
    hashQueueLimit: config.HASH_QUEUE_LIMIT,
    hashNice: config.HASH_NICE,
    trustProxy: parseTrustProxy(config.TRUST_PROXY),
    healthToken: config.HEALTH_TOKEN,
    logoutsPerMinute: config.LOGOUTS_PER_MINUTE,
  });

  const upkeep = setInterval(() => {
    void (async () => {
      await services.keys.refresh();
      await services.revocations.pruneExpired();
      await services.throttle.prune();
      await services.logouts.prune();
    })().catch((err: unknown) => logger.error('upkeep failed', { err }));
  }, config.KEY_REFRESH_SECONDS * 1000);
  upkeep.unref();

  const app = createApp(services);
  const telemetry = await startTelemetry({ service: 'auth-server', settings: config, logger, db });
  const server = await listen(app, config.AUTH_PORT, config.AUTH_HOST);
  const current = services.keys.currentKey();
  logger.info('auth-server listening', {
    url: server.url,
    issuer: config.AUTH_ISSUER,
    audience: config.AUTH_AUDIENCE,
    database: db.kind,
    kid: current?.kid,
  });
  console.info(`auth-server listening on ${server.url} (JWKS ${server.url}/.well-known/jwks.json)`);

  onShutdown(logger, [
    () => clearInterval(upkeep),
    () => server.close(),
    () => services.hasher.close(),
    () => telemetry.stop(),
    () => db.close(),
  ]);
}

main().catch((err: unknown) => {
  console.error('auth-server failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
