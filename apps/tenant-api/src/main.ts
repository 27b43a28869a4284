// Starts the tenant API: settings, logger, database (migrations at start), secret box, territorial table,
// token verification, the certificate expiry watch, the job worker (webhook deliveries); then listens and
// shuts down gracefully on signals (the worker stops before the database closes).
import { join } from 'node:path';
import { Worker, jobsMigrations } from '@cr/jobs';
import {
  SecretBox,
  createLogger,
  listen,
  loadOrCreateDevSecret,
  migrate,
  onShutdown,
  openDatabase,
} from '@cr/service-kit';
import { createApp } from './app';
import { buildAuth } from './auth/build-auth';
import { loadTenantConfig } from './config';
import { tenantApiMigrations } from './db/with-tenant';
import { watchCertificateExpiries } from './emisor/certificate-expiry';
import { loadTerritory } from './territory/load-territory';
import { webhookQueues } from './webhooks/deliver-webhook-job';
import type { WebhookDeps } from './webhooks/webhook-deps';

async function main(): Promise<void> {
  const config = loadTenantConfig();
  const logger = createLogger({ service: 'tenant-api', level: config.LOG_LEVEL });
  const db = await openDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: join(config.DATA_DIR, 'db'),
    applicationName: 'tenant-api',
  });
  const applied = await migrate(db, [...tenantApiMigrations(), ...jobsMigrations]);
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
  const webhookDeps: WebhookDeps = {
    db,
    secrets,
    logger,
    now,
    webhooks: {
      allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    },
  };
  const app = createApp({
    ...webhookDeps,
    territory,
    certificateWarningDays: config.CERT_EXPIRY_WARNING_DAYS,
    verifier: auth.verifier,
    baseDomain: config.TENANT_BASE_DOMAIN,
    trustProxy: config.TRUST_PROXY,
    bodyLimit: config.BODY_LIMIT,
    readiness: auth.readiness,
  });
  const stopWatch = watchCertificateExpiries({
    db,
    logger,
    now,
    certificateWarningDays: config.CERT_EXPIRY_WARNING_DAYS,
  });
  const worker = new Worker({ db, logger, queues: { ...webhookQueues(webhookDeps) } });
  worker.start();
  const server = await listen(app, config.TENANT_PORT, config.TENANT_HOST);
  logger.info(
    `tenant-api listening on ${server.url} (tenants at http://<tenant>.${config.TENANT_BASE_DOMAIN}:${server.port})`,
  );
  onShutdown(logger, [
    () => server.close(),
    () => {
      stopWatch();
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
