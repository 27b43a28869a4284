// The sandbox's HTTP app: Hacienda's IdP, recepción and public API at Hacienda's own paths, plus the
// sandbox admin API. createApp never listens; createProcessor wires the verdict pipeline to the store.
import { type Db, type Logger, createHttpApp } from '@cr/service-kit';
import type { Express } from 'express';
import { createAdminRouter } from './admin';
import type { CabysCatalog } from './cabys-catalog';
import type { SandboxKeys } from './certificate-authority';
import type { SandboxConfig } from './config';
import type { FaultInjector } from './faults';
import { TokenService, createIdpRouter } from './idp';
import { DocumentProcessor } from './processor';
import { createPublicApiRouter, findTaxpayer } from './public-api';
import { RateLimiter } from './rate-limit';
import { createRecepcionRouter, recepcionParseErrorCause } from './recepcion';
import type { VerdictCheck } from './verdict/checks';
import { findReferencedDocument } from './verdict/referenced-documents';
import { runReceptorVerdict } from './verdict/receptor-verdict';
import { type ResponseSigner, runVerdict } from './verdict/run-verdict';
import type { XsdValidator } from './verdict/xsd-check';

export interface ProcessorDeps {
  config: SandboxConfig;
  logger: Logger;
  db: Db;
  keys: SandboxKeys;
  cabys: CabysCatalog;
  xsd: XsdValidator;
  checks: readonly VerdictCheck[];
  signResponse: ResponseSigner;
  now?: () => Date;
}

export function createProcessor(deps: ProcessorDeps): DocumentProcessor {
  const now = deps.now ?? (() => new Date());
  return new DocumentProcessor({
    db: deps.db,
    logger: deps.logger,
    delayMs: deps.config.SANDBOX_PROCESSING_DELAY_MS,
    callbackTimeoutMs: deps.config.SANDBOX_CALLBACK_TIMEOUT_MS,
    callbackRetryDelayMs: deps.config.SANDBOX_CALLBACK_RETRY_DELAY_MS,
    decide: (xml, clave, forced, kind) =>
      kind === 'mensaje_receptor' && forced === undefined
        ? runReceptorVerdict({
            xml,
            id: clave,
            db: deps.db,
            xsd: deps.xsd,
            ca: deps.keys.ca,
            trustAnyCa: deps.config.SANDBOX_TRUST_ANY_CA,
            now: now(),
            sign: deps.signResponse,
          })
        : runVerdict({
            xml,
            clave,
            checks: deps.checks,
            sign: deps.signResponse,
            ...(forced ? { forced } : {}),
            context: {
              now: now(),
              ca: deps.keys.ca,
              trustAnyCa: deps.config.SANDBOX_TRUST_ANY_CA,
              cabys: deps.cabys,
              xsd: deps.xsd,
              findDocument: (referenced) => findReferencedDocument(deps.db, referenced),
              findTaxpayer: async (id) => {
                const t = await findTaxpayer(deps.db, id);
                return t
                  ? { nombre: t.nombre, estado: t.situacion.estado, actividades: t.actividades }
                  : undefined;
              },
            },
          }),
  });
}

export interface AppDeps {
  config: SandboxConfig;
  logger: Logger;
  db: Db;
  keys: SandboxKeys;
  cabys: CabysCatalog;
  processor: DocumentProcessor;
  faults: FaultInjector;
  now?: () => Date;
}

export function createApp(deps: AppDeps): Express {
  const { config, db, faults } = deps;
  const now = deps.now ?? (() => new Date());
  const idpOptions = {
    db,
    keyPem: deps.keys.idpKeyPem,
    accessTtl: config.SANDBOX_ACCESS_TOKEN_TTL,
    refreshTtl: config.SANDBOX_REFRESH_TOKEN_TTL,
    openMode: config.openMode,
    now,
    publicUrl: config.SANDBOX_PUBLIC_URL,
  };
  const tokens = new TokenService(idpOptions);
  const recepcionLimiter = new RateLimiter(
    config.SANDBOX_RECEPCION_RATE_LIMIT,
    config.SANDBOX_RECEPCION_RATE_WINDOW_S,
    now,
  );
  const publicLimiter = new RateLimiter(
    config.SANDBOX_PUBLIC_RATE_LIMIT,
    config.SANDBOX_PUBLIC_RATE_WINDOW_S,
    now,
  );
  return createHttpApp({
    logger: deps.logger,
    // A signed comprobante in Base64 inside JSON; Hacienda's own limit is not published.
    bodyLimit: '5mb',
    readiness: { database: async () => void (await db.ping()) },
    healthToken: deps.config.HEALTH_TOKEN,
    beforeBody: [
      faults.middleware('recepcion-post', (m, p) => m === 'POST' && p === '/recepcion/v1/recepcion'),
      faults.middleware('recepcion-get', (m, p) => m === 'GET' && p.startsWith('/recepcion/v1/recepcion/')),
      faults.middleware('idp', (_m, p) => p.startsWith('/auth/realms/')),
      faults.middleware('public-api', (_m, p) => p.startsWith('/fe/')),
    ],
    routes: (app) => {
      app.use(createIdpRouter(idpOptions, tokens));
      app.use(
        createRecepcionRouter({
          db,
          tokens,
          limiter: recepcionLimiter,
          processor: deps.processor,
          publicUrl: config.SANDBOX_PUBLIC_URL,
        }),
      );
      app.use('/recepcion', recepcionParseErrorCause);
      app.use(createPublicApiRouter(db, deps.cabys, publicLimiter, config.SANDBOX_PUBLIC_URL));
      app.use(
        createAdminRouter({
          db,
          ca: deps.keys.ca,
          faults,
          adminToken: config.SANDBOX_ADMIN_TOKEN,
          openMode: config.openMode,
          now,
        }),
      );
    },
  });
}
