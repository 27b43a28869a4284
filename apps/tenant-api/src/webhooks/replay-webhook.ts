// Use case of POST /api/reenviar/webhook: a new event (new webhook-id) for the document's current final
// state, delivered by the same job as the original ones. A tenant may replay a limited number of times per
// window (429 with Retry-After), and a document has at most one replay waiting: asking again while it waits
// answers that replay instead of queueing another (issue 11, item 2). A received document's clave replays the
// RECEIVER_MESSAGE event of the latest answer to it: that clave is the one the event carries. The answer also
// says where the event will go: without a URL, or with the endpoint deactivated by a 410, the job only records
// it as not delivered, and a caller told only that it was queued would expect it to arrive.
import { WebhookReplayRequest, type WebhookReplayResponse } from '@cr/contracts';
import { enqueue, getJob } from '@cr/jobs';
import { AppError, parseBody } from '@cr/service-kit';
import { ONE_STATEMENT, withTenant } from '../db/with-tenant';
import { takeTenantSlot } from '../tenancy/tenant-rate-limit';
import type { WebhookDeps } from './webhook-deps';
import { WEBHOOK_QUEUE, type WebhookJobPayload, isFinalState, newEventId } from './webhook-event';
import { type ReplayTargetRow, findReplayTarget } from './webhook-repository';

export interface ReplayedWebhook {
  clave: string;
  estado: string;
  data: WebhookReplayResponse['data'];
}

export async function replayWebhook(
  deps: WebhookDeps,
  input: { tenantId: string; body: unknown },
): Promise<ReplayedWebhook> {
  const { clave } = parseBody(WebhookReplayRequest, input.body);
  const { tenantId } = input;
  await takeTenantSlot(deps.db, deps.replayLimiter, tenantId, 'webhook replays');
  const doc = await withTenant(
    deps.db,
    tenantId,
    (tx) => findReplayTarget(tx, tenantId, clave),
    ONE_STATEMENT,
  );
  if (!doc) throw new AppError('not_found', `clave: document ${clave} not found`);
  if (!isFinalState(doc.estado)) {
    throw new AppError('conflict', `clave: document ${clave} has no final state yet (estado ${doc.estado})`);
  }
  const eventId = newEventId();
  const payload: WebhookJobPayload = { tenantId, documentId: doc.id, eventId };
  // The jobs table is the worker's, outside the tenant role; the event row itself is written by the job
  // (under withTenant) on its first attempt, so nothing here needs to be atomic with a tenant write.
  const job = await enqueue(deps.db, {
    queue: WEBHOOK_QUEUE,
    tenant: tenantId,
    key: `webhook:replay:${eventId}`,
    pendingKey: `webhook:replay:${doc.id}`,
    payload,
  });
  const answered = job.created ? eventId : await waitingEventId(deps, job.id);
  const target = targetOf(doc);
  deps.logger.info('webhook replay requested', {
    tenantId,
    clave,
    eventId: answered,
    queued: job.created,
    webhook: target.webhook,
  });
  return { clave, estado: doc.estado, data: { eventId: answered, ...target } };
}

/**
 * The endpoint as it stands when the replay is queued. The job reads it again when it runs, so a URL saved
 * meanwhile still gets the event.
 */
function targetOf(row: ReplayTargetRow): Omit<WebhookReplayResponse['data'], 'eventId'> {
  if (row.endpoint_active === null) return { webhook: 'sin-url' };
  if (row.endpoint_active) return { webhook: 'activo' };
  return {
    webhook: 'desactivado',
    ...(row.disabled_at ? { desactivadoEn: new Date(row.disabled_at).toISOString() } : {}),
    ...(row.disabled_reason ? { motivoDesactivacion: row.disabled_reason } : {}),
  };
}

async function waitingEventId(deps: WebhookDeps, jobId: string): Promise<string> {
  const waiting = await getJob<WebhookJobPayload>(deps.db, { id: jobId });
  const eventId = waiting?.payload.eventId;
  if (!eventId) throw new Error('webhook replay: the waiting replay has no event id');
  return eventId;
}
