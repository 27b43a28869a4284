// Hacienda's public lookups at api.hacienda.go.cr (REFERENCE §10): taxpayers (/fe/ae), exonerations
// (/fe/ex) and CABYS (/fe/cabys). No authentication; rate-limited per client address (§10.5).
import { AppError, type Db } from '@cr/service-kit';
import express, { type Router } from 'express';
import type { CabysCatalog } from './cabys-catalog';
import { publicBase } from './public-url';
import type { RateLimiter } from './rate-limit';

export interface TaxpayerData {
  nombre: string;
  tipoIdentificacion: string;
  regimen: { codigo: number; descripcion: string };
  situacion: { moroso: 'SI' | 'NO'; omiso: 'SI' | 'NO'; estado: string; administracionTributaria: string };
  actividades: Array<{ estado: 'A' | 'I'; tipo: 'P' | 'S'; codigo: string; descripcion: string }>;
}

export interface ExonerationData {
  numeroDocumento: string;
  identificacion: string;
  codigoProyectoCFIA: number | null;
  fechaEmision: string;
  fechaVencimiento: string;
  porcentajeExoneracion: number;
  tipoDocumento: { codigo: string; descripcion: string };
  CodigoInstitucion?: string;
  nombreInstitucion: string;
  poseeCabys: boolean;
  cabys?: string[];
}

export async function findTaxpayer(db: Db, identificacion: string): Promise<TaxpayerData | undefined> {
  const r = await db.query<{ data: TaxpayerData }>('SELECT data FROM taxpayers WHERE identificacion = $1', [
    identificacion,
  ]);
  return r.rows[0]?.data;
}

function query(value: unknown): string | undefined {
  return typeof value === 'string' ? value.trim() : undefined;
}

export function createPublicApiRouter(
  db: Db,
  cabys: CabysCatalog,
  limiter: RateLimiter,
  publicUrl?: string,
): Router {
  const router = express.Router();
  router.use('/fe', (req, res, next) => {
    if (!limiter.hit(req.ip ?? 'unknown', res))
      return next(new AppError('too_many_requests', 'rate limit exceeded'));
    next();
  });

  router.get('/fe/ae', async (req, res) => {
    const id = query(req.query.identificacion);
    if (!id) throw new AppError('bad_request', 'identificacion: is required');
    if (!/^\d{9,12}$/.test(id))
      throw new AppError('bad_request', 'identificacion: must be 9 to 12 digits without hyphens');
    // Jurídicas are looked up by their first 10 digits; físicas may drop the leading zero.
    const found = (await findTaxpayer(db, id)) ?? (await findTaxpayer(db, id.replace(/^0+/, '')));
    if (!found) throw new AppError('not_found', `identificacion ${id} is not registered`);
    res.json(found);
  });

  router.get('/fe/ex', async (req, res) => {
    const numero = query(req.query.autorizacion);
    if (!numero) throw new AppError('bad_request', 'autorizacion: is required');
    if (!/^[A-Za-z]{2}-\d{8}-\d{2}$/.test(numero)) {
      throw new AppError('bad_request', 'autorizacion: must look like AL-00000000-00');
    }
    const r = await db.query<{ data: ExonerationData }>(
      'SELECT data FROM exonerations WHERE numero_documento = $1',
      [numero.toUpperCase()],
    );
    const found = r.rows[0]?.data;
    if (!found) throw new AppError('not_found', `autorizacion ${numero.toUpperCase()} does not exist`);
    res.json(found);
  });

  router.get('/fe/cabys', (req, res) => {
    const codigo = query(req.query.codigo);
    const q = query(req.query.q);
    if (codigo !== undefined) {
      if (!/^\d{13}$/.test(codigo)) throw new AppError('bad_request', 'codigo: must be 13 digits');
      const entry = cabys.get(codigo);
      if (!entry) throw new AppError('not_found', `codigo ${codigo} is not in the CABYS catalogue`);
      return void res.json([
        {
          codigo: entry.codigo,
          categorias: entry.categorias,
          descripcion: entry.descripcion,
          impuesto: entry.impuesto,
        },
      ]);
    }
    if (!q) throw new AppError('bad_request', 'q or codigo: one is required');
    const topRaw = query(req.query.top);
    const top = topRaw === undefined ? 10 : Number(topRaw);
    if (!Number.isInteger(top) || top < 1 || top > 5000)
      throw new AppError('bad_request', 'top: must be an integer from 1 to 5000');
    const { total, matches } = cabys.search(q, top);
    res.json({
      total,
      cantidad: matches.length,
      cabys: matches.map((e) => ({
        codigo: e.codigo,
        descripcion: e.descripcion,
        categorias: e.categorias,
        impuesto: e.impuesto,
        uri: `${publicBase(req, publicUrl)}/fe/cabys?codigo=${e.codigo}`,
      })),
    });
  });
  return router;
}
