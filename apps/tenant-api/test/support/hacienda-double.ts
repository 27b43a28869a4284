// Hacienda's public API for the lookup tests. The real hacienda-sandbox app (started as a process with
// testkit's startApp) when it is in the repository; until then a loopback stand-in that answers /fe/ae, /fe/ex
// and /fe/cabys as REFERENCE §10 describes and offers the same admin calls as the sandbox (POST
// /sandbox/contribuyentes, /sandbox/exoneraciones, /sandbox/fallas), so the tests are written once.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, haciendaDataDir, startApp } from '@cr/testkit';
import express from 'express';

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
  kind: 'sandbox' | 'stand-in';
  url: string;
  addTaxpayer(t: TaxpayerSeed): Promise<void>;
  addExoneration(e: ExonerationSeed): Promise<void>;
  /** The next `count` public-API calls answer 503. */
  failPublicApi(count: number): Promise<void>;
  stop(): Promise<void>;
}

async function admin(url: string, path: string, body: unknown): Promise<void> {
  const r = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (r.status !== 201) throw new Error(`${path} answered ${r.status}: ${await r.text()}`);
}

function withAdmin(kind: HaciendaDouble['kind'], url: string, stop: () => Promise<void>): HaciendaDouble {
  return {
    kind,
    url,
    addTaxpayer: (t) => admin(url, '/sandbox/contribuyentes', t),
    addExoneration: (e) => admin(url, '/sandbox/exoneraciones', e),
    failPublicApi: (count) =>
      admin(url, '/sandbox/fallas', { target: 'public-api', mode: 'status', status: 503, count }),
    stop,
  };
}

const SANDBOX_MAIN = join(REPO_ROOT, 'apps', 'hacienda-sandbox', 'src', 'main.ts');

export function sandboxAvailable(): boolean {
  return existsSync(SANDBOX_MAIN);
}

export async function startHaciendaDouble(): Promise<HaciendaDouble> {
  return sandboxAvailable() ? startSandbox() : startStandIn();
}

async function startSandbox(): Promise<HaciendaDouble> {
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
  return withAdmin('sandbox', proc.url, async () => {
    await proc.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
}

const STAND_IN_CABYS = [
  { codigo: '2132100000100', descripcion: 'Jugo de tomate concentrado', impuesto: 13 },
  { codigo: '2132100000200', descripcion: 'Jugo de tomate natural', impuesto: 13 },
  { codigo: '2399101000000', descripcion: 'Café tostado en grano', impuesto: 1 },
];

async function startStandIn(): Promise<HaciendaDouble> {
  const taxpayers = new Map<string, unknown>();
  const exonerations = new Map<string, unknown>();
  let failures = 0;
  const app = express();
  app.use(express.json());
  app.use('/fe', (_req, res, next) => {
    if (failures > 0) {
      failures--;
      res.status(503).json({ error: 'service_unavailable', message: 'injected fault' });
      return;
    }
    next();
  });
  app.get('/fe/ae', (req, res) => {
    const id = String(req.query.identificacion ?? '');
    if (!/^\d{9,12}$/.test(id)) return void res.status(400).send('identificacion invalida');
    const t = taxpayers.get(id);
    return void (t ? res.json(t) : res.status(404).end());
  });
  app.get('/fe/ex', (req, res) => {
    const a = String(req.query.autorizacion ?? '');
    if (!/^[A-Za-z]{2}-\d{8}-\d{2}$/.test(a)) return void res.status(400).end();
    const e = exonerations.get(a.toUpperCase());
    return void (e ? res.json(e) : res.status(404).end());
  });
  app.get('/fe/cabys', (req, res) => {
    const fold = (t: string) =>
      t
        .normalize('NFD')
        .replace(/[\u0300-\u036f]/g, '')
        .toLowerCase();
    if (req.query.codigo !== undefined) {
      const hit = STAND_IN_CABYS.filter((c) => c.codigo === req.query.codigo);
      return void (hit.length ? res.json(hit.map((c) => ({ ...c, categorias: [] }))) : res.status(404).end());
    }
    const words = fold(String(req.query.q ?? ''))
      .split(/\s+/)
      .filter(Boolean);
    const found = STAND_IN_CABYS.filter((c) => words.every((w) => fold(c.descripcion).includes(w)));
    const top = Number(req.query.top ?? 10);
    res.json({ total: found.length, cantidad: Math.min(top, found.length), cabys: found.slice(0, top) });
  });
  app.post('/sandbox/contribuyentes', (req, res) => {
    const t = req.body as TaxpayerSeed;
    taxpayers.set(t.identificacion, {
      nombre: t.nombre,
      tipoIdentificacion: String(t.tipoIdentificacion).padStart(2, '0'),
      regimen: { codigo: 1, descripcion: 'Régimen General' },
      situacion: {
        moroso: 'NO',
        omiso: 'NO',
        estado: 'Inscrito',
        administracionTributaria: 'Grandes Contribuyentes',
      },
      actividades: t.actividades.map((a) => ({ estado: 'A', tipo: 'P', ...a })),
    });
    res.status(201).json({});
  });
  app.post('/sandbox/exoneraciones', (req, res) => {
    const e = req.body as ExonerationSeed;
    exonerations.set(e.numeroDocumento.toUpperCase(), {
      numeroDocumento: e.numeroDocumento.toUpperCase(),
      identificacion: e.identificacion,
      codigoProyectoCFIA: null,
      fechaEmision: `${e.fechaEmision ?? '2024-01-15'}T00:00:00`,
      fechaVencimiento: `${e.fechaVencimiento}T00:00:00`,
      porcentajeExoneracion: e.porcentajeExoneracion,
      tipoDocumento: { codigo: '04', descripcion: 'Exenciones Dirección General de Hacienda' },
      nombreInstitucion: 'Dirección General de Hacienda',
      poseeCabys: !!e.cabys?.length,
      ...(e.cabys?.length ? { cabys: e.cabys } : {}),
    });
    res.status(201).json({});
  });
  app.post('/sandbox/fallas', (req, res) => {
    failures = Number((req.body as { count: number }).count);
    res.status(201).json({});
  });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return withAdmin('stand-in', url, async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });
}
