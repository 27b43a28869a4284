// The tenant-api's one composition root: from validated settings and the infrastructure a caller owns (an
// open, migrated database, the logger, the secret box, token verification, the CABYS search) it builds every
// use case's dependencies, the jobs worker with all its queues, and the HTTP app. main.ts, the tests and the
// benches all compose the service here, so a new dependency is wired once.
import type { CabysSearch } from '@cr/cabys';
import type { DocumentRequest } from '@cr/contracts';
import { type HaciendaClients, createHaciendaClients } from '@cr/hacienda-client';
import { BusinessCalendar, type TrustedSigner, extendXsdText } from '@cr/hacienda-xml';
import {
  Worker,
  WorkerGroup,
  type WorkerOptions,
  backoffSchedules,
  housekeepingJob,
  periodicQueues,
  schedulePeriodicRuns,
} from '@cr/jobs';
import {
  AppError,
  type Db,
  type HealthCheck,
  type Logger,
  type SecretBox,
  parseTrustProxy,
} from '@cr/service-kit';
import { createXsdValidator } from '@cr/xsd';
import type { Express } from 'express';
import { type AppDeps, createApp } from './app';
import { mailQueues } from './delivery/deliver-mail-job';
import type { MailJobDeps } from './delivery/mail-deps';
import { SmtpConnections } from './delivery/smtp-connections';
import type { RevocationList } from './auth/revocation-list';
import type { TokenVerifier } from './auth/token-verifier';
import { type TenantConfig, authServerUrlFor, loadTenantConfig } from './config';
import { type AuthServerClient, createAuthServerClient } from './session/auth-server-client';
import { unsafeDeleteExpiredIdempotencyKeys } from './documents/idempotency-keys';
import type { SubmissionDeps, SubmissionSchedules } from './documents/submission-deps';
import type { IssuerDeps } from './emisor/issuer-deps';
import { createIssuerWriteLimiter } from './emisor/issuer-write-limit';
import { P12Pool } from './emisor/p12-pool';
import { ReceivedXmlPool } from './recepcion/received-xml-pool';
import { SigningMaterialLoader } from './emisor/load-signing-material';
import { loadHaciendaTrust, loadSupplierTrust } from './pinned-trust';
import { submissionQueues } from './hacienda/submission-queues';
import { type CabysCheckDeps, checkCabys } from './lookups/check-cabys';
import { checkExonerations } from './lookups/check-exonerations';
import type { LookupDeps } from './lookups/lookup-deps';
import {
  createLookupLimiter,
  tenantCabysLookup,
  tenantExonerationLookup,
} from './lookups/tenant-lookup-limit';
import { TenantConcurrency } from './tenancy/tenant-concurrency';
import { createTenantLimiter } from './tenancy/tenant-rate-limit';
import { collectTenantApiMetrics } from './observability/tenant-metrics';
import type { TerritorialTable } from './territory/territorial-table';
import { deadlineJob } from './recepcion/deadline-job';
import { unsafeClearFinishedEventBodies } from './webhooks/clear-event-bodies';
import type { RecepcionDeps } from './recepcion/recepcion-deps';
import { webhookQueues } from './webhooks/deliver-webhook-job';
import type { WebhookDeps } from './webhooks/webhook-deps';

export interface TenantApiSettings {
  /** Validated settings (`loadTenantConfig()`, or `tenantConfig({...})` in tests and benches). */
  config: TenantConfig;
  /** Open and migrated (`tenantApiMigrations()`). */
  db: Db;
  logger: Logger;
  secrets: SecretBox;
  /** Verifies Bearer tokens; a benchmark may pass one that skips the signature to measure its cost. */
  verifier: Pick<TokenVerifier, 'verify'>;
  cabys: CabysSearch;
  territory?: TerritorialTable;
  /** Extra readiness checks (token keys); the database is always checked. */
  readiness?: Record<string, HealthCheck>;
  /**
   * The polled revocation list (`buildAuth(...).revocationList`): the service is not ready before it is
   * loaded nor while it is stale, since a revoked token would pass meanwhile.
   */
  revocations?: Pick<RevocationList, 'health'> | undefined;
  /** Default: loaded from HACIENDA_CA_BUNDLE (main.ts loads it before opening the database, to fail fast). */
  haciendaTrust?: TrustedSigner;
  /** Default: loaded from RECEPCION_CA_BUNDLE (main.ts too loads it first). */
  supplierTrust?: TrustedSigner;
  /** Default: clients of the settings' Hacienda addresses. */
  hacienda?: HaciendaClients;
  now?: () => Date;
  /** Jitter of the worker and the webhook schedule (tests pin it). */
  random?: () => number;
  /** Default: Hacienda's real pace. */
  schedules?: Partial<SubmissionSchedules>;
  /** Default true: type 04/11 exonerations are confirmed with Hacienda before signing. */
  checkExonerations?: boolean;
  /**
   * Default true: a CABYS code the local catalogue (`cabys`) lacks is confirmed with Hacienda before signing
   * (ADR 0066); a code Hacienda says does not exist is a 400.
   */
  checkCabys?: boolean;
  /** Default true: a registration is compared with Hacienda's taxpayer registry (warnings only). */
  checkIssuersWithHacienda?: boolean;
  taxpayerCheckTimeoutMs?: number;
  lookupLimiter?: LookupDeps['lookupLimiter'];
  issuerWriteLimiter?: IssuerDeps['issuerWriteLimiter'];
  webhookReplayLimiter?: WebhookDeps['replayLimiter'];
  mailResendLimiter?: AppDeps['mailResendLimiter'];
  mailNewAddressLimiter?: AppDeps['mailNewAddressLimiter'];
  platformMailLimiter?: MailJobDeps['platformMailLimiter'];
  brandingWriteLimiter?: AppDeps['brandingWriteLimiter'];
  pdfRenders?: AppDeps['pdfRenders'];
  submissions?: AppDeps['submissions'];
  recepcionUploads?: RecepcionDeps['uploads'];
  recepcionSyncLimiter?: RecepcionDeps['syncLimiter'];
  /** The dashboard's sign-in and sign-out; default: the auth-server of AUTH_SERVER_URL. */
  authServer?: AuthServerClient;
  /** The built dashboard's directory (tests); default: found beside the bundle or in the workspace. */
  dashboardDir?: string | undefined;
  /** How long a claimed job is leased before another worker may take it over. */
  jobLeaseMs?: number;
  /** Delays before each e-mail retry (default: backoffSchedules.mail); tests shorten them. */
  mailRetryDelaysMs?: readonly number[];
  /**
   * Wakes the jobs workers when a use case made a job due sooner; default this process's worker. A cluster's
   * serving worker, which runs no jobs, passes one that reaches the jobs processes (cluster/jobs-process.ts).
   */
  wakeJobs?: () => void;
}

export interface TenantApi {
  app: Express;
  /**
   * Runs every queue in two pools: submissions, status checks, deadlines and the hourly housekeeping
   * (JOBS_CONCURRENCY), and webhook deliveries and e-mails (WEBHOOK_CONCURRENCY); not started: `worker.start()`.
   */
  worker: WorkerGroup;
  /** Makes sure the current day's deadline scan and hour's housekeeping exist (they run unless they ran). */
  schedulePeriodicRuns(now: Date): Promise<void>;
  hacienda: HaciendaClients;
  issuerDeps: IssuerDeps;
  submission: SubmissionDeps & LookupDeps;
  webhookDeps: WebhookDeps;
  mailDeps: MailJobDeps;
  recepcion: RecepcionDeps;
  /** Stops the scrape-time collectors of /metrics (documents, jobs, certificates, pool) reading this db. */
  stopMetrics: () => void;
  /**
   * What the service holds open besides its server and database: the .p12 and received-XML threads and the
   * SMTP connections; `close()` on shutdown, after the worker stops.
   */
  resources: { close(): Promise<void> };
}

/** Settings with every default of `loadTenantConfig`, read from nothing but `overrides`. */
export function tenantConfig(overrides: Partial<TenantConfig> = {}): TenantConfig {
  return { ...loadTenantConfig({}), ...overrides };
}

/** Without an auth-server (a local PEM only) the dashboard cannot sign anyone in: 503, said plainly. */
function authServerFor(config: TenantConfig): AuthServerClient {
  const url = authServerUrlFor(config);
  if (url) return createAuthServerClient({ url });
  const refuse = async (): Promise<never> => {
    throw new AppError(
      'service_unavailable',
      'the dashboard needs AUTH_SERVER_URL (no auth-server is configured)',
    );
  };
  return { login: refuse, logout: refuse };
}

export function composeTenantApi(settings: TenantApiSettings): TenantApi {
  const { config, db, logger, secrets } = settings;
  const now = settings.now ?? (() => new Date());
  const hacienda =
    settings.hacienda ?? createHaciendaClients(config, { logger, timeoutMs: config.HACIENDA_TIMEOUT_MS });
  const certificates = new P12Pool({
    threads: config.P12_THREADS,
    timeoutMs: config.P12_OPEN_TIMEOUT_MS,
    idleMs: config.P12_IDLE_MS,
    logger,
  });
  const haciendaTrust = settings.haciendaTrust ?? loadHaciendaTrust(config);
  const supplierTrust = settings.supplierTrust ?? loadSupplierTrust(config);
  const receivedXml = new ReceivedXmlPool({
    threads: config.RECEPCION_CHECK_THREADS,
    timeoutMs: config.RECEPCION_CHECK_TIMEOUT_MS,
    heapMb: config.RECEPCION_CHECK_HEAP_MB,
    // Uploads come in bursts (a month's invoices); the threads' memory goes back soon after one.
    idleMs: config.P12_IDLE_MS,
    trust: {
      ...(haciendaTrust ? { hacienda: haciendaTrust } : {}),
      ...(supplierTrust ? { suppliers: supplierTrust } : {}),
    },
    logger,
  });
  const issuerDeps: IssuerDeps = {
    db,
    secrets,
    logger,
    certificates,
    issuerWriteLimiter:
      settings.issuerWriteLimiter ??
      createIssuerWriteLimiter({
        limit: config.ISSUER_WRITE_RATE_LIMIT,
        windowSeconds: config.ISSUER_WRITE_RATE_WINDOW_SECONDS,
      }),
    territory: settings.territory,
    now,
    certificateWarningDays: config.CERT_EXPIRY_WARNING_DAYS,
    ...(settings.checkIssuersWithHacienda === false ? {} : { taxpayerRegistry: hacienda }),
    ...(settings.taxpayerCheckTimeoutMs ? { taxpayerCheckTimeoutMs: settings.taxpayerCheckTimeoutMs } : {}),
  };
  let worker: WorkerGroup | undefined;
  const lookupLimiter =
    settings.lookupLimiter ??
    createLookupLimiter({
      limit: config.HACIENDA_LOOKUP_RATE_LIMIT,
      windowSeconds: config.HACIENDA_LOOKUP_RATE_WINDOW_SECONDS,
    });
  // One validator for the documents we sign and those we receive: each schema compiled once per process.
  const xsd = createXsdValidator({
    xsdDir: config.HACIENDA_XSD_DIR,
    maxBytes: config.RECEPCION_MAX_XML_BYTES,
    // Suppliers (and the engine) may use the 2026-04 reference codes the published XSDs lack (ADR 0010).
    extendSchema: (text, dir) => extendXsdText(text, { importDir: dir }),
    onUnavailable: (xsdFile, err) =>
      logger.error('an official XSD does not compile; documents of its kind are not validated against it', {
        xsdFile,
        error: err.message,
      }),
  });
  // Built once: a submission whose codes are all in the local catalogue allocates nothing for the check.
  const cabysCheck: CabysCheckDeps = {
    local: settings.cabys,
    lookupFor: (tenantId) => tenantCabysLookup({ db, lookupLimiter }, hacienda.publicApi, tenantId),
    logger,
  };
  const submission: SubmissionDeps & LookupDeps = {
    ...issuerDeps,
    xsd,
    signing: new SigningMaterialLoader(issuerDeps),
    hacienda,
    publicUrl: config.PUBLIC_URL,
    ...(config.PROVEEDOR_SISTEMAS ? { proveedorSistemas: config.PROVEEDOR_SISTEMAS } : {}),
    ...(haciendaTrust ? { haciendaTrust } : {}),
    ...(settings.schedules ? { schedules: settings.schedules } : {}),
    wakeWorker: settings.wakeJobs ?? (() => worker?.wake()),
    ...(settings.checkExonerations === false
      ? {}
      : {
          // The lookup routes' window, but only lookups that reach Hacienda (not cached) take a slot of it.
          checkExonerations: ({ tenantId, document }: { tenantId: string; document: DocumentRequest }) =>
            checkExonerations(
              { document, now: now() },
              tenantExonerationLookup({ db, lookupLimiter }, hacienda.publicApi, tenantId),
            ),
        }),
    ...(settings.checkCabys === false
      ? {}
      : {
          checkCabys: (input: { tenantId: string; document: DocumentRequest }) =>
            checkCabys(input, cabysCheck),
        }),
    cabys: settings.cabys,
    lookupLimiter,
  };
  const dates = (list: string) => list.split(',').filter(Boolean);
  const recepcion: RecepcionDeps = {
    ...submission,
    calendar: new BusinessCalendar({
      add: dates(config.RECEPCION_HOLIDAYS_ADD),
      remove: dates(config.RECEPCION_HOLIDAYS_REMOVE),
    }),
    uploads:
      settings.recepcionUploads ?? new TenantConcurrency('uploads', config.RECEPCION_UPLOADS_PER_TENANT),
    syncLimiter:
      settings.recepcionSyncLimiter ??
      createTenantLimiter('received document synchronizations', {
        limit: config.RECEPCION_SYNC_LIMIT,
        windowSeconds: config.RECEPCION_SYNC_WINDOW_SECONDS,
      }),
    xmlChecks: receivedXml,
  };
  const webhookDeps: WebhookDeps = {
    db,
    secrets,
    logger,
    now,
    webhooks: {
      allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    },
    replayLimiter:
      settings.webhookReplayLimiter ??
      createTenantLimiter('webhook replays', {
        limit: config.WEBHOOK_REPLAY_RATE_LIMIT,
        windowSeconds: config.WEBHOOK_REPLAY_RATE_WINDOW_SECONDS,
      }),
    ...(settings.random ? { random: settings.random } : {}),
  };
  // One window for both places that charge it: the resend, and the job when the platform sends a resend the
  // tenant's own server was to send.
  const mailNewAddressLimiter =
    settings.mailNewAddressLimiter ??
    createTenantLimiter('e-mail resends to new addresses', {
      limit: config.MAIL_RESEND_NEW_ADDRESS_LIMIT,
      windowSeconds: config.MAIL_RESEND_NEW_ADDRESS_WINDOW_SECONDS,
    });
  const mailDeps: MailJobDeps = {
    db,
    secrets,
    logger,
    now,
    mail: {
      smtpUrl: config.SMTP_URL,
      from: config.MAIL_FROM,
      timeoutMs: config.MAIL_TIMEOUT_MS,
      allowPrivateHosts: config.MAIL_ALLOW_PRIVATE_HOSTS,
      retryDelaysMs: settings.mailRetryDelaysMs ?? backoffSchedules.mail,
    },
    smtp: new SmtpConnections({
      idleMs: config.MAIL_CONNECTION_IDLE_MS,
      // As many as the pool below sends at once: no e-mail waits for another's connection.
      maxConnections: config.WEBHOOK_CONCURRENCY,
      timeoutMs: config.MAIL_TIMEOUT_MS,
    }),
    platformMailLimiter:
      settings.platformMailLimiter ??
      createTenantLimiter('e-mails through the platform server', {
        limit: config.MAIL_PLATFORM_LIMIT,
        windowSeconds: config.MAIL_PLATFORM_WINDOW_SECONDS,
      }),
    mailNewAddressLimiter,
    ...(settings.random ? { random: settings.random } : {}),
  };
  // Two pools (issue 11, item 2): a webhook receiver may hold a delivery for WEBHOOK_TIMEOUT_MS on each of its
  // attempts (an SMTP server for MAIL_TIMEOUT_MS), so deliveries get their own slots and never the ones
  // Hacienda submissions need. Both pools
  // claim fairly across tenants (@cr/jobs).
  const pool = (concurrency: number, queues: WorkerOptions['queues']) =>
    new Worker({
      db,
      logger,
      now,
      ...(settings.random ? { random: settings.random } : {}),
      concurrency,
      pollIntervalMs: config.JOBS_POLL_INTERVAL_MS,
      ...(settings.jobLeaseMs ? { leaseMs: settings.jobLeaseMs } : {}),
      queues,
    });
  // The daily receiving-deadline scan and the hourly housekeeping (finished jobs and finished webhook events'
  // bodies past JOBS_RETENTION_DAYS, expired idempotency keys): one run per period, chained.
  const retentionMs = config.JOBS_RETENTION_DAYS * 86_400_000;
  const periodic = [
    deadlineJob(recepcion),
    housekeepingJob({
      db,
      jobRetentionMs: retentionMs,
      tasks: {
        'expired idempotency keys': (now, limit) => unsafeDeleteExpiredIdempotencyKeys(db, now, limit),
        // ~46 KB each: 200 per statement keep a batch near 20 ms on the embedded database (ADR 0051).
        'finished webhook event bodies': {
          task: (now, limit) =>
            unsafeClearFinishedEventBodies(db, new Date(now.getTime() - retentionMs), limit),
          batchSize: 200,
        },
      },
      logger,
    }),
  ];
  worker = new WorkerGroup([
    pool(config.JOBS_CONCURRENCY, {
      ...submissionQueues(submission),
      ...periodicQueues(db, periodic),
    }),
    pool(config.WEBHOOK_CONCURRENCY, { ...webhookQueues(webhookDeps), ...mailQueues(mailDeps) }),
  ]);
  const app = createApp({
    ...submission,
    pdfRenders: settings.pdfRenders ?? new TenantConcurrency('PDF renders', config.PDF_RENDERS_PER_TENANT),
    submissions: settings.submissions ?? new TenantConcurrency('submissions', config.SUBMISSIONS_PER_TENANT),
    brandingWriteLimiter:
      settings.brandingWriteLimiter ??
      createTenantLimiter('branding changes', {
        limit: config.BRANDING_WRITE_RATE_LIMIT,
        windowSeconds: config.BRANDING_WRITE_RATE_WINDOW_SECONDS,
      }),
    mailResendLimiter:
      settings.mailResendLimiter ??
      createTenantLimiter('e-mail resends', {
        limit: config.MAIL_RESEND_RATE_LIMIT,
        windowSeconds: config.MAIL_RESEND_RATE_WINDOW_SECONDS,
      }),
    mailNewAddressLimiter,
    recepcion,
    recepcionBodyLimit: config.RECEPCION_BODY_LIMIT,
    webhooks: webhookDeps,
    mail: mailDeps.mail,
    verifier: settings.verifier,
    authServer: settings.authServer ?? authServerFor(config),
    ...('dashboardDir' in settings ? { dashboardDir: settings.dashboardDir } : {}),
    baseDomain: config.TENANT_BASE_DOMAIN,
    trustProxy: parseTrustProxy(config.TRUST_PROXY),
    healthToken: config.HEALTH_TOKEN,
    bodyLimit: config.BODY_LIMIT,
    readiness: {
      ...settings.readiness,
      ...(settings.revocations
        ? { revocations: () => (settings.revocations as Pick<RevocationList, 'health'>).health() }
        : {}),
    },
  });
  const stopMetrics = collectTenantApiMetrics({
    db,
    now,
    certificateWarningDays: config.CERT_EXPIRY_WARNING_DAYS,
  });
  return {
    app,
    worker,
    schedulePeriodicRuns: (at) => schedulePeriodicRuns(db, periodic, at),
    hacienda,
    issuerDeps,
    submission,
    webhookDeps,
    mailDeps,
    recepcion,
    stopMetrics,
    resources: {
      close: async () => {
        mailDeps.smtp.close();
        await Promise.all([certificates.close(), receivedXml.close()]);
      },
    },
  };
}
