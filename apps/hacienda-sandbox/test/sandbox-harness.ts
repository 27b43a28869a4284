// Builds a complete sandbox for component tests: fresh database (PGlite or TEST_DATABASE_URL), keys in a
// temporary DATA_DIR, the real verdict pipeline and HTTP app. Nothing of our own is mocked.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createLogger,
  createTestDatabase,
  migrate,
  readMigrations,
  type TestDatabase,
} from '@cr/service-kit';
import { haciendaDataDir, xsdDir } from '@cr/testkit';
import type { Express } from 'express';
import { loadOrCreateKeys, type SandboxKeys } from '../src/certificate-authority';
import { composeSandbox } from '../src/compose';
import { loadSandboxConfig, type SandboxConfig } from '../src/config';
import type { FaultInjector } from '../src/faults';
import type { DocumentProcessor } from '../src/processor';
import type { VerdictCheck } from '../src/verdict/checks';
import type { ResponseSigner } from '../src/verdict/run-verdict';

export interface Harness {
  app: Express;
  db: TestDatabase;
  keys: SandboxKeys;
  config: SandboxConfig;
  processor: DocumentProcessor;
  faults: FaultInjector;
  dataDir: string;
  close(): Promise<void>;
}

export interface HarnessOptions {
  env?: Record<string, string>;
  dataDir?: string;
  signResponse?: ResponseSigner;
  checks?: readonly VerdictCheck[];
  now?: () => Date;
}

// One data directory (so one set of RSA keys) per test file: key generation is the slow part of a start,
// and the harnesses of one file may share a CA. Removed when the last harness of the file closes.
let shared: { dir: string; users: number } | undefined;

function acquireSharedDir(): string {
  shared ??= { dir: mkdtempSync(join(tmpdir(), 'sandbox-')), users: 0 };
  shared.users += 1;
  return shared.dir;
}

function releaseSharedDir(): void {
  if (!shared) return;
  shared.users -= 1;
  if (shared.users === 0) {
    rmSync(shared.dir, { recursive: true, force: true });
    shared = undefined;
  }
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dataDir = options.dataDir ?? acquireSharedDir();
  const config = loadSandboxConfig({
    DATA_DIR: dataDir,
    SANDBOX_PROCESSING_DELAY_MS: '0',
    SANDBOX_CALLBACK_RETRY_DELAY_MS: '0',
    SANDBOX_CALLBACK_TIMEOUT_MS: '2000',
    NODE_ENV: 'test',
    // The official files wherever the run says they are (HACIENDA_XSD_DIR, HACIENDA_DATA_DIR), not only
    // beside this checkout: a sandbox without its XSDs would accept what Hacienda refuses.
    HACIENDA_XSD_DIR: xsdDir(),
    HACIENDA_DATA_DIR: haciendaDataDir(),
    ...options.env,
  });
  const logger = createLogger({ service: 'hacienda-sandbox', level: 'silent' });
  const db = await createTestDatabase();
  await migrate(db, readMigrations(join(__dirname, '..', 'migrations')));
  const keys = loadOrCreateKeys(dataDir);
  const { app, processor, faults } = composeSandbox({
    config,
    logger,
    db,
    keys,
    ...(options.checks ? { checks: options.checks } : {}),
    ...(options.signResponse ? { signResponse: options.signResponse } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  return {
    app,
    db,
    keys,
    config,
    processor,
    faults,
    dataDir,
    async close() {
      faults.close();
      await processor.close();
      await db.close();
      if (!options.dataDir) releaseSharedDir();
    },
  };
}
