// Use case of POST /api/reenviar/webhook: a new event (new webhook-id) for the document's current final
// state, delivered by the same job as the original ones. A tenant may replay a limited number of times per
// window (429 with Retry-After), and a document has at most one replay waiting: asking again while it waits
// answers that replay instead of queueing another (issue 11, item 2). A received document's clave replays the
// RECEIVER_MESSAGE event of the latest answer to it: that clave is the one the event carries.
import { WebhookReplayRequest } from '@cr/contracts';
import { enqueue, getJob } from '@cr/jobs';
import { AppError, parseBody } from '@cr/service-kit';
import { ONE_STATEMENT, withTenant } from '../db/with-tenant';
import { findDocumentOrAnswerByClave } from '../documents/document-repository';
import { takeTenantSlot } from '../tenancy/tenant-rate-limit';
import type { WebhookDeps } from './webhook-deps';
import { WEBHOOK_QUEUE, type WebhookJobPayload, isFinalState, newEventId } from './webhook-event';

export async function replayWebhook(
  deps: WebhookDeps,
  input: { tenantId: string; body: unknown },
): Promise<{ eventId: string; clave: string; estado: string }> {
  const { clave } = parseBody(WebhookReplayRequest, input.body);
  const { tenantId } = input;
  await takeTenantSlot(deps.db, deps.replayLimiter, tenantId, 'webhook replays');
  const doc = await withTenant(
    deps.db,
    tenantId,
    (tx) => findDocumentOrAnswerByClave(tx, tenantId, clave, ['id', 'estado'] as const),
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
  deps.logger.info('webhook replay requested', { tenantId, clave, eventId: answered, queued: job.created });
  return { eventId: answered, clave, estado: doc.estado };
}

async function waitingEventId(deps: WebhookDeps, jobId: string): Promise<string> {
  const waiting = await getJob<WebhookJobPayload>(deps.db, { id: jobId });
  const eventId = waiting?.payload.eventId;
  if (!eventId) throw new Error('webhook replay: the waiting replay has no event id');
  return eventId;
}
