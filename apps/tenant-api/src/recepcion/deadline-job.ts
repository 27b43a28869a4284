// The daily `recepcion.deadline` job: every received document still unanswered within two business days
// of `vence` raises a `recepcion.deadline` webhook event (once `proximo`, and once more `vencido` when the
// day has passed), through the same signed, retried webhook deliveries as document events. One job per
// Costa Rica day (key `recepcion.deadline:<date>`), a periodic job: each run enqueues the next day's at
// 06:00, so several replicas or restarts never run a day twice.
import type { RecepcionDeadlineEvent } from '@cr/contracts';
import { costaRicaDate } from '@cr/hacienda-xml';
import { type Period, type PeriodicJob, enqueue } from '@cr/jobs';
import type { Db, Queryable } from '@cr/service-kit';
import { withTenant } from '../db/with-tenant';
import { WEBHOOK_QUEUE, type WebhookJobPayload } from '../webhooks/webhook-event';
import type { RecepcionDeps } from './recepcion-deps';

export const DEADLINE_QUEUE = 'recepcion.deadline';
/** Warn when this many business days or fewer are left. */
export const DEADLINE_WARNING_BUSINESS_DAYS = 2;

interface Candidate {
  tenant_id: string;
  id: string;
  clave: string;
  receptor: string;
  emisor_tipo: string;
  emisor_numero: string;
  emisor_nombre: string;
  total: string;
  vence: string;
  aviso_vencimiento: string | null;
}

/** A received document `r` still to be answered: no answer, or only one Hacienda refused. */
const UNANSWERED = `NOT EXISTS (SELECT 1 FROM documents d
  WHERE d.id = r.respuesta_document_id AND d.estado NOT IN ('rechazado', 'error'))`;

/**
 * unsafe: crosses tenants on purpose (one scan for the whole service, run as the owning role); returns
 * the unanswered documents due by `until`, each with its tenant, for per-tenant work under withTenant.
 */
async function unsafeListUnansweredDueBy(db: Db, until: string): Promise<Candidate[]> {
  const r = await db.query<Candidate>(
    `SELECT r.tenant_id, r.id, r.clave, r.receptor, r.emisor_tipo, r.emisor_numero, r.emisor_nombre, r.total,
       to_char(r.vence, 'YYYY-MM-DD') AS vence, r.aviso_vencimiento
     FROM received_documents r
     WHERE r.vence <= $1::date AND r.aviso_vencimiento IS DISTINCT FROM 'vencido' AND ${UNANSWERED}
     ORDER BY r.vence, r.id`,
    [until],
  );
  return r.rows;
}

/**
 * A decree moves a holiday by days: deadlines further back than this are overdue under any calendar the
 * settings can give, and are left as they are.
 */
const FOLLOWED_DAYS_BACK = 40;

/**
 * unsafe: crosses tenants on purpose, as above; the months of emission of the unanswered documents whose
 * deadline is at most FOLLOWED_DAYS_BACK days past, with the `vence` each tenant's rows of that month hold
 * (one month's documents share one deadline).
 */
async function unsafeListUnansweredMonths(
  db: Db,
  since: string,
): Promise<Array<{ tenant_id: string; mes: string; vence: string }>> {
  const r = await db.query<{ tenant_id: string; mes: string; vence: string }>(
    `SELECT DISTINCT r.tenant_id, to_char(r.fecha_dia, 'YYYY-MM') AS mes, to_char(r.vence, 'YYYY-MM-DD') AS vence
     FROM received_documents r WHERE r.vence >= $1::date AND ${UNANSWERED}`,
    [since],
  );
  return r.rows;
}

/**
 * `vence` is stored when a document is received, but the calendar's settings (RECEPCION_HOLIDAYS_ADD and
 * _REMOVE, a decree moving a holiday: ADR 0015) may change after it: each scan first derives the deadline of
 * every unanswered document's month again and moves the rows that hold another. A deadline moved to today or
 * later starts its notices over, so the next notice names the new date; one moved within the past keeps
 * them: the document is overdue either way. Returns how many documents moved.
 */
async function followCalendar(deps: RecepcionDeps, today: string): Promise<number> {
  let moved = 0;
  const since = plusDays(today, -FOLLOWED_DAYS_BACK);
  for (const { tenant_id: tenantId, mes, vence } of await unsafeListUnansweredMonths(deps.db, since)) {
    const due = deps.calendar.receiverDeadline(new Date(`${mes}-15T12:00:00-06:00`));
    if (due === vence) continue;
    moved += await withTenant(deps.db, tenantId, async (tx) => {
      const r = await tx.query(
        `UPDATE received_documents r
         SET vence = $3::date,
           aviso_vencimiento = CASE WHEN $3::date >= $4::date THEN NULL ELSE r.aviso_vencimiento END
         WHERE r.tenant_id = $1 AND r.fecha_dia >= $2::date
           AND r.fecha_dia < ($2::date + interval '1 month')::date
           AND r.vence <> $3::date AND ${UNANSWERED}`,
        [tenantId, `${mes}-01`, due, today],
      );
      return r.rowCount ?? 0;
    });
  }
  if (moved > 0) deps.logger.info('receiving deadlines moved by the holiday settings', { moved });
  return moved;
}

function plusDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

async function markWarned(tx: Queryable, tenantId: string, id: string, stage: string): Promise<boolean> {
  const r = await tx.query(
    `UPDATE received_documents SET aviso_vencimiento = $3
     WHERE tenant_id = $1 AND id = $2 AND aviso_vencimiento IS DISTINCT FROM $3`,
    [tenantId, id, stage],
  );
  return r.rowCount === 1;
}

/** Raises the events due today; returns how many were raised. */
export async function runDeadlineScan(deps: RecepcionDeps, now: Date): Promise<number> {
  const today = costaRicaDate(now);
  await followCalendar(deps, today);
  // Two business days never span more than ten calendar days (Holy Week plus a weekend is the longest gap).
  const candidates = await unsafeListUnansweredDueBy(deps.db, plusDays(today, 10));
  let raised = 0;
  for (const c of candidates) {
    const overdue = c.vence < today;
    // Overdue is never 0 (nor −0): the day after a Friday deadline is a Saturday, no business day later.
    const left = overdue
      ? -Math.max(1, deps.calendar.businessDaysBetween(c.vence, today))
      : deps.calendar.businessDaysBetween(today, c.vence);
    if (!overdue && left > DEADLINE_WARNING_BUSINESS_DAYS) continue;
    const stage = overdue ? 'vencido' : 'proximo';
    if (c.aviso_vencimiento === stage) continue;
    const body: RecepcionDeadlineEvent = {
      type: 'recepcion.deadline',
      clave: c.clave,
      receptor: c.receptor,
      emisor: { tipo: c.emisor_tipo, numero: c.emisor_numero, nombre: c.emisor_nombre },
      total: c.total,
      vence: c.vence,
      diasHabilesRestantes: left,
    };
    const added = await withTenant(deps.db, c.tenant_id, async (tx) => {
      if (!(await markWarned(tx, c.tenant_id, c.id, stage))) return false;
      const payload: WebhookJobPayload = {
        tenantId: c.tenant_id,
        documentId: c.id,
        event: { type: 'recepcion.deadline', clave: c.clave, body },
      };
      // The day is in the key: a notice made due again by a deadline the holiday settings moved is a new
      // event, while the same day's scan run twice raises none (the stage is stored in this transaction too).
      const job = await enqueue(tx, {
        queue: WEBHOOK_QUEUE,
        tenant: c.tenant_id,
        key: `deadline:${c.id}:${stage}:${today}`,
        payload,
      });
      return job.created;
    });
    if (added) raised += 1;
  }
  if (raised > 0) {
    deps.logger.info('receiving deadlines raised', { raised, today });
    deps.wakeWorker?.();
  }
  return raised;
}

/** Costa Rica days, named by their date; a day's run is due at 06:00 (UTC−6). */
export const costaRicaMornings: Period = {
  nameAt: (at) => costaRicaDate(at),
  nextStart: (at) => new Date(`${plusDays(costaRicaDate(at), 1)}T06:00:00-06:00`),
};

/** The daily scan, for `periodicQueues` and `schedulePeriodicRuns`. */
export function deadlineJob(deps: RecepcionDeps): PeriodicJob {
  return {
    queue: DEADLINE_QUEUE,
    period: costaRicaMornings,
    run: async (now) => {
      await runDeadlineScan(deps, now);
      return 'done';
    },
  };
}
