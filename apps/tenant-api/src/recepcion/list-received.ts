// Use cases of GET /api/recepcion/documentos (filters estado, desde, hasta; pending first by deadline,
// then the others by deadline; an opaque cursor continues after the last row) and of one document's
// detail and downloads. Another tenant's clave is the same 404 as an unknown one.
import type { RecepcionDocumentData } from '@cr/contracts';
import { ESTADOS_RECEPCION } from '@cr/contracts';
import { AppError } from '@cr/service-kit';
import {
  Conditions,
  UUID,
  cursorParam,
  dateParam,
  encodeCursor,
  enumParam,
  isCalendarDate,
  pageSizeParam,
} from '../listing/list-query';
import { ONE_STATEMENT, withTenant } from '../db/with-tenant';
import type { RecepcionDeps } from './recepcion-deps';
import {
  RECEIVED_SELECT,
  type ReceivedRow,
  findReceivedByClave,
  findReceivedXml,
} from './received-repository';
import { toReceivedData } from './received-view';

interface Cursor {
  rank: number;
  vence: string;
  id: string;
}

function isCursor(c: unknown): c is Cursor {
  if (!c || typeof c !== 'object') return false;
  const { rank, vence, id } = c as Record<string, unknown>;
  return (rank === 0 || rank === 1) && isCalendarDate(vence) && typeof id === 'string' && UUID.test(id);
}

function cursorOf(row: ReceivedRow): string {
  return encodeCursor({ rank: row.estado === 'pendiente' ? 0 : 1, vence: row.vence, id: row.id });
}

export async function listReceived(
  deps: Pick<RecepcionDeps, 'db'>,
  input: { tenantId: string; query: Record<string, unknown> },
): Promise<{ data: RecepcionDocumentData[]; cursor: string | null }> {
  const { tenantId, query } = input;
  const estado = enumParam(query, 'estado', ESTADOS_RECEPCION);
  const desde = dateParam(query, 'desde');
  const hasta = dateParam(query, 'hasta');
  const c = cursorParam(query, isCursor);
  const limite = pageSizeParam(query);
  const where = new Conditions(tenantId);
  if (estado) where.add((n) => `estado = $${n}`, estado);
  if (desde) where.add((n) => `fecha_dia >= $${n}::date`, desde);
  if (hasta) where.add((n) => `fecha_dia <= $${n}::date`, hasta);
  if (c) {
    where.add(
      (r, v, i) => `(rank, vence_d, id) > ($${r}::int, $${v}::date, $${i}::uuid)`,
      c.rank,
      c.vence,
      c.id,
    );
  }
  const sql = where.finish(limite + 1);
  const rows = await withTenant(deps.db, tenantId, async (tx) => {
    const r = await tx.query<ReceivedRow>(
      `SELECT * FROM (
         SELECT x.*, CASE WHEN x.estado = 'pendiente' THEN 0 ELSE 1 END AS rank FROM (${RECEIVED_SELECT}) x
       ) y
       WHERE ${sql.where}
       ORDER BY rank, vence_d, id
       LIMIT $${sql.limitParam}`,
      where.params,
    );
    return r.rows;
  });
  const page = rows.slice(0, limite);
  const last = page[page.length - 1];
  return { data: page.map(toReceivedData), cursor: rows.length > limite && last ? cursorOf(last) : null };
}

/** The supplier's XML, or Hacienda's answer that came with it, of a received document of the tenant. */
export async function getReceivedXml(
  deps: Pick<RecepcionDeps, 'db'>,
  input: { tenantId: string; clave: string; which: 'xml' | 'respuesta-hacienda' },
): Promise<string> {
  const { tenantId, clave } = input;
  const row = await withTenant(
    deps.db,
    tenantId,
    (tx) => findReceivedXml(tx, tenantId, clave, input.which),
    ONE_STATEMENT,
  );
  if (!row) throw new AppError('not_found', `clave: received document ${clave} not found`);
  if (row.xml === null)
    throw new AppError('not_found', `clave: no Hacienda answer was supplied with ${clave}`);
  return row.xml;
}

export async function getReceived(
  deps: Pick<RecepcionDeps, 'db'>,
  input: { tenantId: string; clave: string },
): Promise<ReceivedRow> {
  const row = await withTenant(
    deps.db,
    input.tenantId,
    (tx) => findReceivedByClave(tx, input.tenantId, input.clave),
    ONE_STATEMENT,
  );
  if (!row) throw new AppError('not_found', `clave: received document ${input.clave} not found`);
  return row;
}
