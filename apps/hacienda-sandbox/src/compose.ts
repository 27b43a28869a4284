// The sandbox's one composition root: catalogue, XSD validator, fault injector, verdict processor and HTTP
// app from settings, used alike by main.ts, the component-test harness and @cr/stack. It opens nothing
// that it does not return: the caller owns the database, listens and closes `faults` and `processor`.
import type { Db, Logger } from '@cr/service-kit';
import type { Express } from 'express';
import { createApp, createProcessor } from './app';
import { type CabysCatalog, loadCabysCatalog } from './cabys-catalog';
import type { SandboxKeys } from './certificate-authority';
import type { SandboxConfig } from './config';
import { FaultInjector } from './faults';
import type { DocumentProcessor } from './processor';
import type { VerdictCheck } from './verdict/checks';
import { createResponseSigner } from './verdict/engine-checks';
import { VERDICT_CHECKS } from './verdict/pipeline';
import type { ResponseSigner } from './verdict/run-verdict';
import { type XsdValidator, createXsdValidator } from './verdict/xsd-check';

export interface SandboxSettings {
  config: SandboxConfig;
  logger: Logger;
  db: Db;
  keys: SandboxKeys;
  /** Default: every verdict check Hacienda applies. */
  checks?: readonly VerdictCheck[];
  /** Default: answers signed with the sandbox's Hacienda key. */
  signResponse?: ResponseSigner;
  now?: () => Date;
}

export interface Sandbox {
  app: Express;
  processor: DocumentProcessor;
  faults: FaultInjector;
  cabys: CabysCatalog;
  xsd: XsdValidator;
}

export function composeSandbox(settings: SandboxSettings): Sandbox {
  const { config, logger, db, keys } = settings;
  const now = settings.now ? { now: settings.now } : {};
  const cabys = loadCabysCatalog(config.HACIENDA_DATA_DIR);
  const xsd = createXsdValidator(config.HACIENDA_XSD_DIR, (xsdFile, err) =>
    logger.error('an official XSD does not compile; documents are not checked against it', {
      xsdFile,
      error: err.message,
    }),
  );
  const faults = new FaultInjector();
  const processor = createProcessor({
    config,
    logger,
    db,
    keys,
    cabys,
    xsd,
    checks: settings.checks ?? VERDICT_CHECKS,
    signResponse: settings.signResponse ?? createResponseSigner(keys.hacienda),
    ...now,
  });
  const app = createApp({ config, logger, db, keys, cabys, processor, faults, ...now });
  return { app, processor, faults, cabys, xsd };
}
