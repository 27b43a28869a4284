// The `webhook.deliver` queue: one job per event. The first run freezes the event (id and body) in
// webhook_events (an accepted document's PDF included), so every retry, and every re-claim after a crash,
// sends identical bytes under the same webhook-id; each attempt signs with the secrets active at that moment
// and is recorded. Retries follow the Standard Webhooks schedule (immediately, 5 s, 5 min, 30 min, 2 h, 5 h,
// 10 h, 10 h, with jitter); 410 disables the endpoint. No transaction is held while the receiver is called.
// An event with no active endpoint to go to is recorded without a body: its PDF is never rendered.
import { type Job, type JobContext, type JobResult, type QueueOptions, jobResult } from '@cr/jobs';
import { deliverWebhook, webhookRetryDelayMs } from '@cr/webhooks';
import { metrics } from '@cr/service-kit';
import { finishWithWrites } from '../db/finish-job';
import { ONE_STATEMENT, withTenant } from '../db/with-tenant';
import { renderPrintablePdf } from '../delivery/render-document-pdf';
import { type WebhookDeps, targetPolicy } from './webhook-deps';
import {
  WEBHOOK_QUEUE,
  type WebhookJobPayload,
  buildEventPayload,
  isFinalState,
  newEventId,
} from './webhook-event';
import {
  type WebhookEndpointRow,
  type WebhookEventRow,
  deliveryWrites,
  eventWrites,
} from './webhook-repository';
import { type WebhookJobInputs, findWebhookJobInputs } from './webhook-job-inputs';
import { signingSecrets } from './webhook-secrets';

type Prepared =
  | { kind: 'stop'; result: JobResult }
  | {
      kind: 'deliver';
      event: WebhookEventRow;
      attempt: number;
      endpoint: WebhookEndpointRow;
      secrets: string[];
    };

/**
 * What a first run freezes: the event its payload carries, or one built from the document. The body is built
 * only when asked for (`body()`): an accepted document's carries its PDF, about a second of CPU and tens of
 * MB to render for a document of a thousand lines, so it waits until there is somewhere to send it.
 */
function eventSource(
  job: Job<WebhookJobPayload>,
  inputs: WebhookJobInputs,
):
  | (Pick<WebhookEventRow, 'document_id' | 'clave' | 'estado'> & { body: () => Promise<string> })
  | { result: JobResult } {
  const { documentId } = job.payload;
  if (job.payload.event) {
    const { clave, type, body } = job.payload.event;
    return { document_id: documentId, clave, estado: type, body: async () => JSON.stringify(body) };
  }
  const doc = inputs.doc;
  if (!doc) return { result: jobResult.fail(`document ${documentId} not found`) };
  const { estado } = doc;
  if (!isFinalState(estado)) {
    return { result: jobResult.fail(`document ${doc.clave} is ${estado}, not final`) };
  }
  return {
    document_id: doc.id,
    clave: doc.clave,
    estado,
    body: async () => {
      // An accepted document's event carries its PDF, rendered once here and frozen with the event.
      const pdf =
        estado === 'aceptado' && !doc.clave_recibida
          ? await renderPrintablePdf(doc, inputs.branding)
          : undefined;
      return JSON.stringify(buildEventPayload({ ...doc, estado, ...(pdf ? { pdf } : {}) }));
    },
  };
}

/**
 * Loads (or freezes) the event and decides whether there is anywhere to send it, before its body is built.
 * The read and the freezing are a statement each, their own transactions: the PDF is rendered between them
 * with no connection held, and a read takes no lock for a transaction around both to keep (two runs of one
 * job, after a lost lease, still meet at the event's unique job_id: the second one's insert fails and it is
 * retried).
 */
async function prepare(deps: WebhookDeps, job: Job<WebhookJobPayload>, now: Date): Promise<Prepared> {
  const { tenantId, documentId } = job.payload;
  const inputs = await withTenant(
    deps.db,
    tenantId,
    (tx) =>
      findWebhookJobInputs(tx, tenantId, { jobId: job.id, documentId, withDocument: !job.payload.event }),
    ONE_STATEMENT,
  );
  // A job claimed again after its event finished (crash between the two writes): nothing left to do.
  if (inputs.finished) return { kind: 'stop', result: jobResult.done() };
  const pending = inputs.event;
  let event: Omit<WebhookEventRow, 'body'>;
  let body: () => Promise<string>;
  if (pending) {
    event = pending;
    body = async () => pending.body;
  } else {
    const source = eventSource(job, inputs);
    if ('result' in source) return { kind: 'stop', result: source.result };
    const { body: build, ...fields } = source;
    event = {
      ...fields,
      id: job.payload.eventId ?? newEventId(),
      tenant_id: tenantId,
      job_id: job.id,
      state: 'pending',
    };
    body = build;
  }
  // An event frozen by this run has no deliveries yet.
  const frozenNow = !pending;
  const attempt = inputs.attempts + 1;
  const endpoint = inputs.endpoint;
  if (!endpoint?.active) {
    // Recorded so consultar shows why nothing arrived; a replay after configuring sends it. Nothing is sent,
    // so a new event is recorded without a body (and no PDF rendered for it): a finished event's body is
    // never read again (a replay builds a new event from the document), as after the housekeeping (ADR 0051).
    const end = endpoint ? 'disabled' : 'no_endpoint';
    const attemptRow = {
      documentId: event.document_id,
      eventId: event.id,
      attempt,
      url: endpoint?.url ?? '',
      status: null,
      latencyMs: null,
      error: endpoint ? 'webhook endpoint is disabled' : 'no webhook endpoint configured',
      at: now,
    };
    const writes = frozenNow
      ? deliveryWrites(tenantId, attemptRow, {}, eventWrites({ ...event, body: null }, now, end))
      : deliveryWrites(tenantId, attemptRow, { end });
    await withTenant(deps.db, tenantId, (tx) => writes.run(tx), ONE_STATEMENT);
    return { kind: 'stop', result: jobResult.done() };
  }
  const sent: WebhookEventRow = { ...event, body: await body() };
  if (frozenNow) {
    const frozen = eventWrites(sent, now);
    await withTenant(deps.db, tenantId, (tx) => frozen.run(tx), ONE_STATEMENT);
  }
  return {
    kind: 'deliver',
    event: sent,
    attempt,
    endpoint,
    secrets: signingSecrets(deps.secrets, endpoint, now),
  };
}

export async function runWebhookDelivery(
  deps: WebhookDeps,
  job: Job<WebhookJobPayload>,
  context: Pick<JobContext, 'now'> & Partial<Pick<JobContext, 'finishIn'>>,
): Promise<JobResult> {
  const prepared = await prepare(deps, job, context.now());
  if (prepared.kind === 'stop') return prepared.result;
  const { event, attempt, endpoint, secrets } = prepared;
  const { tenantId } = job.payload;
  const result = await deliverWebhook(
    {
      url: endpoint.url,
      id: event.id,
      timestamp: Math.floor(context.now().getTime() / 1000),
      body: event.body,
      secrets,
      timeoutMs: deps.webhooks.timeoutMs,
    },
    targetPolicy(deps.webhooks),
  );
  const at = context.now();
  const retryIn = result.ok || result.gone ? undefined : webhookRetryDelayMs(attempt + 1, deps.random);
  const outcome =
    result.ok || result.gone
      ? jobResult.done()
      : retryIn === undefined
        ? jobResult.fail(`gave up after ${attempt} attempts: ${result.error}`)
        : jobResult.retryAt(new Date(at.getTime() + retryIn), result.error);
  const writes = deliveryWrites(
    tenantId,
    {
      documentId: event.document_id,
      eventId: event.id,
      attempt,
      url: endpoint.url,
      status: result.status ?? null,
      latencyMs: Math.round(result.latencyMs),
      error: result.error ?? null,
      at,
    },
    result.ok
      ? { end: 'delivered' }
      : result.gone
        ? {
            end: 'gone',
            disable: { seenUpdatedAt: endpoint.updated_at, reason: 'receiver answered 410 Gone' },
          }
        : retryIn === undefined
          ? { end: 'failed' }
          : {},
  );
  // The attempt, what it settles and the job's outcome: one statement, the whole transaction.
  await finishWithWrites(deps.db, tenantId, context, outcome, writes);
  const log = { tenantId, eventId: event.id, clave: event.clave, attempt, host: new URL(endpoint.url).host };
  metrics.webhooks.deliveries.inc({
    outcome: result.ok ? 'delivered' : result.gone ? 'gone' : retryIn === undefined ? 'failed' : 'retry',
  });
  if (result.ok) {
    deps.logger.info('webhook delivered', { ...log, status: result.status, latencyMs: result.latencyMs });
  } else if (result.gone) {
    deps.logger.warn('webhook receiver answered 410 Gone; endpoint disabled', log);
  } else if (retryIn === undefined) {
    deps.logger.warn('webhook delivery abandoned after the last retry', { ...log, error: result.error });
  } else {
    deps.logger.info('webhook delivery failed; will retry', {
      ...log,
      error: result.error,
      retryInMs: retryIn,
    });
  }
  return outcome;
}

/** The queues this module runs, for the app's one Worker: `queues: { ...webhookQueues(deps), … }`. */
export function webhookQueues(deps: WebhookDeps): Record<string, QueueOptions<WebhookJobPayload>> {
  return {
    [WEBHOOK_QUEUE]: {
      handler: (job, context) => runWebhookDelivery(deps, job, context),
    },
  };
}
