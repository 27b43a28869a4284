// Hacienda's public API for the lookup tests: the real hacienda-sandbox app, started as a process with
// testkit's startApp on a fresh data directory, seeded and faulted through its admin API (POST
// /sandbox/contribuyentes, /sandbox/exoneraciones, /sandbox/fallas).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AppProcess, haciendaDataDir, startApp, xsdDir } from '@cr/testkit';

export interface TaxpayerSeed {
  identificacion: string;
  tipoIdentificacion: string;
  nombre: string;
  actividades: Array<{ codigo: string; descripcion: string; estado?: 'A' | 'I'; tipo?: 'P' | 'S' }>;
}

export interface ExonerationSeed {
  numeroDocumento: string;
  identificacion: string;
  porcentajeExoneracion: number;
  /** YYYY-MM-DD */
  fechaVencimiento: string;
  /** YYYY-MM-DD */
  fechaEmision?: string;
  cabys?: string[];
}

export interface HaciendaDouble {
  url: string;
  addTaxpayer(t: TaxpayerSeed): Promise<void>;
  addExoneration(e: ExonerationSeed): Promise<void>;
  /** The next `count` public-API calls answer 503. */
  failPublicApi(count: number): Promise<void>;
  stop(): Promise<void>;
}

/** POST to the sandbox's admin API (open in development); its JSON answer, or an error naming the path. */
export async function sandboxAdmin(
  url: string,
  path: string,
  body: unknown,
): Promise<Record<string, unknown>> {
  const r = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (r.status >= 300) throw new Error(`${path} answered ${r.status}: ${await r.text()}`);
  return (await r.json()) as Record<string, unknown>;
}

async function admin(url: string, path: string, body: unknown): Promise<void> {
  await sandboxAdmin(url, path, body);
}

function withAdmin(url: string, stop: () => Promise<void>): HaciendaDouble {
  return {
    url,
    addTaxpayer: (t) => admin(url, '/sandbox/contribuyentes', t),
    addExoneration: (e) => admin(url, '/sandbox/exoneraciones', e),
    failPublicApi: (count) =>
      admin(url, '/sandbox/fallas', { target: 'public-api', mode: 'status', status: 503, count }),
    stop,
  };
}

export async function startHaciendaDouble(): Promise<HaciendaDouble> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tenant-lookups-sandbox-'));
  const proc = await startApp({
    app: 'hacienda-sandbox',
    portVar: 'SANDBOX_PORT',
    env: {
      DATA_DIR: dataDir,
      DATABASE_URL: undefined,
      HACIENDA_DATA_DIR: haciendaDataDir(),
      LOG_LEVEL: 'warn',
      SANDBOX_OPEN_MODE: 'true',
      SANDBOX_ADMIN_TOKEN: undefined,
      NODE_ENV: 'development',
    },
    timeoutMs: 60_000,
  });
  return withAdmin(proc.url, async () => {
    await proc.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
}

/** The sandbox as the submission and receiving flows need it: judging at once (XSD included), callbacks
 *  retried quickly, keys and database in `dataDir`. */
export function startFlowSandbox(dataDir: string, timeoutMs: number): Promise<AppProcess> {
  return startApp({
    app: 'hacienda-sandbox',
    portVar: 'SANDBOX_PORT',
    env: {
      DATA_DIR: dataDir,
      DATABASE_URL: undefined,
      SANDBOX_PROCESSING_DELAY_MS: '0',
      SANDBOX_CALLBACK_RETRY_DELAY_MS: '50',
      HACIENDA_DATA_DIR: haciendaDataDir(),
      HACIENDA_XSD_DIR: xsdDir(),
      LOG_LEVEL: 'warn',
    },
    timeoutMs,
  });
}

/** The tenant-api's Hacienda endpoints (IdP, recepción, public API) pointed at a sandbox, or at a fake of it. */
export function haciendaSettingsFor(sandboxUrl: string) {
  return {
    HACIENDA_IDP_URL_TEST: `${sandboxUrl}/auth/realms/rut-stag/protocol/openid-connect/token`,
    HACIENDA_IDP_URL_PROD: `${sandboxUrl}/auth/realms/rut/protocol/openid-connect/token`,
    HACIENDA_RECEPCION_URL_TEST: `${sandboxUrl}/recepcion/v1`,
    HACIENDA_RECEPCION_URL_PROD: `${sandboxUrl}/recepcion/v1`,
    HACIENDA_PUBLIC_API_URL: sandboxUrl,
  };
}
