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
import { type CabysSearch, createCabysSearch } from '@cr/cabys';
import { HaciendaPublicApi, TokenBucket } from '@cr/hacienda-client';
import { Worker, jobsMigrations } from '@cr/jobs';
import { haciendaDataDir } from '@cr/testkit';
import type { Express } from 'express';
import { createApp } from '../../src/app';
import { JwksKeySource } from '../../src/auth/key-source';
import { RevocationList } from '../../src/auth/revocation-list';
import { TokenVerifier } from '../../src/auth/token-verifier';
import { tenantApiMigrations } from '../../src/db/with-tenant';
import type { IssuerDeps } from '../../src/emisor/issuer-deps';
import type { LookupDeps } from '../../src/lookups/lookup-deps';
import { createLookupLimiter } from '../../src/lookups/tenant-lookup-limit';
import { TerritorialTable } from '../../src/territory/territorial-table';
import { webhookQueues } from '../../src/webhooks/deliver-webhook-job';
import type { WebhookDeps, WebhookSettings } from '../../src/webhooks/webhook-deps';
import { documentsShimMigrations } from './documents-shim';
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
  webhookDeps: WebhookDeps;
  /** The job worker with every queue, not started: tests drive it with `runOnce()` and the injected clock. */
  worker: Worker;
  /** Host header of a tenant under the default base domain. */
  host(tenant: string): string;
  close(): Promise<void>;
}

let territory: TerritorialTable | undefined | null = null;

export function testTerritory(): TerritorialTable | undefined {
  if (territory === null) territory = TerritorialTable.loadFrom(haciendaDataDir());
  return territory;
}

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

export interface TestAppOptions {
  now?: () => Date;
  trustProxy?: boolean;
  /** Hacienda's public API; default a client of an address where nothing listens. */
  publicApi?: LookupDeps['hacienda']['publicApi'];
  /** Run the issuer check against Hacienda's registry (publicApi) at registration. */
  checkIssuersWithHacienda?: boolean;
  /** Default: no local catalogue and no fallback (503). */
  cabys?: CabysSearch;
  lookupLimiter?: LookupDeps['lookupLimiter'];
  webhooks?: Partial<WebhookSettings>;
}

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const db = await createTestDatabase();
  await migrate(db, [...tenantApiMigrations(), ...documentsShimMigrations, ...jobsMigrations]);
  const forge = await new TokenForge().start();
  const log = new MemoryTransport();
  const logger = createLogger({ service: 'tenant-api', level: 'debug', transports: [log] });
  const keys = new JwksKeySource({ jwksUri: forge.jwksUrl, logger });
  const revocations = new RevocationList({ url: `${forge.url}/revocations`, logger, intervalMs: 60_000 });
  const secrets = SecretBox.fromSetting(SecretBox.generateSetting('t1'));
  const hacienda = { publicApi: options.publicApi ?? testPublicApi('http://127.0.0.1:9') };
  const deps: IssuerDeps & LookupDeps = {
    db,
    secrets,
    logger,
    territory: testTerritory(),
    now: options.now ?? (() => new Date()),
    certificateWarningDays: 30,
    hacienda,
    ...(options.checkIssuersWithHacienda
      ? { taxpayerRegistry: hacienda, taxpayerCheckTimeoutMs: 3_000 }
      : {}),
    cabys: options.cabys ?? createCabysSearch({}),
    lookupLimiter: options.lookupLimiter ?? createLookupLimiter({ limit: 1_000, windowSeconds: 60 }),
  };
  const webhookDeps: WebhookDeps = {
    ...deps,
    // Tests deliver to a receiver on 127.0.0.1 over http, which only the private-targets switch allows.
    webhooks: { allowPrivateTargets: true, timeoutMs: 2_000, ...options.webhooks },
    random: () => 0.5,
  };
  const worker = new Worker({
    db,
    logger,
    now: deps.now,
    random: () => 0.5,
    queues: { ...webhookQueues(webhookDeps) },
  });
  const verifier = new TokenVerifier({
    keys,
    revocations,
    issuer: TEST_ISSUER,
    audience: TEST_AUDIENCE,
    clockToleranceSeconds: 30,
  });
  const app = createApp({
    ...deps,
    webhooks: webhookDeps.webhooks,
    verifier,
    baseDomain: 'localhost',
    trustProxy: options.trustProxy ?? false,
    readiness: { tokenKeys: () => (keys.hasKey() ? undefined : 'no token verification key') },
  });
  return {
    app,
    db,
    forge,
    secrets,
    log,
    revocations,
    keys,
    deps,
    webhookDeps,
    worker,
    host: (tenant) => `${tenant}.localhost`,
    async close() {
      await worker.stop();
      await forge.stop();
      await db.close();
    },
  };
}
