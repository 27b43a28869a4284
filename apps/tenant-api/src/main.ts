// Starts the tenant API: settings, logger, database (migrations at start), secret box, territorial table,
// token verification, Hacienda's clients and the CABYS catalogue (reloaded when `pnpm cabys:import` installs a
// new copy); composeTenantApi builds the use cases, the jobs worker and the app; then it listens, watches
// certificate expiries and shuts down gracefully on signals (the worker stops before the database closes).
// With WEB_CONCURRENCY > 1 (or JOBS_PROCESSES set) this process becomes the primary of a node:cluster and
// each worker runs the above (cluster/run-primary.ts): the serving workers listen and run no jobs, the jobs
// processes run the jobs at JOBS_NICE and listen on nothing (cluster/jobs-process.ts, ADR 0060).
import cluster from 'node:cluster';
import { unwatchFile, watchFile } from 'node:fs';
import { join } from 'node:path';
import {
  exitWhenDatabaseStops,
  SecretBox,
  createLogger,
  listen,
  loadOrCreateDevSecret,
  migrate,
  onShutdown,
  databaseOptionsOf,
  openDatabase,
  startClusterMetrics,
  startTelemetry,
} from '@cr/service-kit';
import { createHaciendaClients } from '@cr/hacienda-client';
import { buildAuth } from './auth/build-auth';
import {
  forwardJobWakeups,
  niceEveryThread,
  receiveJobWakeups,
  sendToPrimary,
  workerRole,
} from './cluster/jobs-process';
import { runPrimary, workerIndex } from './cluster/run-primary';
import { jobsProcesses, webConcurrency } from './cluster/web-concurrency';
import { composeTenantApi } from './compose';
import { loadTenantConfig } from './config';
import { tenantApiMigrations } from './db/with-tenant';
import { watchCertificateExpiries } from './emisor/certificate-expiry';
import { PinnedTrustError, loadHaciendaTrust, loadSupplierTrust } from './pinned-trust';
import { importedCabysPath, loadTenantCabys } from './lookups/cabys-catalogue';
import { loadTerritory } from './territory/load-territory';

async function main(): Promise<void> {
  const config = loadTenantConfig();
  const slot = workerIndex();
  const role = slot === undefined ? 'all' : workerRole();
  const rootLogger = createLogger({ service: 'tenant-api', level: config.LOG_LEVEL });
  const logger = slot === undefined ? rootLogger : rootLogger.child({ worker: slot });
  // First, so that every thread the process starts from here on inherits the priority.
  if (role === 'jobs') {
    const threads = niceEveryThread(config.JOBS_NICE);
    logger.info('tenant-api jobs process', { nice: config.JOBS_NICE, threads });
  }
  // Issuers' passwords, PINs and keys are sealed with SECRETS_KEY: a generated development key would make
  // them unreadable after the data directory is lost, so production never falls back to one.
  if (!config.SECRETS_KEY && config.NODE_ENV === 'production') {
    console.error('tenant-api: invalid configuration: SECRETS_KEY: is required in production');
    process.exit(2);
  }
  // An unverified MensajeHacienda could come from anyone who can answer in Hacienda's place.
  if (!config.HACIENDA_CA_BUNDLE && config.NODE_ENV === 'production') {
    console.error('tenant-api: invalid configuration: HACIENDA_CA_BUNDLE: is required in production');
    process.exit(2);
  }
  const haciendaTrust = loadHaciendaTrust(config);
  if (!haciendaTrust) {
    logger.warn(
      "HACIENDA_CA_BUNDLE is not set: Hacienda's answers are checked against the certificate they carry only (development)",
    );
  }
  const supplierTrust = loadSupplierTrust(config);
  if (!supplierTrust) {
    logger.warn(
      "RECEPCION_CA_BUNDLE is not set: received documents' signers are not checked against a CA (a finding says so)",
    );
  }
  let processes: number;
  let jobsOnly: number;
  try {
    processes = webConcurrency(config);
    jobsOnly = jobsProcesses(config, processes);
  } catch (err) {
    console.error(`tenant-api: invalid configuration: ${err instanceof Error ? err.message : err}`);
    process.exit(2);
  }
  if ((processes > 1 || jobsOnly > 0) && cluster.isPrimary) {
    // A development key is generated once, here: workers generating their own at the same moment would
    // seal with different keys under the same id.
    const env: Record<string, string> = {};
    if (!config.SECRETS_KEY) {
      env.SECRETS_KEY = loadOrCreateDevSecret(
        join(config.DATA_DIR, 'secrets-key'),
        () => SecretBox.generateSetting('dev1'),
        logger,
        'SECRETS_KEY',
      );
    }
    runPrimary({ workers: processes, jobsProcesses: jobsOnly, logger, env });
    // One /metrics for the service: the primary's listener sums what its workers report.
    await startClusterMetrics({ settings: config, logger });
    return;
  }
  const db = await openDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: join(config.DATA_DIR, 'db'),
    applicationName: 'tenant-api',
    ...databaseOptionsOf(config),
    onStopped: exitWhenDatabaseStops(logger),
    logger,
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
  // A cluster's serving worker runs no jobs: its wake-ups reach the jobs processes through the primary.
  const forwarded = role === 'web' ? forwardJobWakeups() : undefined;
  const { app, worker, schedulePeriodicRuns, stopMetrics, resources } = composeTenantApi({
    config,
    db,
    logger,
    secrets,
    territory,
    cabys,
    hacienda,
    ...(haciendaTrust ? { haciendaTrust } : {}),
    ...(supplierTrust ? { supplierTrust } : {}),
    verifier: auth.verifier,
    readiness: auth.readiness,
    revocations: auth.revocationList,
    now,
    ...(forwarded ? { wakeJobs: forwarded.wake } : {}),
  });
  // One watcher per service, not per worker: slot 0 (or the only process) logs the expiry warnings.
  const stopWatch =
    slot === undefined || slot === 0
      ? watchCertificateExpiries({
          db,
          logger,
          now,
          certificateWarningDays: config.CERT_EXPIRY_WARNING_DAYS,
        })
      : () => undefined;
  const telemetry = await startTelemetry({
    service: 'tenant-api',
    settings: config,
    logger,
    db,
    clusterWorker: slot !== undefined,
  });
  // Today's receiving-deadline scan and this hour's housekeeping, if they have not run; then they chain.
  // Before listening, as every step of the start: once /health/live answers, a SIGTERM must meet the
  // shutdown handlers below, not the default action (killed mid-statement, exit by signal).
  if (role !== 'web') {
    await schedulePeriodicRuns(new Date());
    worker.start();
  }
  let server: Awaited<ReturnType<typeof listen>> | undefined;
  let stopReceiving = () => {};
  if (role === 'jobs') {
    stopReceiving = receiveJobWakeups(() => worker.wake());
    sendToPrimary({ type: 'tenant-api:jobs-ready' });
    logger.info('tenant-api jobs worker running', { nice: config.JOBS_NICE });
  } else {
    server = await listen(app, config.TENANT_PORT, config.TENANT_HOST);
    logger.info(
      `tenant-api listening on ${server.url} (tenants at http://<tenant>.${config.TENANT_BASE_DOMAIN}:${server.port})`,
    );
  }
  // 25 s to drain: a job may be waiting on Hacienda (HACIENDA_TIMEOUT_MS) or a webhook receiver; under the
  // 30-s grace of the k8s manifests and the compose file, after which they kill the process anyway.
  onShutdown(
    logger,
    [
      () => server?.close(),
      () => telemetry.stop(),
      () => {
        stopWatch();
        stopMetrics();
        unwatchFile(cabysCopy);
        auth.stop();
        forwarded?.stop();
        stopReceiving();
      },
      () => worker.stop(),
      () => resources.close(),
      () => db.close(),
    ],
    25_000,
  );
}

main().catch((err: unknown) => {
  if (err instanceof PinnedTrustError) {
    console.error(`tenant-api: invalid configuration: ${err.message}`);
    process.exit(2);
  }
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
