// Starts the tenant API: settings, logger, database (migrations at start), secret box, territorial table,
// token verification, Hacienda's clients and the CABYS catalogue (reloaded when `pnpm cabys:import` installs a
// new copy); composeTenantApi builds the use cases, the jobs worker and the app; then it listens, watches
// certificate expiries and shuts down gracefully on signals (the worker stops before the database closes).
import { unwatchFile, watchFile } from 'node:fs';
import { join } from 'node:path';
import {
  SecretBox,
  createLogger,
  listen,
  loadOrCreateDevSecret,
  migrate,
  onShutdown,
  openDatabase,
} from '@cr/service-kit';
import { createHaciendaClients } from '@cr/hacienda-client';
import { buildAuth } from './auth/build-auth';
import { composeTenantApi } from './compose';
import { loadTenantConfig } from './config';
import { tenantApiMigrations } from './db/with-tenant';
import { watchCertificateExpiries } from './emisor/certificate-expiry';
import { importedCabysPath, loadTenantCabys } from './lookups/cabys-catalogue';
import { loadTerritory } from './territory/load-territory';

async function main(): Promise<void> {
  const config = loadTenantConfig();
  const logger = createLogger({ service: 'tenant-api', level: config.LOG_LEVEL });
  // Issuers' passwords, PINs and keys are sealed with SECRETS_KEY: a generated development key would make
  // them unreadable after the data directory is lost, so production never falls back to one.
  if (!config.SECRETS_KEY && config.NODE_ENV === 'production') {
    console.error('tenant-api: invalid configuration: SECRETS_KEY: is required in production');
    process.exit(2);
  }
  const db = await openDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: join(config.DATA_DIR, 'db'),
    applicationName: 'tenant-api',
  });
  const applied = await migrate(db, tenantApiMigrations());
  if (applied.length) logger.info('migrations applied', { applied });
  const secrets = SecretBox.fromSetting(
    config.SECRETS_KEY ??
      loadOrCreateDevSecret(
        join(config.DATA_DIR, 'secrets-key'),
        () => SecretBox.generateSetting('dev1'),
        logger,
        'SECRETS_KEY',
      ),
  );
  const territory = loadTerritory(config.HACIENDA_DATA_DIR, logger);
  const auth = buildAuth(config, logger);
  await auth.start();
  const now = () => new Date();
  const hacienda = createHaciendaClients(config, { logger, timeoutMs: config.HACIENDA_TIMEOUT_MS });
  const cabys = await loadTenantCabys({
    dataDir: config.DATA_DIR,
    haciendaDataDir: config.HACIENDA_DATA_DIR,
    publicApi: hacienda.publicApi,
    logger,
  });
  // `pnpm cabys:import` replaces the copy; the running service swaps in the new index.
  const cabysCopy = importedCabysPath(config.DATA_DIR);
  watchFile(cabysCopy, { interval: config.CABYS_RELOAD_CHECK_SECONDS * 1000, persistent: false }, (cur) => {
    if (cur.isFile()) void cabys.reload();
  });
  const { app, worker } = composeTenantApi({
    config,
    db,
    logger,
    secrets,
    territory,
    cabys,
    hacienda,
    verifier: auth.verifier,
    readiness: auth.readiness,
    now,
  });
  const stopWatch = watchCertificateExpiries({
    db,
    logger,
    now,
    certificateWarningDays: config.CERT_EXPIRY_WARNING_DAYS,
  });
  const server = await listen(app, config.TENANT_PORT, config.TENANT_HOST);
  worker.start();
  logger.info(
    `tenant-api listening on ${server.url} (tenants at http://<tenant>.${config.TENANT_BASE_DOMAIN}:${server.port})`,
  );
  onShutdown(logger, [
    () => server.close(),
    () => {
      stopWatch();
      unwatchFile(cabysCopy);
      auth.stop();
    },
    () => worker.stop(),
    () => db.close(),
  ]);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
