// A webhook replay (POST /api/reenviar/webhook), asked for from a document's page or the webhook page. The
// tenant-api queues a new event and names it, and says where it will go: the note says both. Without a URL
// the delivery only records "no webhook endpoint configured"; with the endpoint deactivated (the receiver
// answered 410 Gone) it records "webhook endpoint is disabled", until the URL is saved again, which
// reactivates it.
import type { WebhookReplayResponse } from '@cr/contracts';
import { call } from './api';
import { useLang, useWords } from './i18n';
import { onLink } from './router';
import { crDate } from './ui';

/** Why a replayed event will not be delivered: no URL, or the endpoint deactivated (since when, and why). */
export type Undelivered =
  | { why: 'no-url' }
  | { why: 'disabled'; since: string | undefined; reason: string | undefined };

export interface Replayed {
  /** The queued event's webhook-id (the one already waiting, when a replay of the document was). */
  eventId: string;
  /** Undefined when the event goes to an active endpoint. */
  undelivered: Undelivered | undefined;
}

export async function replayWebhook(clave: string): Promise<Replayed> {
  const { data } = await call<WebhookReplayResponse>('POST', '/api/reenviar/webhook', { clave });
  return { eventId: data.eventId, undelivered: undeliveredOf(data) };
}

/** The replay's answer says where the event goes, as the endpoint stood when it was queued. */
function undeliveredOf(data: WebhookReplayResponse['data']): Undelivered | undefined {
  switch (data.webhook) {
    case 'sin-url':
      return { why: 'no-url' };
    case 'desactivado':
      return { why: 'disabled', since: data.desactivadoEn, reason: data.motivoDesactivacion };
    case 'activo':
      return undefined;
  }
}

/** What a replay did; `linked` adds the way to the webhook page, for the pages that are not it. */
export function ReplayNote({ replayed, linked }: { replayed: Replayed; linked: boolean }) {
  const t = useWords();
  const lang = useLang();
  const { eventId, undelivered } = replayed;
  if (!undelivered) {
    return (
      <p role="status" class="ok">
        {t.replayQueued(eventId)}
      </p>
    );
  }
  const webhookLink = (
    <a href="/app/webhook" onClick={onLink}>
      {t.navWebhooks}
    </a>
  );
  if (undelivered.why === 'no-url') {
    return (
      <p role="status" class="warning">
        {t.replayNoUrl(eventId)}
        {linked && (
          <>
            {' '}
            {t.replayNoUrlFix} {webhookLink}.
          </>
        )}
      </p>
    );
  }
  const since = undelivered.since && crDate(undelivered.since, lang);
  return (
    <p role="status" class="warning">
      {t.replayDisabled(eventId, since, undelivered.reason)}{' '}
      {linked ? (
        <>
          {t.replayDisabledFix} {webhookLink} {t.replayDisabledFixEnd}
        </>
      ) : (
        t.replayDisabledFixHere
      )}
    </p>
  );
}
