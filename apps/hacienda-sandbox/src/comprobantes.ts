// GET /recepcion/v1/comprobantes and /comprobantes/{clave} (REFERENCE §4.5): the documents a taxpayer sent
// or received, newest first, paged with offset/limit (Accept-Range: resource 50, Content-Range, 206 for a
// partial page), filtered by `emisor`/`receptor` (identification type + number, e.g. 02003101123456).
// Who is the caller: Hacienda's IdP users are named after the cédula (cpj-3-101-123456@…), so the digits
// of the username are the taxpayer; documents the caller sent under its username count as well.
import type { ComprobanteDetalle, ComprobanteResumen } from '@cr/contracts';
import { AppError, type Db } from '@cr/service-kit';
import type { RequestHandler, Router } from 'express';
import { parseComprobante } from './verdict/parse-comprobante';

const PAGE = 50;

interface Row {
  clave: string;
  fecha: string;
  estado: string;
  emisor_tipo: string;
  emisor_numero: string;
  receptor_tipo: string | null;
  receptor_numero: string | null;
  comprobante_xml: string;
}

/** The taxpayer behind an IdP username (`cpf-01-0234-0567@…` → 102340567); undefined when not named so. */
export function taxpayerOfUsername(username: string): string | undefined {
  const m = /^cp[fj]-([0-9-]+)@/i.exec(username) ?? /^(?:dimex|nite)-([0-9-]+)@/i.exec(username);
  const digits = m?.[1]?.replace(/-/g, '').replace(/^0+/, '');
  return digits || undefined;
}

/** `02003101123456` → { tipo: '02', numero: '3101123456' } (the number without its zero padding). */
function parseIdFilter(name: string, value: unknown): { tipo: string; numero: string } | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^\d{11,14}$/.test(value)) {
    throw new AppError(
      'bad_request',
      `${name} debe ser el tipo y el número de identificación (máximo 14 dígitos)`,
      {
        headers: { 'X-Error-Cause': `${name} invalido` },
      },
    );
  }
  return { tipo: value.slice(0, 2), numero: value.slice(2).replace(/^0+/, '') };
}

function intParam(value: unknown, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) {
    throw new AppError('bad_request', `${name} debe ser un entero no negativo`, {
      headers: { 'X-Error-Cause': `${name} invalido` },
    });
  }
  return n;
}

function parties(row: Row): Pick<ComprobanteResumen, 'emisor' | 'receptor'> {
  let names: { emisor?: string; receptor?: string } = {};
  try {
    const doc = parseComprobante(Buffer.from(row.comprobante_xml, 'base64').toString('utf8'));
    names = { emisor: doc.emisor.nombre, receptor: doc.receptor?.nombre };
  } catch {
    // A document the verdict found unreadable still lists, without names.
  }
  return {
    emisor: {
      tipoIdentificacion: row.emisor_tipo,
      numeroIdentificacion: row.emisor_numero,
      ...(names.emisor ? { nombre: names.emisor } : {}),
    },
    ...(row.receptor_numero
      ? {
          receptor: {
            tipoIdentificacion: row.receptor_tipo ?? '',
            numeroIdentificacion: row.receptor_numero,
            ...(names.receptor ? { nombre: names.receptor } : {}),
          },
        }
      : {}),
  };
}

/** Visible to the caller: sent under its username, or naming its taxpayer as issuer or receiver. */
const VISIBLE = `kind = 'comprobante' AND (username = $1 OR ltrim(emisor_numero, '0') = $2 OR ltrim(receptor_numero, '0') = $2)`;

export function mountComprobantesRoutes(router: Router, authenticate: RequestHandler, db: Db): void {
  router.get('/recepcion/v1/comprobantes', authenticate, async (req, res) => {
    const username = String(res.locals.username);
    const emisor = parseIdFilter('emisor', req.query.emisor);
    const receptor = parseIdFilter('receptor', req.query.receptor);
    const offset = intParam(req.query.offset, 0, 'offset');
    const limit = Math.min(intParam(req.query.limit, PAGE, 'limit') || PAGE, PAGE);
    const params: unknown[] = [username, taxpayerOfUsername(username) ?? '\u0000'];
    let where = VISIBLE;
    if (emisor) {
      params.push(emisor.numero);
      where += ` AND ltrim(emisor_numero, '0') = $${params.length}`;
    }
    if (receptor) {
      params.push(receptor.numero);
      where += ` AND ltrim(receptor_numero, '0') = $${params.length}`;
    }
    const count = await db.query<{ n: string }>(`SELECT count(*) AS n FROM documents WHERE ${where}`, params);
    const total = Number(count.rows[0]?.n ?? 0);
    const rows = await db.query<Row>(
      `SELECT clave, fecha, estado, emisor_tipo, emisor_numero, receptor_tipo, receptor_numero, comprobante_xml
       FROM documents WHERE ${where} ORDER BY received_at DESC, clave LIMIT ${limit} OFFSET ${offset}`,
      params,
    );
    const body: ComprobanteResumen[] = rows.rows.map((row) => ({
      clave: row.clave,
      fecha: row.fecha,
      ...parties(row),
    }));
    const last = body.length ? offset + body.length - 1 : offset;
    res.set('Accept-Range', `resource ${PAGE}`);
    res.set('Content-Range', `${offset}-${last}/${total}`);
    res.status(offset + body.length < total ? 206 : 200).json(body);
  });

  router.get('/recepcion/v1/comprobantes/:clave', authenticate, async (req, res) => {
    const clave = String(req.params.clave);
    const username = String(res.locals.username);
    const r = await db.query<Row>(
      `SELECT clave, fecha, estado, emisor_tipo, emisor_numero, receptor_tipo, receptor_numero, comprobante_xml
       FROM documents WHERE clave = $3 AND ${VISIBLE}`,
      [username, taxpayerOfUsername(username) ?? '\u0000', clave],
    );
    const row = r.rows[0];
    if (!row) {
      const message = `No existe el recurso con Clave = [${clave}]`;
      throw new AppError('not_found', message, { headers: { 'X-Error-Cause': message } });
    }
    const notes = await db.query<{ clave: string; fecha: string; tipo: string }>(
      `SELECT clave, fecha, tipo FROM documents
       WHERE kind = 'comprobante' AND referenced_clave = $1 AND tipo IN ('02', '03') ORDER BY received_at`,
      [clave],
    );
    const body: ComprobanteDetalle = {
      clave: row.clave,
      fecha: row.fecha,
      ...parties(row),
      notasCredito: notes.rows
        .filter((n) => n.tipo === '03')
        .map((n) => ({ clave: n.clave, fecha: n.fecha })),
      notasDebito: notes.rows.filter((n) => n.tipo === '02').map((n) => ({ clave: n.clave, fecha: n.fecha })),
      'ind-estado': row.estado as ComprobanteDetalle['ind-estado'],
      comprobanteXml: row.comprobante_xml,
    };
    res.json(body);
  });
}
