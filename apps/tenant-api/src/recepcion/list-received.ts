// Use cases of GET /api/recepcion/documentos (filters estado, desde, hasta; pending first by deadline,
// then the others by deadline; an opaque cursor continues after the last row) and of one document's
// detail and downloads. Another tenant's clave is the same 404 as an unknown one.
import type { RecepcionDocumentData } from '@cr/contracts';
import { ESTADOS_RECEPCION } from '@cr/contracts';
import { AppError } from '@cr/service-kit';
import { withTenant } from '../db/with-tenant';
import type { RecepcionDeps } from './recepcion-deps';
import { RECEIVED_SELECT, type ReceivedRow, findReceivedByClave } from './received-repository';
import { toReceivedData } from './received-view';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DEFAULT_LIMIT = 50;

interface Cursor {
  rank: number;
  vence: string;
  id: string;
}

function encodeCursor(row: ReceivedRow): string {
  const c: Cursor = { rank: row.estado === 'pendiente' ? 0 : 1, vence: row.vence, id: row.id };
  return Buffer.from(JSON.stringify(c), 'utf8').toString('base64url');
}

function decodeCursor(value: string): Cursor {
  try {
    const c = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Cursor;
    if ((c.rank === 0 || c.rank === 1) && DATE.test(c.vence) && /^[0-9a-f-]{36}$/.test(c.id)) return c;
  } catch {
    // fall through
  }
  throw new AppError('bad_request', 'cursor: is not a cursor this API returned');
}

function one(query: Record<string, unknown>, name: string): string | undefined {
  const v = query[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new AppError('bad_request', `${name}: must be given once`);
  return v;
}

export async function listReceived(
  deps: Pick<RecepcionDeps, 'db'>,
  input: { tenantId: string; query: Record<string, unknown> },
): Promise<{ data: RecepcionDocumentData[]; cursor: string | null }> {
  const { tenantId, query } = input;
  const estado = one(query, 'estado');
  const desde = one(query, 'desde');
  const hasta = one(query, 'hasta');
  const cursor = one(query, 'cursor');
  const limiteText = one(query, 'limite');
  if (estado !== undefined && !(ESTADOS_RECEPCION as readonly string[]).includes(estado)) {
    throw new AppError('bad_request', `estado: must be one of ${ESTADOS_RECEPCION.join(', ')}`);
  }
  for (const [name, v] of [
    ['desde', desde],
    ['hasta', hasta],
  ] as const) {
    if (v !== undefined && (!DATE.test(v) || Number.isNaN(Date.parse(`${v}T00:00:00Z`)))) {
      throw new AppError('bad_request', `${name}: must be a date YYYY-MM-DD`);
    }
  }
  const limite = limiteText === undefined ? DEFAULT_LIMIT : Number(limiteText);
  if (!Number.isInteger(limite) || limite < 1 || limite > 200) {
    throw new AppError('bad_request', 'limite: must be an integer 1..200');
  }
  const params: unknown[] = [tenantId];
  const where: string[] = ['tenant_id = $1'];
  const add = (sql: (n: number) => string, value: unknown) => {
    params.push(value);
    where.push(sql(params.length));
  };
  if (estado) add((n) => `estado = $${n}`, estado);
  if (desde) add((n) => `fecha_dia >= $${n}::date`, desde);
  if (hasta) add((n) => `fecha_dia <= $${n}::date`, hasta);
  if (cursor) {
    const c = decodeCursor(cursor);
    params.push(c.rank, c.vence, c.id);
    const [r, v, i] = [params.length - 2, params.length - 1, params.length];
    where.push(`(rank, vence_d, id) > ($${r}::int, $${v}::date, $${i}::uuid)`);
  }
  params.push(limite + 1);
  const rows = await withTenant(deps.db, tenantId, async (tx) => {
    const r = await tx.query<ReceivedRow>(
      `SELECT * FROM (
         SELECT x.*, CASE WHEN x.estado = 'pendiente' THEN 0 ELSE 1 END AS rank FROM (${RECEIVED_SELECT}) x
       ) y
       WHERE ${where.join(' AND ')}
       ORDER BY rank, vence_d, id
       LIMIT $${params.length}`,
      params,
    );
    return r.rows;
  });
  const page = rows.slice(0, limite);
  const last = page[page.length - 1];
  return { data: page.map(toReceivedData), cursor: rows.length > limite && last ? encodeCursor(last) : null };
}

export async function getReceived(
  deps: Pick<RecepcionDeps, 'db'>,
  input: { tenantId: string; clave: string },
): Promise<ReceivedRow> {
  const row = await withTenant(deps.db, input.tenantId, (tx) =>
    findReceivedByClave(tx, input.tenantId, input.clave),
  );
  if (!row) throw new AppError('not_found', `clave: received document ${input.clave} not found`);
  return row;
}
