// Starts the Hacienda sandbox: config, logger, database (migrations), keys, then composeSandbox (catalogue,
// processor resuming pending documents, HTTP app); provisions the demo setup on first start and prints how to use it.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  exitWhenDatabaseStops,
  createLogger,
  listen,
  migrate,
  onShutdown,
  databaseOptionsOf,
  openDatabase,
  readMigrations,
  startTelemetry,
} from '@cr/service-kit';
import { loadOrCreateKeys } from './certificate-authority';
import { composeSandbox } from './compose';
import { loadSandboxConfig } from './config';
import { provisionDemo } from './demo';
import { MIGRATIONS_DIR } from './package-root';

async function main(): Promise<void> {
  const config = loadSandboxConfig();
  const logger = createLogger({ service: 'hacienda-sandbox', level: config.LOG_LEVEL });
  mkdirSync(config.DATA_DIR, { recursive: true });
  const db = await openDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: join(config.DATA_DIR, 'db'),
    applicationName: 'hacienda-sandbox',
    ...databaseOptionsOf(config),
    onStopped: exitWhenDatabaseStops(logger),
    logger,
  });
  await migrate(db, readMigrations(MIGRATIONS_DIR));
  const keys = loadOrCreateKeys(config.DATA_DIR);
  const { app, processor, faults, cabys, xsd } = composeSandbox({ config, logger, db, keys });
  if (!xsd.available)
    logger.warn('HACIENDA_XSD_DIR not found: documents are not validated against the XSD', {
      dir: config.HACIENDA_XSD_DIR,
    });
  if (!cabys.complete)
    logger.warn('cabys.json not found in HACIENDA_DATA_DIR: only built-in CABYS entries', {
      dir: config.HACIENDA_DATA_DIR,
    });
  if (config.openMode)
    logger.warn(
      'open mode: unknown IdP users are auto-provisioned; admin API open unless SANDBOX_ADMIN_TOKEN is set',
    );
  if (config.SANDBOX_TRUST_ANY_CA)
    logger.warn('SANDBOX_TRUST_ANY_CA=true: signatures from any certificate authority are accepted');

  // The demo (its RSA key takes seconds on a busy machine) is provisioned before listening, so once the
  // health check answers, startup is over and a SIGTERM always meets the shutdown handlers below.
  const { demo, created } = await provisionDemo(db, keys.ca, config.DATA_DIR);
  const resumed = await processor.resume();
  const telemetry = await startTelemetry({ service: 'hacienda-sandbox', settings: config, logger, db });
  const server = await listen(app, config.SANDBOX_PORT, config.SANDBOX_HOST);
  const base = config.SANDBOX_PUBLIC_URL ?? server.url;
  logger.info('hacienda-sandbox listening', { url: server.url, resumed, database: db.kind });
  onShutdown(logger, [
    () => server.close(),
    () => telemetry.stop(),
    () => {
      faults.close();
    },
    () => processor.close(),
    () => db.close(),
  ]);

  process.stdout.write(
    [
      '',
      `Hacienda sandbox on ${base}${created ? ' (demo provisioned now)' : ''}`,
      `  IdP token:   POST ${base}/auth/realms/rut-stag/protocol/openid-connect/token  (client_id=api-stag)`,
      `  Recepción:   ${base}/recepcion/v1/recepcion`,
      `  Public API:  ${base}/fe/ae?identificacion=${demo.identificacion}`,
      `  Demo user:   ${demo.username}  (emisor ${demo.identificacion}, actividad ${demo.codigoActividad})`,
      `  Demo key:    ${demo.p12Path}`,
      ...(demo.exoneracion
        ? [`  Exoneration: ${demo.exoneracion}  (held by ${demo.exoneracionReceptor}, 13 %)`]
        : []),
      // The password and PIN stay in the file, out of terminal scroll-back and log collectors.
      `  Password and PIN: ${join(config.DATA_DIR, 'demo', 'demo.json')}`,
      `  Admin API:   ${base}/sandbox/…${config.SANDBOX_ADMIN_TOKEN ? ' (Bearer SANDBOX_ADMIN_TOKEN)' : config.openMode ? ' (open: no SANDBOX_ADMIN_TOKEN set)' : ' (disabled: set SANDBOX_ADMIN_TOKEN)'}`,
      '',
    ].join('\n'),
  );
}

main().catch((err: unknown) => {
  process.stderr.write(
    `hacienda-sandbox failed to start: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
});
