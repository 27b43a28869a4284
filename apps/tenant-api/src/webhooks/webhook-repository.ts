// SQL of the webhook tables (what a job run reads first is in webhook-job-inputs.ts). Every function runs
// inside withTenant and still names its tenant: RLS is the second wall, not the first.
import { randomUUID } from 'node:crypto';
import type { FolioType } from '@cr/contracts';
import { CteWrites, type Queryable } from '@cr/service-kit';
import { documentOrAnswerByClaveSql } from '../documents/document-repository';

export interface WebhookEndpointRow {
  tenant_id: string;
  url: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  secrets_key_id: string;
  rotated_at: Date | string | null;
  active: boolean;
  disabled_at: Date | string | null;
  disabled_reason: string | null;
  updated_at: Date | string;
}

export async function findEndpoint(
  tx: Queryable,
  tenantId: string,
  options: { forUpdate?: boolean } = {},
): Promise<WebhookEndpointRow | undefined> {
  const r = await tx.query<WebhookEndpointRow>(
    `SELECT tenant_id, url, secret_sealed, previous_secret_sealed, secrets_key_id, rotated_at, active,
            disabled_at, disabled_reason, updated_at
     FROM webhook_endpoints WHERE tenant_id = $1${options.forUpdate ? ' FOR UPDATE' : ''}`,
    [tenantId],
  );
  return r.rows[0];
}

/** A replay's document, and the tenant's endpoint as it stands (all null without one). */
export interface ReplayTargetRow {
  id: string;
  estado: string;
  endpoint_active: boolean | null;
  disabled_at: Date | string | null;
  disabled_reason: string | null;
}

/**
 * The document a replay names (found as findDocumentOrAnswerByClave finds it) and whether its event has an
 * endpoint to go to, in one statement: the answer says so at no extra round trip.
 */
export async function findReplayTarget(
  tx: Queryable,
  tenantId: string,
  clave: string,
): Promise<ReplayTargetRow | undefined> {
  const r = await tx.query<ReplayTargetRow>(
    `SELECT d.id, d.estado, w.active AS endpoint_active, w.disabled_at, w.disabled_reason
     FROM (${documentOrAnswerByClaveSql(['id', 'estado'])}) d
     LEFT JOIN webhook_endpoints w ON w.tenant_id = $1`,
    [tenantId, clave],
  );
  return r.rows[0];
}

export interface EndpointValues {
  url: string;
  secretSealed: string;
  previousSecretSealed: string | null;
  secretsKeyId: string;
  rotatedAt: Date | null;
  now: Date;
}

/** Creates or replaces the endpoint; re-enables it (a configuration is a fresh start). */
export async function upsertEndpoint(tx: Queryable, tenantId: string, v: EndpointValues): Promise<void> {
  await tx.query(
    `INSERT INTO webhook_endpoints
       (tenant_id, url, secret_sealed, previous_secret_sealed, secrets_key_id, rotated_at, active, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, true, $7, $7)
     ON CONFLICT (tenant_id) DO UPDATE SET
       url = EXCLUDED.url, secret_sealed = EXCLUDED.secret_sealed,
       previous_secret_sealed = EXCLUDED.previous_secret_sealed, secrets_key_id = EXCLUDED.secrets_key_id,
       rotated_at = EXCLUDED.rotated_at, active = true, disabled_at = NULL, disabled_reason = NULL,
       updated_at = EXCLUDED.updated_at`,
    [tenantId, v.url, v.secretSealed, v.previousSecretSealed, v.secretsKeyId, v.rotatedAt, v.now],
  );
}

export interface DocumentForEvent {
  id: string;
  clave: string;
  estado: string;
  respuesta_xml: string | null;
  /** Set on a receiver's answer: the answered document's clave (its xml is the MensajeReceptor). */
  clave_recibida: string | null;
  folio_type: FolioType;
  xml: string;
}

export interface WebhookEventRow {
  id: string;
  tenant_id: string;
  document_id: string;
  clave: string;
  estado: string;
  job_id: string;
  body: string;
  state: string;
}

/**
 * Freezes event `e` (its id and body, sent identically by every attempt), as the writes of one statement:
 * pending, or already finished as `end` when `deliveryWrites` adds its attempt to the same statement (a row
 * inserted by one CTE cannot be updated by another of the same statement). Only a finished event may come
 * without a body (one that had nowhere to go): a pending one's retries send it.
 */
export function eventWrites(
  e: Omit<WebhookEventRow, 'state' | 'body'> & { body: string | null },
  now: Date,
  end?: EventEnd,
): CteWrites {
  if (e.body === null && !end) throw new Error(`webhook event ${e.id}: a pending event needs its body`);
  const w = new CteWrites();
  const [id, tenant, document, clave, estado, job, body, at] = [
    e.id,
    e.tenant_id,
    e.document_id,
    e.clave,
    e.estado,
    e.job_id,
    e.body,
    now,
  ].map((v) => w.param(v));
  return w.add(
    'frozen',
    `INSERT INTO webhook_events (id, tenant_id, document_id, clave, estado, job_id, body, created_at, state, finished_at)
     VALUES (${id}, ${tenant}, ${document}, ${clave}, ${estado}, ${job}::bigint, ${body}, ${at},
       ${w.param(end ?? 'pending')}, ${end ? at : 'NULL'})`,
  );
}

export interface DeliveryValues {
  documentId: string;
  eventId: string;
  attempt: number;
  url: string;
  status: number | null;
  latencyMs: number | null;
  error: string | null;
  at: Date;
}

export type EventEnd = 'delivered' | 'failed' | 'gone' | 'no_endpoint' | 'disabled';

/**
 * A delivery attempt as the writes of one statement (its job's record joins them, JobContext.finishIn): the
 * attempt's row and what it settles. `end` finishes the event; `disable` (after a 410) disables the endpoint
 * unless it was reconfigured since `seenUpdatedAt`, read before the call (that configuration wins). Added to
 * `w` when given (its CTEs must not be named `delivery`, `event` nor `endpoint`).
 */
export function deliveryWrites(
  tenantId: string,
  d: DeliveryValues,
  then: { end?: EventEnd; disable?: { seenUpdatedAt: Date | string; reason: string } } = {},
  w = new CteWrites(),
): CteWrites {
  const tenant = w.param(tenantId);
  const event = w.param(d.eventId);
  const at = w.param(d.at);
  const values = [randomUUID(), d.documentId, d.attempt, d.url, d.status, d.latencyMs, d.error].map((v) =>
    w.param(v),
  );
  const [id, documentId, attempt, url, status, latencyMs, error] = values;
  w.add(
    'delivery',
    `INSERT INTO webhook_deliveries
       (id, tenant_id, document_id, event_id, attempt, url, status, latency_ms, error, created_at)
     VALUES (${id}, ${tenant}, ${documentId}, ${event}, ${attempt}, ${url}, ${status}, ${latencyMs}, ${error}, ${at})`,
  );
  if (then.end) {
    w.add(
      'event',
      `UPDATE webhook_events SET state = ${w.param(then.end)}, finished_at = ${at}
       WHERE tenant_id = ${tenant} AND id = ${event}`,
    );
  }
  if (then.disable) {
    w.add(
      'endpoint',
      `UPDATE webhook_endpoints SET active = false, disabled_at = ${at}, disabled_reason = ${w.param(then.disable.reason)}
       WHERE tenant_id = ${tenant} AND updated_at = ${w.param(then.disable.seenUpdatedAt)} AND active`,
    );
  }
  return w;
}

export interface DeliveryRow {
  event_id: string;
  attempt: number;
  url: string;
  status: number | null;
  latency_ms: number | null;
  error: string | null;
  created_at: Date | string;
  clave: string;
}

/** The latest attempts of the tenant, newest first. */
export async function listRecentDeliveries(
  tx: Queryable,
  tenantId: string,
  limit: number,
): Promise<DeliveryRow[]> {
  const r = await tx.query<DeliveryRow>(
    `SELECT d.event_id, d.attempt, d.url, d.status, d.latency_ms, d.error, d.created_at, e.clave
     FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id AND e.tenant_id = d.tenant_id
     WHERE d.tenant_id = $1
     ORDER BY d.created_at DESC, d.attempt DESC
     LIMIT $2`,
    [tenantId, limit],
  );
  return r.rows;
}
