// The tenant-api's settings, validated at start; every one can be overridden by the environment.
import { resolve } from 'node:path';
import { haciendaSettingsProperties } from '@cr/hacienda-client';
import {
  databaseSettingsProperties,
  loadConfig,
  parseTrustProxy,
  telemetrySettingsProperties,
} from '@cr/service-kit';
import { type Static, Type } from '@sinclair/typebox';
import { PACKAGE_ROOT } from './package-root';

export const TenantConfigSchema = Type.Object({
  TENANT_PORT: Type.Integer({ default: 4001, minimum: 0, maximum: 65535 }),
  /** Loopback unless asked: the image sets 0.0.0.0 (a container is reached through its network only). */
  TENANT_HOST: Type.String({ default: '127.0.0.1' }),
  TENANT_BASE_DOMAIN: Type.String({ default: 'localhost', pattern: '^[a-z0-9.-]+$' }),
  /**
   * Honour X-Forwarded-Host/-For only behind a gateway that overwrites them (`parseTrustProxy`): false, true
   * (= one hop, the gateway), a hop count, or the gateway's addresses/subnets.
   */
  TRUST_PROXY: Type.String({ default: 'false' }),
  /** Opens GET /health/details (the readiness reasons); unset → that route does not exist. */
  HEALTH_TOKEN: Type.Optional(Type.String({ minLength: 16 })),
  AUTH_ISSUER: Type.String({ default: 'http://localhost:4000', minLength: 1 }),
  AUTH_AUDIENCE: Type.String({ default: 'tenant-api', minLength: 1 }),
  AUTH_JWKS_URL: Type.Optional(Type.String({ format: 'uri' })),
  AUTH_PUBLIC_KEY_PATH: Type.Optional(Type.String({ minLength: 1 })),
  /** Revoked jtis; default `<origin of AUTH_JWKS_URL>/revocations`. */
  AUTH_REVOCATIONS_URL: Type.Optional(Type.String({ format: 'uri' })),
  /** The auth-server the dashboard signs in and out at; default the origin of AUTH_JWKS_URL. */
  AUTH_SERVER_URL: Type.Optional(Type.String({ format: 'uri' })),
  AUTH_REVOCATIONS_INTERVAL_SECONDS: Type.Integer({ default: 30, minimum: 1 }),
  /** Not ready until the revocation list is loaded, and while its last refresh is older than this. */
  AUTH_REVOCATIONS_MAX_STALENESS_SECONDS: Type.Integer({ default: 120, minimum: 10 }),
  /** Clock skew accepted on exp and iat (a token issued further in the future is refused). */
  AUTH_CLOCK_TOLERANCE_SECONDS: Type.Integer({ default: 10, minimum: 0, maximum: 300 }),
  ...databaseSettingsProperties,
  DATABASE_URL: Type.Optional(Type.String({ minLength: 1 })),
  DATA_DIR: Type.Optional(Type.String({ minLength: 1 })),
  SECRETS_KEY: Type.Optional(Type.String({ minLength: 1 })),
  /**
   * The cédula of the software provider operating this service, written as ProveedorSistemas in every
   * document (v4.4); unset → each issuer's own identification (in-house software).
   */
  PROVEEDOR_SISTEMAS: Type.Optional(Type.String({ pattern: '^[0-9]{9,12}$' })),
  /** `production` refuses to start without SECRETS_KEY instead of generating a development key. */
  NODE_ENV: Type.Optional(Type.String()),
  HACIENDA_DATA_DIR: Type.Optional(Type.String({ minLength: 1 })),
  BODY_LIMIT: Type.String({ default: '256kb' }),
  CERT_EXPIRY_WARNING_DAYS: Type.Integer({ default: 30, minimum: 1 }),
  /** Worker threads that open .p12 files (registration, update, signing material), off the event loop. */
  P12_THREADS: Type.Integer({ default: 2, minimum: 1, maximum: 32 }),
  /** Longest a .p12 may take to open; then its thread is terminated and the request refused (400). */
  P12_OPEN_TIMEOUT_MS: Type.Integer({ default: 5000, minimum: 100, maximum: 60000 }),
  /** An idle .p12 or upload-check thread ends after this long (each holds a V8 isolate: memory); the next task restarts one. */
  P12_IDLE_MS: Type.Integer({ default: 5000, minimum: 100, maximum: 3600000 }),
  /** Worker threads that check suppliers' uploaded XML (parse, signature, arithmetic) off the event loop. */
  RECEPCION_CHECK_THREADS: Type.Integer({ default: 2, minimum: 1, maximum: 32 }),
  /** Longest an upload's XML checks may take; past it the thread is replaced and the upload refused (400). */
  RECEPCION_CHECK_TIMEOUT_MS: Type.Integer({ default: 10000, minimum: 100, maximum: 60000 }),
  /**
   * Each upload-check thread's old generation (MB); an upload whose checks need more is refused (400). A
   * 1,000-line invoice of 1.15 MB needs under 64; 2 MiB of tiny elements needed over 256 without a limit.
   */
  RECEPCION_CHECK_HEAP_MB: Type.Integer({ default: 128, minimum: 64, maximum: 4096 }),
  /** Issuer registrations and updates per tenant… */
  ISSUER_WRITE_RATE_LIMIT: Type.Integer({ default: 10, minimum: 1, maximum: 10000 }),
  /** …in this many seconds; beyond it, 429 with Retry-After. */
  ISSUER_WRITE_RATE_WINDOW_SECONDS: Type.Integer({ default: 60, minimum: 1 }),
  LOG_LEVEL: Type.String({ default: 'info' }),
  ...haciendaSettingsProperties,
  /** Lookups per tenant that may reach Hacienda's public API (exoneración, contribuyente, CABYS fallback)… */
  HACIENDA_LOOKUP_RATE_LIMIT: Type.Integer({ default: 60, minimum: 1, maximum: 10000 }),
  /** …in this many seconds; beyond it, 429 with Retry-After. */
  HACIENDA_LOOKUP_RATE_WINDOW_SECONDS: Type.Integer({ default: 60, minimum: 1 }),
  /** How often the imported CABYS copy (DATA_DIR/cabys.json) is checked for a new import. */
  CABYS_RELOAD_CHECK_SECONDS: Type.Integer({ default: 5, minimum: 1 }),
  /** Webhook targets on private, loopback or reserved addresses (and http to loopback); development only. */
  WEBHOOK_ALLOW_PRIVATE_TARGETS: Type.Boolean({ default: false }),
  /** A delivery succeeds only with a 2xx within this time. */
  WEBHOOK_TIMEOUT_MS: Type.Integer({ default: 15000, minimum: 100, maximum: 60000 }),
  /**
   * The platform's SMTP server (`smtp://user:pass@host:587`, `smtps://…:465`): it sends the e-mail of every
   * tenant without settings of its own (POST /api/configurar/correo). Unset: those tenants send none.
   */
  SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://' })),
  /** The From of e-mails sent through SMTP_URL (`Name <address>` or an address). */
  MAIL_FROM: Type.String({ default: 'Facturación electrónica <facturacion@localhost>', minLength: 3 }),
  /** An SMTP conversation (connect, greeting, each reply) longer than this fails the attempt (retried). */
  MAIL_TIMEOUT_MS: Type.Integer({ default: 30000, minimum: 100, maximum: 300000 }),
  /** A server's SMTP connections stay open this long after its last e-mail (ADR 0049); 0: one per e-mail. */
  MAIL_CONNECTION_IDLE_MS: Type.Integer({ default: 2000, minimum: 0, maximum: 60000 }),
  /** A tenant's SMTP host may resolve to a private, loopback or reserved address; development only. */
  MAIL_ALLOW_PRIVATE_HOSTS: Type.Boolean({ default: false }),
  ...haciendaSettingsProperties,
  /** Base URL where Hacienda's callback reaches this service (`<PUBLIC_URL>/hacienda/callback/<token>`). */
  PUBLIC_URL: Type.String({ default: 'http://localhost:4001', format: 'uri' }),
  /**
   * PEM file of the CA certificates Hacienda's MensajeHacienda seal must chain to (the BCCR's SINPE chain in
   * production, the sandbox's CA in development). Without it only the signature is checked against the
   * certificate the message carries; production refuses to start without it.
   */
  HACIENDA_CA_BUNDLE: Type.Optional(Type.String({ minLength: 1 })),
  /**
   * PEM file of the CA certificates that issue taxpayers' signing certificates (Hacienda's "CA PERSONA
   * JURIDICA/FISICA" chain and the BCCR's SINPE chain in production, the sandbox's CA in development). A
   * received document whose signer does not chain to it gets an error finding; without it the finding says
   * the signer's issuer was not checked.
   */
  RECEPCION_CA_BUNDLE: Type.Optional(Type.String({ minLength: 1 })),
  /** The subject serialNumber the seal must carry (the Ministerio de Hacienda's cédula jurídica). */
  HACIENDA_SIGNER_ID: Type.String({ default: 'CPJ-2-100-042005', minLength: 1 }),
  /** Handlers the jobs worker runs at once (Hacienda submissions, status checks, receiving deadlines). */
  JOBS_CONCURRENCY: Type.Integer({ default: 8, minimum: 1, maximum: 256 }),
  /**
   * Webhook deliveries at once, in their own pool: a slow receiver holds a delivery slot for up to
   * WEBHOOK_TIMEOUT_MS, never a submission slot.
   */
  WEBHOOK_CONCURRENCY: Type.Integer({ default: 4, minimum: 1, maximum: 256 }),
  /**
   * PDF downloads (GET /api/descargar/{clave}/pdf) one tenant may have rendering at once; beyond, 429 with
   * Retry-After: 1. A 1,000-line document takes the better part of a second of the shared event loop.
   */
  PDF_RENDERS_PER_TENANT: Type.Integer({ default: 2, minimum: 1, maximum: 64 }),
  /**
   * Submissions (POST /api/enviar/items) one tenant may have in progress at once in this process; beyond,
   * 429 with Retry-After: 1. Each takes 35-70 ms of the event loop every tenant shares (validation,
   * arithmetic, XML, signing): without a bound, one tenant's thousand parallel posts queue ahead of everyone.
   */
  SUBMISSIONS_PER_TENANT: Type.Integer({ default: 32, minimum: 1, maximum: 1024 }),
  /**
   * POST /api/configurar/marca calls per tenant… Each new logo is decoded once per process, in JavaScript, on
   * the event loop every tenant shares (about 0.2-0.5 s for a 1-2 megapixel transparent PNG on a 2-core VM),
   * and a tenant changes its branding a few times a year.
   */
  BRANDING_WRITE_RATE_LIMIT: Type.Integer({ default: 10, minimum: 1, maximum: 10000 }),
  /** …in this many seconds (default an hour); beyond it, 429 with Retry-After. */
  BRANDING_WRITE_RATE_WINDOW_SECONDS: Type.Integer({ default: 3600, minimum: 1 }),
  /** POST /api/reenviar/webhook calls per tenant… */
  WEBHOOK_REPLAY_RATE_LIMIT: Type.Integer({ default: 30, minimum: 1, maximum: 10000 }),
  /** …in this many seconds; beyond it, 429 with Retry-After. */
  WEBHOOK_REPLAY_RATE_WINDOW_SECONDS: Type.Integer({ default: 60, minimum: 1 }),
  /**
   * POST /api/reenviar/correo calls per tenant… Each resend is a job of the delivery pool, and a tenant's SMTP
   * server that never answers holds a slot for MAIL_TIMEOUT_MS on each of its attempts.
   */
  MAIL_RESEND_RATE_LIMIT: Type.Integer({ default: 30, minimum: 1, maximum: 10000 }),
  /** …in this many seconds; beyond it, 429 with Retry-After. */
  MAIL_RESEND_RATE_WINDOW_SECONDS: Type.Integer({ default: 60, minimum: 1 }),
  /**
   * Resends per tenant that name an address the document does not (neither its receptor nor its copias)
   * and go out through the platform's SMTP server (the tenant has none of its own)… Any address a tenant
   * picks would otherwise make the platform's server a relay whose reputation every tenant shares.
   */
  MAIL_RESEND_NEW_ADDRESS_LIMIT: Type.Integer({ default: 100, minimum: 1, maximum: 100000 }),
  /** …in this many seconds (default a day); beyond it, 429 with Retry-After. */
  MAIL_RESEND_NEW_ADDRESS_WINDOW_SECONDS: Type.Integer({ default: 86400, minimum: 1 }),
  /**
   * Attempts per tenant to send an e-mail through the platform's SMTP server (SMTP_URL; tenants with a server
   * of their own are not counted)… Every tenant's mail depends on that server's reputation: one tenant's
   * volume (documents issued to any address it likes, each with up to ten copias) must not spend it.
   */
  MAIL_PLATFORM_LIMIT: Type.Integer({ default: 1000, minimum: 1, maximum: 1000000 }),
  /** …in this many seconds (default a day); beyond it the e-mail waits, pendiente, until a slot frees up. */
  MAIL_PLATFORM_WINDOW_SECONDS: Type.Integer({ default: 86400, minimum: 1 }),
  /**
   * Processes serving the API (node:cluster; the jobs run in processes of their own, JOBS_PROCESSES); default
   * one per usable core in production on PostgreSQL, else 1. More than one needs DATABASE_URL.
   */
  WEB_CONCURRENCY: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
  /**
   * Processes of the cluster that run only the jobs, at JOBS_NICE, while those serving the API run none;
   * default one when WEB_CONCURRENCY is more than one, else none (the one process runs both). 0 gives each
   * serving process its own jobs worker. More than none needs DATABASE_URL. ADR 0060.
   */
  JOBS_PROCESSES: Type.Optional(Type.Integer({ minimum: 0, maximum: 64 })),
  /**
   * The jobs processes' nice value (Linux, every thread): the requests waiting on an answer get the cores
   * first, the jobs take what is left. 0 runs them at the same priority.
   */
  JOBS_NICE: Type.Integer({ default: 10, minimum: 0, maximum: 19 }),
  JOBS_POLL_INTERVAL_MS: Type.Integer({ default: 1000, minimum: 10 }),
  /**
   * Days a finished job is kept (its key still deduplicates, its last error still readable) before the hourly
   * housekeeping run deletes it; at least 2, as the daily receiving-deadline run is keyed by its day.
   */
  JOBS_RETENTION_DAYS: Type.Integer({ default: 7, minimum: 2, maximum: 3650 }),
  HACIENDA_TIMEOUT_MS: Type.Integer({ default: 30000, minimum: 100 }),
  /** The official v4.4 XSDs, to validate received documents (default: the shared copy beside the repository). */
  HACIENDA_XSD_DIR: Type.Optional(Type.String({ minLength: 1 })),
  /** Body limit of POST /api/recepcion/documentos only (a supplier's XML in Base64, and Hacienda's answer). */
  RECEPCION_BODY_LIMIT: Type.String({ default: '4mb' }),
  /**
   * Uploads (POST /api/recepcion/documentos) one tenant may have in progress at once; beyond, 429 with
   * Retry-After: 1. Each reads up to RECEPCION_MAX_XML_BYTES of XML on the event loop every tenant shares
   * (about half a second for 2 MiB on a 2-core VM).
   */
  RECEPCION_UPLOADS_PER_TENANT: Type.Integer({ default: 2, minimum: 1, maximum: 64 }),
  /**
   * POST /api/recepcion/sincronizar calls per tenant… Each reads up to 20 pages of Hacienda's listing and one
   * GET /comprobantes/{clave} per clave not stored yet (up to 1,000; production returns no XML there, so the
   * same claves are read again on every call), with the tenant's issuer's Hacienda credentials.
   */
  RECEPCION_SYNC_LIMIT: Type.Integer({ default: 12, minimum: 1, maximum: 10000 }),
  /** …in this many seconds (default an hour: a call every five minutes); beyond it, 429 with Retry-After. */
  RECEPCION_SYNC_WINDOW_SECONDS: Type.Integer({ default: 3600, minimum: 1 }),
  /** Largest received XML accepted, in bytes; larger ones are refused before XSD validation. */
  RECEPCION_MAX_XML_BYTES: Type.Integer({ default: 2 * 1024 * 1024, minimum: 1024 }),
  /** Extra non-business days for the receiving deadline (decree moves), comma-separated YYYY-MM-DD. */
  RECEPCION_HOLIDAYS_ADD: Type.String({
    default: '',
    pattern: '^(\\d{4}-\\d{2}-\\d{2})?(,\\d{4}-\\d{2}-\\d{2})*$',
  }),
  /** Legal holidays worked in a given year (moved by decree), comma-separated YYYY-MM-DD. */
  RECEPCION_HOLIDAYS_REMOVE: Type.String({
    default: '',
    pattern: '^(\\d{4}-\\d{2}-\\d{2})?(,\\d{4}-\\d{2}-\\d{2})*$',
  }),
  ...telemetrySettingsProperties(9401),
});
export type TenantConfig = Static<typeof TenantConfigSchema> & {
  DATA_DIR: string;
  AUTH_JWKS_URL?: string;
  HACIENDA_XSD_DIR: string;
};

/** Loads and completes the settings; the JWKS URL defaults to the local auth-server's. */
export function loadTenantConfig(env: NodeJS.ProcessEnv = process.env): TenantConfig {
  const config = loadConfig(TenantConfigSchema, env);
  parseTrustProxy(config.TRUST_PROXY);
  const dataDir = config.DATA_DIR ?? resolve(PACKAGE_ROOT, '../../.data/tenant-api');
  const jwksUrl =
    config.AUTH_JWKS_URL ??
    (config.AUTH_PUBLIC_KEY_PATH
      ? undefined
      : `${config.AUTH_ISSUER.replace(/\/$/, '')}/.well-known/jwks.json`);
  // Development default: the shared Hacienda files beside the repository (never copied into it).
  const haciendaDataDir = config.HACIENDA_DATA_DIR ?? resolve(PACKAGE_ROOT, '../../../shared/hacienda/cabys');
  return {
    ...config,
    DATA_DIR: dataDir,
    HACIENDA_DATA_DIR: haciendaDataDir,
    HACIENDA_XSD_DIR: config.HACIENDA_XSD_DIR ?? resolve(PACKAGE_ROOT, '../../../shared/hacienda/xsd'),
    ...(jwksUrl ? { AUTH_JWKS_URL: jwksUrl } : {}),
  };
}

/** AUTH_SERVER_URL, else the origin of the JWKS URL; undefined with only a local PEM. */
export function authServerUrlFor(config: TenantConfig): string | undefined {
  if (config.AUTH_SERVER_URL) return config.AUTH_SERVER_URL;
  return config.AUTH_JWKS_URL ? new URL(config.AUTH_JWKS_URL).origin : undefined;
}

/** `<origin of the JWKS URL>/revocations` unless set explicitly. */
export function revocationsUrlFor(config: TenantConfig): string | undefined {
  if (config.AUTH_REVOCATIONS_URL) return config.AUTH_REVOCATIONS_URL;
  if (!config.AUTH_JWKS_URL) return undefined;
  return `${new URL(config.AUTH_JWKS_URL).origin}/revocations`;
}
