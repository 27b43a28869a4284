// The sandbox's own admin API under /sandbox: IdP users, taxpayers, exonerations, forced verdicts, fault
// injection, received documents and the test certificate authority. Guarded by SANDBOX_ADMIN_TOKEN when it
// is set; open without it only in open mode (development), refused otherwise.
import { timingSafeEqual } from 'node:crypto';
import {
  SandboxCertificateRequest,
  type SandboxCertificateResponse,
  SandboxExonerationRequest,
  SandboxFaultRequest,
  SandboxTaxpayerRequest,
  SandboxUserRequest,
  SandboxVerdictRequest,
} from '@cr/contracts';
import { costaRicaDate } from '@cr/hacienda-xml';
import { AppError, type Db, parseBody } from '@cr/service-kit';
import express, { type RequestHandler, type Router } from 'express';
import { issueCertificate, type KeyMaterial, toLegacyP12 } from './certificate-authority';
import type { FaultInjector } from './faults';
import { upsertUser } from './idp';
import type { ExonerationData, TaxpayerData } from './public-api';

export interface AdminOptions {
  db: Db;
  ca: KeyMaterial;
  faults: FaultInjector;
  adminToken: string | undefined;
  openMode: boolean;
  /** The sandbox's clock: an exoneration without fechaEmision is issued on its day in Costa Rica. */
  now: () => Date;
}

function guard(adminToken: string | undefined, openMode: boolean): RequestHandler {
  return (req, _res, next) => {
    if (!adminToken) {
      if (openMode) return next();
      return next(new AppError('forbidden', 'the admin API is disabled: set SANDBOX_ADMIN_TOKEN'));
    }
    const m = /^bearer\s+(\S+)$/i.exec(req.get('authorization') ?? '');
    const given = Buffer.from(m?.[1] ?? '');
    const expected = Buffer.from(adminToken);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return next(
        new AppError('unauthorized', 'admin token required', { headers: { 'WWW-Authenticate': 'Bearer' } }),
      );
    }
    next();
  };
}

const REGIMEN: Record<number, string> = {
  0: 'No aplica',
  1: 'Régimen Tradicional',
  2: 'Régimen Simplificado',
};

export function toTaxpayerData(req: SandboxTaxpayerRequest): TaxpayerData {
  const codigo = req.regimen?.codigo ?? 1;
  return {
    nombre: req.nombre,
    tipoIdentificacion: req.tipoIdentificacion,
    regimen: { codigo, descripcion: req.regimen?.descripcion ?? REGIMEN[codigo] ?? 'Régimen Tradicional' },
    situacion: {
      moroso: req.moroso ? 'SI' : 'NO',
      omiso: req.omiso ? 'SI' : 'NO',
      estado: req.estado ?? 'Inscrito',
      administracionTributaria: 'Grandes Contribuyentes',
    },
    actividades: req.actividades.map((a, i) => ({
      estado: a.estado ?? 'A',
      tipo: a.tipo ?? (i === 0 ? 'P' : 'S'),
      codigo: a.codigo,
      descripcion: a.descripcion,
    })),
  };
}

export async function saveTaxpayer(db: Db, req: SandboxTaxpayerRequest): Promise<TaxpayerData> {
  const data = toTaxpayerData(req);
  await db.query(
    `INSERT INTO taxpayers (identificacion, data) VALUES ($1, $2)
     ON CONFLICT (identificacion) DO UPDATE SET data = EXCLUDED.data, updated_at = now()`,
    [req.identificacion, JSON.stringify(data)],
  );
  return data;
}

/**
 * Stores an exoneration for /fe/ex. Without fechaEmision it is issued today in Costa Rica at `now` (Hacienda
 * writes its own day): the UTC date is already tomorrow from 18:00 there, and a client writing today's date
 * in FechaEmisionEX would not match it.
 */
export async function saveExoneration(
  db: Db,
  body: SandboxExonerationRequest,
  now: Date,
): Promise<ExonerationData> {
  const numero = body.numeroDocumento.toUpperCase();
  const data: ExonerationData = {
    numeroDocumento: numero,
    identificacion: body.identificacion,
    codigoProyectoCFIA: body.codigoProyectoCFIA ?? null,
    fechaEmision: `${body.fechaEmision ?? costaRicaDate(now)}T00:00:00`,
    fechaVencimiento: `${body.fechaVencimiento}T00:00:00`,
    porcentajeExoneracion: body.porcentajeExoneracion,
    tipoDocumento: body.tipoDocumento ?? {
      codigo: '04',
      descripcion: 'Exenciones Dirección General de Hacienda',
    },
    nombreInstitucion: body.nombreInstitucion ?? 'Dirección General de Hacienda',
    poseeCabys: !!body.cabys?.length,
    ...(body.cabys?.length ? { cabys: body.cabys } : {}),
  };
  await db.query(
    `INSERT INTO exonerations (numero_documento, data) VALUES ($1, $2)
     ON CONFLICT (numero_documento) DO UPDATE SET data = EXCLUDED.data, updated_at = now()`,
    [numero, JSON.stringify(data)],
  );
  return data;
}

export function issueP12(ca: KeyMaterial, req: SandboxCertificateRequest): SandboxCertificateResponse {
  const issued = issueCertificate(ca, {
    identificacion: req.identificacion,
    tipoIdentificacion: req.tipoIdentificacion,
    nombre: req.nombre,
  });
  return {
    p12: toLegacyP12(issued, ca, req.pin, req.nombre).toString('base64'),
    subject: issued.subject,
    issuer: issued.issuer,
    serialNumber: issued.serialNumber,
    notBefore: issued.notBefore.toISOString(),
    notAfter: issued.notAfter.toISOString(),
  };
}

export function createAdminRouter(options: AdminOptions): Router {
  const { db, ca, faults } = options;
  const router = express.Router();
  router.use('/sandbox', guard(options.adminToken, options.openMode));

  router.post('/sandbox/usuarios', async (req, res) => {
    const body = parseBody(SandboxUserRequest, req.body);
    const realm = body.realm ?? 'rut-stag';
    await upsertUser(db, realm, body.username, body.password);
    res.status(201).json({ realm, username: body.username.toLowerCase() });
  });

  router.post('/sandbox/contribuyentes', async (req, res) => {
    const body = parseBody(SandboxTaxpayerRequest, req.body);
    res.status(201).json({ identificacion: body.identificacion, ...(await saveTaxpayer(db, body)) });
  });

  router.post('/sandbox/exoneraciones', async (req, res) => {
    const data = await saveExoneration(db, parseBody(SandboxExonerationRequest, req.body), options.now());
    res.status(201).json(data);
  });

  router.post('/sandbox/veredicto', async (req, res) => {
    const body = parseBody(SandboxVerdictRequest, req.body);
    if (body.outcome !== 'reject' && (body.code !== undefined || body.text !== undefined)) {
      throw new AppError('bad_request', 'code, text: only allowed with outcome "reject"');
    }
    await db.query('INSERT INTO forced_verdicts (verdict) VALUES ($1)', [JSON.stringify(body)]);
    res.status(201).json({ queued: body });
  });

  router.delete('/sandbox/veredicto', async (_req, res) => {
    await db.query('DELETE FROM forced_verdicts');
    res.status(204).end();
  });

  router.post('/sandbox/fallas', (req, res) => {
    const body = parseBody(SandboxFaultRequest, req.body);
    if (body.mode === 'status' && body.timeoutMs !== undefined)
      throw new AppError('bad_request', 'timeoutMs: only with mode "timeout"');
    if (body.mode === 'timeout' && body.status !== undefined)
      throw new AppError('bad_request', 'status: only with mode "status"');
    faults.set(body);
    res.status(201).json({ faults: faults.list() });
  });

  router.get('/sandbox/fallas', (_req, res) => {
    res.json({ faults: faults.list() });
  });

  router.delete('/sandbox/fallas', (_req, res) => {
    faults.clear();
    res.status(204).end();
  });

  router.get('/sandbox/comprobantes', async (_req, res) => {
    const r = await db.query<Record<string, unknown>>(
      `SELECT clave, fecha, estado, emisor_tipo, emisor_numero, receptor_tipo, receptor_numero, callback_url, username,
              findings, callback_attempts, callback_status, received_at, updated_at
       FROM documents ORDER BY received_at DESC LIMIT 500`,
    );
    res.json({
      comprobantes: r.rows.map((row) => ({
        clave: row.clave,
        fecha: row.fecha,
        estado: row.estado,
        emisor: { tipoIdentificacion: row.emisor_tipo, numeroIdentificacion: row.emisor_numero },
        ...(row.receptor_numero
          ? { receptor: { tipoIdentificacion: row.receptor_tipo, numeroIdentificacion: row.receptor_numero } }
          : {}),
        callbackUrl: row.callback_url ?? undefined,
        usuario: row.username,
        hallazgos: row.findings ?? [],
        callback: { intentos: row.callback_attempts, estado: row.callback_status ?? undefined },
        recibido: new Date(String(row.received_at)).toISOString(),
        actualizado: new Date(String(row.updated_at)).toISOString(),
      })),
    });
  });

  router.post('/sandbox/certificados', (req, res) => {
    const body = parseBody(SandboxCertificateRequest, req.body);
    res.status(201).json(issueP12(ca, body));
  });

  router.get('/sandbox/ca', (_req, res) => {
    res.type('application/x-pem-file').send(ca.certPem);
  });
  return router;
}
