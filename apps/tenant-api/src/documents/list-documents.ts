// Use case of GET /api/documentos: one page of the tenant's documents, newest emission first, filtered by
// kind, state, emission dates (Costa Rica days), receptor and a text found in the clave, consecutivo,
// receptor number or numeroReferencia. The cursor is the last row's (emission instant, id): a page never
// repeats or skips a row while documents are added, since new ones sort before it.
import { type DocumentSummary, ESTADOS_DOCUMENTO, TIPOS_DOCUMENTO } from '@cr/contracts';
import { AppError } from '@cr/service-kit';
import { withTenant } from '../db/with-tenant';
import type { IssuerDeps } from '../emisor/issuer-deps';
import {
  Conditions,
  UUID,
  cursorParam,
  dateParam,
  encodeCursor,
  enumParam,
  isRealInstant,
  oneParam,
  pageSizeParam,
  refuseUnknownParams,
} from '../listing/list-query';

const PARAMS = ['tipo', 'estado', 'desde', 'hasta', 'receptor', 'q', 'cursor', 'limite'] as const;
// A national id (9 to 12 digits) or a foreign one (05: up to 20 letters and digits).
const RECEPTOR = /^[A-Za-z0-9]{1,20}$/;
// Microseconds, as PostgreSQL keeps them: a JavaScript Date would round them to milliseconds.
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const CR_OFFSET = '-06:00';
const DAY_MS = 86_400_000;

interface Cursor {
  f: string;
  i: string;
}

function isCursor(c: unknown): c is Cursor {
  if (!c || typeof c !== 'object') return false;
  const { f, i } = c as Record<string, unknown>;
  return (
    typeof f === 'string' && INSTANT.test(f) && isRealInstant(f) && typeof i === 'string' && UUID.test(i)
  );
}

interface Row {
  id: string;
  clave: string;
  clave_recibida: string | null;
  tipo_doc: DocumentSummary['tipoDoc'];
  emisor: string;
  consecutivo: string;
  numero_referencia: string;
  fecha_emision_text: string;
  estado: DocumentSummary['estado'];
  receptor_tipo: string | null;
  receptor_numero: string | null;
  total: string | null;
  moneda: string | null;
  instant: string;
}

/** `%`, `_` and `\` in the text are literal, not LIKE patterns. */
function likeContaining(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function textParam(query: Record<string, unknown>): string | undefined {
  const q = oneParam(query, 'q')?.trim();
  if (q === undefined) return undefined;
  if (q.length < 1 || q.length > 50) throw new AppError('bad_request', 'q: must be 1..50 characters');
  return q;
}

export async function listDocuments(
  deps: Pick<IssuerDeps, 'db'>,
  input: { tenantId: string; query: Record<string, unknown> },
): Promise<{ data: DocumentSummary[]; cursor: string | null }> {
  const { tenantId, query } = input;
  refuseUnknownParams(query, PARAMS);
  const tipo = enumParam(query, 'tipo', TIPOS_DOCUMENTO);
  const estado = enumParam(query, 'estado', ESTADOS_DOCUMENTO);
  const desde = dateParam(query, 'desde');
  const hasta = dateParam(query, 'hasta');
  const receptor = oneParam(query, 'receptor');
  if (receptor !== undefined && !RECEPTOR.test(receptor)) {
    throw new AppError(
      'bad_request',
      'receptor: must be an identification number (1 to 20 letters or digits, no hyphens)',
    );
  }
  const q = textParam(query);
  const cursor = cursorParam(query, isCursor);
  const limite = pageSizeParam(query);

  const where = new Conditions(tenantId);
  if (tipo) where.add((n) => `tipo_doc = $${n}`, tipo);
  if (estado) where.add((n) => `estado = $${n}`, estado);
  // A Costa Rica day runs from its midnight at UTC−06:00 to the next one.
  if (desde) where.add((n) => `fecha_emision >= $${n}::timestamptz`, `${desde}T00:00:00${CR_OFFSET}`);
  if (hasta) {
    const next = new Date(Date.parse(`${hasta}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
    where.add((n) => `fecha_emision < $${n}::timestamptz`, `${next}T00:00:00${CR_OFFSET}`);
  }
  if (receptor) where.add((n) => `receptor_numero = $${n}`, receptor);
  if (q) {
    where.add(
      (n) =>
        `(clave LIKE $${n} OR consecutivo LIKE $${n} OR receptor_numero LIKE $${n} OR numero_referencia::text LIKE $${n})`,
      likeContaining(q),
    );
  }
  if (cursor)
    where.add((f, i) => `(fecha_emision, id) < ($${f}::timestamptz, $${i}::uuid)`, cursor.f, cursor.i);
  const sql = where.finish(limite + 1);
  const rows = await withTenant(deps.db, tenantId, async (tx) => {
    const r = await tx.query<Row>(
      `SELECT id, clave, clave_recibida, tipo_doc, emisor, consecutivo, numero_referencia, fecha_emision_text, estado,
              receptor_tipo, receptor_numero, totals->>'totalComprobante' AS total, moneda,
              to_char(fecha_emision AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS instant
       FROM documents
       WHERE ${sql.where}
       ORDER BY fecha_emision DESC, id DESC
       LIMIT $${sql.limitParam}`,
      where.params,
    );
    return r.rows;
  });
  const page = rows.slice(0, limite);
  const last = page[page.length - 1];
  return {
    data: page.map((row) => ({
      // An answer's own row is keyed `<clave>-<consecutivo>` (answer-received.ts): it is listed, as
      // consultar/documento shows it, under the 50-digit clave it answers, which opens the latest answer.
      clave: row.clave_recibida ?? row.clave,
      tipoDoc: row.tipo_doc,
      emisor: row.emisor,
      consecutivo: row.consecutivo,
      numeroReferencia: Number(row.numero_referencia),
      fechaEmision: row.fecha_emision_text,
      estado: row.estado,
      receptor:
        row.receptor_tipo && row.receptor_numero
          ? { tipo: row.receptor_tipo, numero: row.receptor_numero }
          : null,
      total: row.total,
      moneda: row.moneda,
    })),
    cursor: rows.length > limite && last ? encodeCursor({ f: last.instant, i: last.id }) : null,
  };
}
