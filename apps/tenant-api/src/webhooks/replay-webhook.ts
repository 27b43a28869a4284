// Use case of POST /api/reenviar/webhook: a new event (new webhook-id) for the document's current final
// state, delivered by the same job as the original ones.
import { WebhookReplayRequest } from '@cr/contracts';
import { enqueue } from '@cr/jobs';
import { AppError, parseBody } from '@cr/service-kit';
import { withTenant } from '../db/with-tenant';
import type { WebhookDeps } from './webhook-deps';
import { WEBHOOK_QUEUE, type WebhookJobPayload, isFinalState, newEventId } from './webhook-event';
import { findDocumentByClave } from './webhook-repository';

export async function replayWebhook(
  deps: WebhookDeps,
  input: { tenantId: string; body: unknown },
): Promise<{ eventId: string; clave: string; estado: string }> {
  const { clave } = parseBody(WebhookReplayRequest, input.body);
  const { tenantId } = input;
  const doc = await withTenant(deps.db, tenantId, (tx) => findDocumentByClave(tx, tenantId, clave));
  if (!doc) throw new AppError('not_found', `clave: document ${clave} not found`);
  if (!isFinalState(doc.estado)) {
    throw new AppError('conflict', `clave: document ${clave} has no final state yet (estado ${doc.estado})`);
  }
  const eventId = newEventId();
  const payload: WebhookJobPayload = { tenantId, documentId: doc.id, eventId };
  // The jobs table is the worker's, outside the tenant role; the event row itself is written by the job
  // (under withTenant) on its first attempt, so nothing here needs to be atomic with a tenant write.
  await enqueue(deps.db, { queue: WEBHOOK_QUEUE, key: `webhook:replay:${eventId}`, payload });
  deps.logger.info('webhook replay requested', { tenantId, clave, eventId });
  return { eventId, clave, estado: doc.estado };
}
