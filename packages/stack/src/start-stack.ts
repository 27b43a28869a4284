// The three services in this process, each assembled from its own app's factories as its main.ts does
// (auth-server: createAuthServices + createApp; hacienda-sandbox: composeSandbox + the demo;
// tenant-api: composeTenantApi), on free loopback ports and throw-away databases (PGlite, or PostgreSQL
// with TEST_DATABASE_URL). The apps still never import each other: this package composes them for the
// tests of their clients (SDK, CLI, documentation examples). Hacienda is the real sandbox, tokens come from
// the real auth-server, webhooks are really delivered.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AUTH_MIGRATIONS_DIR, createApp as createAuthApp, createAuthServices } from '@cr/auth-server';
import { createHaciendaClients } from '@cr/hacienda-client';
import {
  type DemoSetup,
  SANDBOX_MIGRATIONS_DIR,
  composeSandbox,
  loadOrCreateKeys,
  loadSandboxConfig,
  provisionDemo,
} from '@cr/hacienda-sandbox';
import {
  type Logger,
  type RunningServer,
  SecretBox,
  createLogger,
  createTestDatabase,
  listen,
  migrate,
  readMigrations,
} from '@cr/service-kit';
import {
  JwksKeySource,
  RevocationList,
  TerritorialTable,
  TokenVerifier,
  composeTenantApi,
  loadTenantCabys,
  revocationsUrlFor,
  tenantApiMigrations,
  tenantConfig,
} from '@cr/tenant-api';
import { freePort, haciendaDataDir, xsdDir } from '@cr/testkit';

export interface StackOptions {
  /** How long the sandbox takes to decide, ms. Default 200. */
  sandboxDelayMs?: number;
  /** Default LOG_LEVEL, else 'silent'. */
  logLevel?: string;
  /** Where each service's port comes from (default testkit's freePort). */
  choosePort?: () => Promise<number>;
}

export interface Stack {
  /** The auth-server, e.g. http://127.0.0.1:41234. */
  authUrl: string;
  sandboxUrl: string;
  tenantPort: number;
  /** A tenant's API: `http://<tenant>.localhost:<port>` (reach it with `@cr-einvoice/sdk/localhost`). */
  tenantUrl(tenant: string): string;
  /** AUTH_ADMIN_TOKEN of the auth-server. */
  adminToken: string;
  /** The sandbox's demo taxpayer, its Hacienda user, .p12 and PIN. */
  demo: DemoSetup;
  /** Creates a client (tenant) at the auth-server through its admin API. */
  createTenant(base: string, password: string): Promise<void>;
  /** The demo issuer's registration body (credentials and .p12 in base64), as a client would send it. */
  demoEmisor(): DemoEmisorRegistration;
  /** Moves the tenant-api's token clock (expiry checks) forward, to meet a token past its exp. */
  advanceTenantClock(seconds: number): void;
  /**
   * Runs `fn` while the auth-server is really down: its listener and open connections closed (callers get
   * connection refused), then listening again on the same port with the same app, whatever `fn` did.
   */
  whileAuthServerDown<T>(fn: () => Promise<T>): Promise<T>;
  stop(): Promise<void>;
}

export interface DemoEmisorRegistration {
  identificacion: number;
  tipoIdentificacion: number;
  codigoActividad: number;
  sucursal: number;
  nombreComercial: string;
  telefono: string;
  correoElectronico: string;
  ubicacion: { provincia: string; canton: string; distrito: string; barrio: string; direccion: string };
  ambiente: number;
  usuarioHacienda: string;
  claveHacienda: string;
  pinCertificado: string;
  certificadoHacienda: string;
}

const AUDIENCE = 'tenant-api';

/** Stacks startStack starts before giving up: another process can take a chosen port before it is bound. */
const START_ATTEMPTS = 5;

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startStackOnPorts(options);
    } catch (err) {
      // The ports are chosen before any service listens (each needs the others' addresses), so a port taken
      // meanwhile (a test run beside this one) fails a listen: the whole stack starts again on new ones.
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= START_ATTEMPTS) throw err;
    }
  }
}

async function startStackOnPorts(options: StackOptions): Promise<Stack> {
  const level = options.logLevel ?? process.env.LOG_LEVEL ?? 'silent';
  const logger = (service: string): Logger => createLogger({ service, level });
  const dataDir = mkdtempSync(join(tmpdir(), 'cr-stack-'));
  const choose = options.choosePort ?? freePort;
  const [authPort, tenantPort, sandboxPort] = [await choose(), await choose(), await choose()];
  const authUrl = `http://127.0.0.1:${authPort}`;
  const sandboxUrl = `http://127.0.0.1:${sandboxPort}`;
  const closers: Array<() => Promise<void> | void> = [
    () => rmSync(dataDir, { recursive: true, force: true }),
  ];
  const stop = async () => {
    for (const close of closers.splice(0).reverse()) {
      try {
        await close();
      } catch {
        // Stopping goes on: a failed close must not leave the other services running.
      }
    }
  };
  try {
    const sandbox = await startSandbox(
      sandboxPort,
      join(dataDir, 'sandbox'),
      options,
      logger('hacienda-sandbox'),
    );
    closers.push(sandbox.stop);

    const adminToken = SecretBox.generateSetting('adm')
      .replace(/[^A-Za-z0-9]/g, '')
      .slice(0, 40);
    const authDb = await createTestDatabase();
    closers.push(() => authDb.close());
    await migrate(authDb, readMigrations(AUTH_MIGRATIONS_DIR));
    const auth = await createAuthServices({
      db: authDb,
      secretBox: SecretBox.fromSetting(SecretBox.generateSetting('a1')),
      logger: logger('auth-server'),
      issuer: authUrl,
      audience: AUDIENCE,
      adminToken,
      // The smallest argon2 cost the settings allow: the stack is for tests, not for guessing resistance.
      argon2: { memoryCost: 8192, timeCost: 1, parallelism: 1 },
      hashConcurrency: 1,
      hashQueueLimit: 64,
    });
    const authApp = createAuthApp(auth);
    let authServer = await listen(authApp, authPort, '127.0.0.1');
    // The current listener: whileAuthServerDown replaces it.
    closers.push(() => authServer.close());

    let clockOffset = 0;
    const tenant = await startTenantApi({
      port: tenantPort,
      dataDir: join(dataDir, 'tenant'),
      authUrl,
      sandboxUrl,
      logger: logger('tenant-api'),
      nowSeconds: () => Math.floor(Date.now() / 1000) + clockOffset,
    });
    closers.push(tenant.stop);

    return {
      authUrl,
      sandboxUrl,
      tenantPort,
      tenantUrl: (name) => `http://${name}.localhost:${tenantPort}`,
      adminToken,
      demo: sandbox.demo,
      async createTenant(base, password) {
        const r = await fetch(`${authUrl}/admin/clients`, {
          method: 'POST',
          headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ base, password }),
        });
        if (r.status !== 201) throw new Error(`creating client ${base}: ${r.status} ${await r.text()}`);
      },
      demoEmisor: () => demoRegistration(sandbox.demo),
      advanceTenantClock(seconds) {
        clockOffset += seconds;
      },
      async whileAuthServerDown(fn) {
        const closed = authServer.close();
        // Kept-alive connections (the tenant-api's fetch pool) would otherwise still reach the app.
        authServer.server.closeAllConnections();
        await closed;
        try {
          return await fn();
        } finally {
          authServer = await listen(authApp, authPort, '127.0.0.1');
        }
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

function demoRegistration(demo: DemoSetup): DemoEmisorRegistration {
  return {
    identificacion: Number(demo.identificacion),
    tipoIdentificacion: 2,
    codigoActividad: Number(demo.codigoActividad),
    sucursal: 1,
    nombreComercial: 'Demo',
    telefono: '22223333',
    correoElectronico: 'facturas@demo.cr',
    ubicacion: {
      provincia: '1',
      canton: '01',
      distrito: '01',
      barrio: '02',
      direccion: 'Avenida 1, calle 2',
    },
    ambiente: 2,
    usuarioHacienda: demo.username,
    claveHacienda: Buffer.from(demo.password).toString('base64'),
    pinCertificado: demo.pin,
    certificadoHacienda: readFileSync(demo.p12Path).toString('base64'),
  };
}

async function startSandbox(
  port: number,
  dir: string,
  options: StackOptions,
  logger: Logger,
): Promise<{ demo: DemoSetup; stop: () => Promise<void> }> {
  const config = loadSandboxConfig({
    NODE_ENV: 'development',
    SANDBOX_PORT: String(port),
    SANDBOX_PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dir,
    HACIENDA_XSD_DIR: xsdDir(),
    HACIENDA_DATA_DIR: haciendaDataDir(),
    SANDBOX_PROCESSING_DELAY_MS: String(options.sandboxDelayMs ?? 200),
    SANDBOX_CALLBACK_RETRY_DELAY_MS: '100',
    LOG_LEVEL: 'silent',
  });
  const db = await createTestDatabase();
  await migrate(db, readMigrations(SANDBOX_MIGRATIONS_DIR));
  const keys = loadOrCreateKeys(dir);
  const { app, processor, faults } = composeSandbox({ config, logger, db, keys });
  const { demo } = await provisionDemo(db, keys.ca, dir);
  let server: RunningServer | undefined;
  try {
    server = await listen(app, port, '127.0.0.1');
  } catch (err) {
    await processor.close();
    await db.close();
    throw err;
  }
  return {
    demo,
    async stop() {
      await server?.close();
      faults.close();
      await processor.close();
      await db.close();
    },
  };
}

async function startTenantApi(o: {
  port: number;
  dataDir: string;
  authUrl: string;
  sandboxUrl: string;
  logger: Logger;
  nowSeconds: () => number;
}): Promise<{ stop: () => Promise<void> }> {
  const config = tenantConfig({
    TENANT_BASE_DOMAIN: 'localhost',
    PUBLIC_URL: `http://127.0.0.1:${o.port}`,
    AUTH_JWKS_URL: `${o.authUrl}/.well-known/jwks.json`,
    AUTH_ISSUER: o.authUrl,
    AUTH_AUDIENCE: AUDIENCE,
    HACIENDA_IDP_URL_TEST: `${o.sandboxUrl}/auth/realms/rut-stag/protocol/openid-connect/token`,
    HACIENDA_IDP_URL_PROD: `${o.sandboxUrl}/auth/realms/rut/protocol/openid-connect/token`,
    HACIENDA_RECEPCION_URL_TEST: `${o.sandboxUrl}/recepcion/v1`,
    HACIENDA_RECEPCION_URL_PROD: `${o.sandboxUrl}/recepcion/v1`,
    HACIENDA_PUBLIC_API_URL: o.sandboxUrl,
    HACIENDA_DATA_DIR: haciendaDataDir(),
    // Webhooks go to receivers on 127.0.0.1 over http, as under `pnpm start`.
    WEBHOOK_ALLOW_PRIVATE_TARGETS: true,
    // A tenant's own SMTP server may be on 127.0.0.1 (a test's mail catcher), as under `pnpm start`.
    MAIL_ALLOW_PRIVATE_HOSTS: true,
    JOBS_POLL_INTERVAL_MS: 50,
    DATA_DIR: o.dataDir,
  });
  const db = await createTestDatabase();
  await migrate(db, tenantApiMigrations());
  const keys = new JwksKeySource({ jwksUri: config.AUTH_JWKS_URL!, logger: o.logger });
  const revocations = new RevocationList({
    url: revocationsUrlFor(config)!,
    logger: o.logger,
    intervalMs: 500,
  });
  // The tenant-api's own verifier, with a clock the tests can move (expired tokens).
  const verifier = new TokenVerifier({
    keys,
    revocations,
    issuer: config.AUTH_ISSUER,
    audience: config.AUTH_AUDIENCE,
    clockToleranceSeconds: config.AUTH_CLOCK_TOLERANCE_SECONDS,
    nowSeconds: o.nowSeconds,
  });
  await keys.refresh();
  revocations.start();
  const hacienda = createHaciendaClients(config, { logger: o.logger, timeoutMs: 5_000 });
  const { worker, app, stopMetrics, resources } = composeTenantApi({
    config,
    db,
    logger: o.logger,
    secrets: SecretBox.fromSetting(SecretBox.generateSetting('t1')),
    verifier,
    hacienda,
    cabys: await loadTenantCabys({
      dataDir: o.dataDir,
      haciendaDataDir: haciendaDataDir(),
      publicApi: hacienda.publicApi,
      logger: o.logger,
    }),
    territory: TerritorialTable.loadFrom(haciendaDataDir()),
    // Hacienda's pace shortened, as the tenant-api's own sandbox tests do.
    schedules: { submit: [100, 200, 400], status: [100, 200, 400], statusCapMs: 500, firstStatusMs: 100 },
  });
  const release = async () => {
    revocations.stop();
    // What the composition root opened besides the worker: the /metrics collectors' timers and the
    // .p12 threads and SMTP connections, which otherwise keep the process (and the test runner) alive.
    stopMetrics();
    await resources.close();
    await db.close();
  };
  let server: RunningServer;
  try {
    server = await listen(app, o.port, '127.0.0.1');
  } catch (err) {
    await release(); // a port taken meanwhile: startStack starts again, without this one's timers
    throw err;
  }
  worker.start();
  return {
    async stop() {
      await server.close();
      await worker.stop(5_000);
      await release();
    },
  };
}
