// A tenant-api on a real test database (PGlite, or PostgreSQL with TEST_DATABASE_URL), verifying tokens
// against a TokenForge's JWKS, with the official territorial table when it is available.
import {
  MemoryTransport,
  SecretBox,
  type TestDatabase,
  createLogger,
  createTestDatabase,
  migrate,
} from '@cr/service-kit';
import { type CabysSearch, createCabysSearch, loadCabysCatalogue } from '@cr/cabys';
import {
  type HaciendaClients,
  HaciendaPublicApi,
  type HaciendaSettings,
  TokenBucket,
  createHaciendaClients,
} from '@cr/hacienda-client';
import { haciendaDataDir, xsdDir } from '@cr/testkit';
import type { Express } from 'express';
import { JwksKeySource } from '../../src/auth/key-source';
import { RevocationList } from '../../src/auth/revocation-list';
import { TokenVerifier } from '../../src/auth/token-verifier';
import { composeTenantApi, tenantConfig } from '../../src/compose';
import { tenantApiMigrations } from '../../src/db/with-tenant';
import type { SubmissionDeps, SubmissionSchedules } from '../../src/documents/submission-deps';
import type { IssuerDeps } from '../../src/emisor/issuer-deps';
import type { LookupDeps } from '../../src/lookups/lookup-deps';
import type { RecepcionDeps } from '../../src/recepcion/recepcion-deps';
import { createLookupLimiter } from '../../src/lookups/tenant-lookup-limit';
import { createIssuerWriteLimiter } from '../../src/emisor/issuer-write-limit';
import { createTenantLimiter } from '../../src/tenancy/tenant-rate-limit';
import { TerritorialTable } from '../../src/territory/territorial-table';
import type { WebhookDeps, WebhookSettings } from '../../src/webhooks/webhook-deps';
import type { WorkerGroup } from '@cr/jobs';
import type { BrandingDeps } from '../../src/delivery/configure-branding';
import type { PdfDownloadDeps } from '../../src/delivery/render-document-pdf';
import { TenantConcurrency } from '../../src/tenancy/tenant-concurrency';
import type { MailJobDeps } from '../../src/delivery/mail-deps';
import type { ResendMailDeps } from '../../src/delivery/resend-mail';
import { TEST_AUDIENCE, TEST_ISSUER, TokenForge } from './token-forge';

export interface TestApp {
  app: Express;
  db: TestDatabase;
  forge: TokenForge;
  secrets: SecretBox;
  log: MemoryTransport;
  revocations: RevocationList;
  keys: JwksKeySource;
  deps: IssuerDeps & LookupDeps;
  submission: SubmissionDeps & LookupDeps;
  hacienda: HaciendaClients;
  webhookDeps: WebhookDeps;
  mailDeps: MailJobDeps;
  recepcion: RecepcionDeps;
  /** The jobs workers (both pools) with the app's queues; started only when asked (`startWorker`). */
  worker: WorkerGroup;
  /** Enqueues the current period's deadline scan and housekeeping run, as main.ts does at start. */
  schedulePeriodicRuns(now: Date): Promise<void>;
  /** Host header of a tenant under the default base domain. */
  host(tenant: string): string;
  close(): Promise<void>;
}

let territory: TerritorialTable | undefined | null = null;

export function testTerritory(): TerritorialTable | undefined {
  if (territory === null) territory = TerritorialTable.loadFrom(haciendaDataDir());
  return territory;
}

let localCabys: Promise<CabysSearch> | undefined;

/**
 * The CABYS catalogue of HACIENDA_DATA_DIR as main.ts loads it (read once per test file, ~0.2 s), so the
 * submissions' CABYS check finds the mothers' real codes without asking Hacienda; without the file, no
 * catalogue and no fallback (the search is 503, and the check asks the Hacienda under test).
 */
export function testCabys(): Promise<CabysSearch> {
  localCabys ??= loadCabysCatalogue({ dirs: [haciendaDataDir()] }).then((loaded) =>
    createCabysSearch(loaded ? { index: loaded.index } : {}),
  );
  return localCabys;
}

/** Short schedules so a test follows a document to its end in well under a second per step. */
export const FAST_SCHEDULES: SubmissionSchedules = {
  submit: [20, 50, 100],
  status: [20, 50, 100],
  statusCapMs: 200,
  firstStatusMs: 20,
};

// Nothing listens on port 9 (discard): without a Hacienda under test, submissions fail as network errors.
const NO_HACIENDA: HaciendaSettings = {
  HACIENDA_IDP_URL_TEST: 'http://127.0.0.1:9/auth/realms/rut-stag/protocol/openid-connect/token',
  HACIENDA_IDP_URL_PROD: 'http://127.0.0.1:9/auth/realms/rut/protocol/openid-connect/token',
  HACIENDA_RECEPCION_URL_TEST: 'http://127.0.0.1:9/recepcion/v1',
  HACIENDA_RECEPCION_URL_PROD: 'http://127.0.0.1:9/recepcion/v1',
  HACIENDA_PUBLIC_API_URL: 'http://127.0.0.1:9',
};

/**
 * Hacienda's public API client as main.ts builds it, tuned for tests: retries after 5 ms instead of seconds
 * and a bucket that never makes a test wait. Still the real client (cache, retries, 429 pause).
 */
export function testPublicApi(baseUrl: string, options: { cacheTtlMs?: number } = {}): HaciendaPublicApi {
  return new HaciendaPublicApi({
    baseUrl,
    timeoutMs: 2_000,
    retryDelaysMs: [5, 5, 5],
    bucket: new TokenBucket({ capacity: 1_000, refillPerSecond: 1_000 }),
    ...options,
  });
}

export async function startTestApp(
  options: {
    now?: () => Date;
    /** TRUST_PROXY as the environment gives it (`parseTrustProxy`): 'true' is one hop. */
    trustProxy?: string;
    /** Hacienda's IdP and recepción (and public API unless `publicApi` is given); default: nothing listens. */
    hacienda?: HaciendaSettings;
    /** Hacienda's public API for the lookups; default a test-tuned client of `hacienda`'s public API URL. */
    publicApi?: LookupDeps['hacienda']['publicApi'];
    /** Run the issuer check against Hacienda's registry (publicApi) at registration. */
    checkIssuersWithHacienda?: boolean;
    /** Default: the catalogue of HACIENDA_DATA_DIR (`testCabys()`), without a fallback. */
    cabys?: CabysSearch;
    lookupLimiter?: LookupDeps['lookupLimiter'];
    issuerWriteLimiter?: IssuerDeps['issuerWriteLimiter'];
    webhookReplayLimiter?: WebhookDeps['replayLimiter'];
    mailResendLimiter?: ResendMailDeps['mailResendLimiter'];
    mailNewAddressLimiter?: ResendMailDeps['mailNewAddressLimiter'];
    /** MAIL_PLATFORM_LIMIT's limiter (default: 1,000 a minute). */
    platformMailLimiter?: MailJobDeps['platformMailLimiter'];
    brandingWriteLimiter?: BrandingDeps['brandingWriteLimiter'];
    pdfRenders?: PdfDownloadDeps['pdfRenders'];
    /** Submissions in progress per tenant (default: SUBMISSIONS_PER_TENANT's). */
    submissions?: TenantConcurrency;
    recepcionUploads?: RecepcionDeps['uploads'];
    /** RECEPCION_SYNC_LIMIT's limiter (default: 1,000 a minute). */
    recepcionSyncLimiter?: RecepcionDeps['syncLimiter'];
    /** JOBS_CONCURRENCY and WEBHOOK_CONCURRENCY (default 8 and 4). */
    concurrency?: { jobs?: number; webhooks?: number };
    /** P12_OPEN_TIMEOUT_MS (default 5000). */
    p12TimeoutMs?: number;
    /** RECEPCION_CHECK_HEAP_MB: each upload-check thread's old generation. */
    recepcionCheckHeapMb?: number;
    /**
     * Confirm type 04/11 exonerations with Hacienda before signing, as main.ts does (default). Only suites
     * that run with no Hacienda at all turn it off; the check itself is tested against the sandbox.
     */
    checkExonerations?: boolean;
    /**
     * Confirm with Hacienda, before signing, the CABYS codes the local catalogue (`cabys`) lacks, as main.ts
     * does (default). The mothers use real codes, so it stays on but for a test of a fake code's own effect.
     */
    checkCabys?: boolean;
    /** HACIENDA_XSD_DIR (default: the official XSDs, as in CI). */
    xsdDir?: string;
    /** PROVEEDOR_SISTEMAS of the service. */
    proveedorSistemas?: string;
    haciendaTimeoutMs?: number;
    /** HACIENDA_CA_BUNDLE: the PEM file Hacienda's answers must chain to (default: none, development). */
    haciendaCaBundle?: string;
    /** RECEPCION_CA_BUNDLE: the PEM file suppliers' signing certificates must chain to (default: none). */
    recepcionCaBundle?: string;
    publicUrl?: string;
    schedules?: Partial<SubmissionSchedules>;
    startWorker?: boolean;
    leaseMs?: number;
    webhooks?: Partial<WebhookSettings>;
    /** SMTP_URL (default: none) and the e-mail's retry delays (default: the production schedule). */
    mail?: { smtpUrl?: string; retryDelaysMs?: number[]; timeoutMs?: number; allowPrivateHosts?: boolean };
    /** A database opened by the caller (e.g. as a non-superuser owner), already migrated; closed by close(). */
    database?: TestDatabase;
    /** Add the revocation list's readiness (not ready until loaded, nor when stale), as main.ts does. */
    revocationReadiness?: boolean;
    /** Staleness limit of the revocation list (default: 4 intervals, at least a minute). */
    revocationsMaxStalenessMs?: number;
    /**
     * Verify tokens of a real auth-server instead of the forge's (the forge still runs for other uses); the
     * dashboard's sign-in goes to it too.
     */
    auth?: { jwksUrl: string; revocationsUrl: string; issuer: string; audience: string };
    /** AUTH_SERVER_URL: where the dashboard's sign-in and sign-out go (default: `auth`'s, else none). */
    authServerUrl?: string;
  } = {},
): Promise<TestApp> {
  const db = options.database ?? (await createTestDatabase());
  if (!options.database) await migrate(db, tenantApiMigrations());
  const forge = await new TokenForge().start();
  const log = new MemoryTransport();
  const logger = createLogger({ service: 'tenant-api', level: 'debug', transports: [log] });
  const keys = new JwksKeySource({ jwksUri: options.auth?.jwksUrl ?? forge.jwksUrl, logger });
  const revocations = new RevocationList({
    url: options.auth?.revocationsUrl ?? `${forge.url}/revocations`,
    logger,
    intervalMs: 60_000,
    ...(options.revocationsMaxStalenessMs ? { maxStalenessMs: options.revocationsMaxStalenessMs } : {}),
  });
  const secrets = SecretBox.fromSetting(SecretBox.generateSetting('t1'));
  const settings = options.hacienda ?? NO_HACIENDA;
  const clients = createHaciendaClients(settings, { logger, timeoutMs: options.haciendaTimeoutMs ?? 2_000 });
  const hacienda = {
    ...clients,
    publicApi: options.publicApi ?? testPublicApi(settings.HACIENDA_PUBLIC_API_URL),
  } as HaciendaClients;
  const verifier = new TokenVerifier({
    keys,
    revocations,
    issuer: options.auth?.issuer ?? TEST_ISSUER,
    audience: options.auth?.audience ?? TEST_AUDIENCE,
    clockToleranceSeconds: 30,
  });
  const {
    app,
    worker,
    schedulePeriodicRuns,
    submission,
    webhookDeps,
    mailDeps,
    recepcion,
    stopMetrics,
    resources,
  } = composeTenantApi({
    config: tenantConfig({
      ...settings,
      PUBLIC_URL: options.publicUrl ?? 'http://callbacks.localhost',
      ...(options.proveedorSistemas ? { PROVEEDOR_SISTEMAS: options.proveedorSistemas } : {}),
      ...(options.haciendaCaBundle ? { HACIENDA_CA_BUNDLE: options.haciendaCaBundle } : {}),
      ...(options.recepcionCaBundle ? { RECEPCION_CA_BUNDLE: options.recepcionCaBundle } : {}),
      TENANT_BASE_DOMAIN: 'localhost',
      // Received documents are validated against the official XSDs (HACIENDA_XSD_DIR in CI).
      HACIENDA_XSD_DIR: options.xsdDir ?? xsdDir(),
      TRUST_PROXY: options.trustProxy ?? 'false',
      // The dashboard's sign-in goes to the same real auth-server whose tokens are verified.
      ...(options.auth ? { AUTH_SERVER_URL: new URL(options.auth.jwksUrl).origin } : {}),
      ...(options.authServerUrl ? { AUTH_SERVER_URL: options.authServerUrl } : {}),
      // Tests deliver to a receiver on 127.0.0.1 over http, which only the private-targets switch allows.
      WEBHOOK_ALLOW_PRIVATE_TARGETS: options.webhooks?.allowPrivateTargets ?? true,
      WEBHOOK_TIMEOUT_MS: options.webhooks?.timeoutMs ?? 2_000,
      // The tests' SMTP servers listen on 127.0.0.1, which only this switch allows for a tenant's server.
      MAIL_ALLOW_PRIVATE_HOSTS: options.mail?.allowPrivateHosts ?? true,
      // Generous: a reply timed out under load makes the e-mail go twice (SMTP has no idempotency).
      MAIL_TIMEOUT_MS: options.mail?.timeoutMs ?? 15_000,
      ...(options.mail?.smtpUrl ? { SMTP_URL: options.mail.smtpUrl } : {}),
      JOBS_CONCURRENCY: options.concurrency?.jobs ?? 8,
      WEBHOOK_CONCURRENCY: options.concurrency?.webhooks ?? 4,
      JOBS_POLL_INTERVAL_MS: 50,
      ...(options.p12TimeoutMs ? { P12_OPEN_TIMEOUT_MS: options.p12TimeoutMs } : {}),
      ...(options.recepcionCheckHeapMb ? { RECEPCION_CHECK_HEAP_MB: options.recepcionCheckHeapMb } : {}),
    }),
    db,
    logger,
    secrets,
    verifier,
    territory: testTerritory(),
    cabys: options.cabys ?? (await testCabys()),
    readiness: { tokenKeys: () => (keys.hasKey() ? undefined : 'no token verification key') },
    ...(options.revocationReadiness ? { revocations } : {}),
    hacienda,
    now: options.now ?? (() => new Date()),
    // The webhook tests drive retries with runOnce() and an injected clock, without jitter.
    random: () => 0.5,
    schedules: { ...FAST_SCHEDULES, ...options.schedules },
    // As main.ts, exonerations of type 04/11 are confirmed with Hacienda's public API before signing.
    checkExonerations: options.checkExonerations !== false,
    // And CABYS codes missing from the local catalogue are confirmed with Hacienda (ADR 0066).
    checkCabys: options.checkCabys !== false,
    checkIssuersWithHacienda: options.checkIssuersWithHacienda ?? false,
    taxpayerCheckTimeoutMs: 3_000,
    lookupLimiter: options.lookupLimiter ?? createLookupLimiter({ limit: 1_000, windowSeconds: 60 }),
    issuerWriteLimiter:
      options.issuerWriteLimiter ?? createIssuerWriteLimiter({ limit: 1_000, windowSeconds: 60 }),
    webhookReplayLimiter:
      options.webhookReplayLimiter ??
      createTenantLimiter('webhook replays', { limit: 1_000, windowSeconds: 60 }),
    mailResendLimiter:
      options.mailResendLimiter ?? createTenantLimiter('e-mail resends', { limit: 1_000, windowSeconds: 60 }),
    mailNewAddressLimiter:
      options.mailNewAddressLimiter ??
      createTenantLimiter('e-mail resends to new addresses', { limit: 1_000, windowSeconds: 60 }),
    platformMailLimiter:
      options.platformMailLimiter ??
      createTenantLimiter('e-mails through the platform server', { limit: 1_000, windowSeconds: 60 }),
    pdfRenders: options.pdfRenders ?? new TenantConcurrency('PDF renders', 64),
    ...(options.submissions ? { submissions: options.submissions } : {}),
    recepcionUploads: options.recepcionUploads ?? new TenantConcurrency('uploads', 64),
    recepcionSyncLimiter:
      options.recepcionSyncLimiter ??
      createTenantLimiter('received document synchronizations', { limit: 1_000, windowSeconds: 60 }),
    brandingWriteLimiter:
      options.brandingWriteLimiter ??
      createTenantLimiter('branding changes', { limit: 1_000, windowSeconds: 60 }),
    jobLeaseMs: options.leaseMs ?? 5_000,
    ...(options.mail?.retryDelaysMs ? { mailRetryDelaysMs: options.mail.retryDelaysMs } : {}),
  });
  if (options.startWorker) worker.start();
  const deps = submission;
  return {
    app,
    db,
    forge,
    secrets,
    log,
    revocations,
    keys,
    deps,
    submission,
    hacienda,
    webhookDeps,
    mailDeps,
    recepcion,
    worker,
    schedulePeriodicRuns,
    host: (tenant) => `${tenant}.localhost`,
    async close() {
      stopMetrics();
      await worker.stop(5_000);
      await resources.close();
      await forge.stop();
      await db.close();
    },
  };
}
