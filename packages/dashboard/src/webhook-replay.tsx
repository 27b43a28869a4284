// A webhook replay (POST /api/reenviar/webhook), asked for from a document's page or the webhook page. The
// tenant-api only queues a new event and names it: the note says so, and when POST /api/consultar/webhook
// says the event will go nowhere it says that too. Without a URL (a 404) the delivery only records "no
// webhook endpoint configured"; with the endpoint deactivated (the receiver answered 410 Gone) it records
// "webhook endpoint is disabled", until the URL is saved again, which reactivates it.
import type { WebhookConsultResponse, WebhookReplayResponse } from '@cr/contracts';
import { ApiError, call } from './api';
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
  /** Only when the tenant-api said so: a check that failed claims nothing. */
  undelivered: Undelivered | undefined;
}

export async function replayWebhook(clave: string): Promise<Replayed> {
  const { data } = await call<WebhookReplayResponse>('POST', '/api/reenviar/webhook', { clave });
  return { eventId: data.eventId, undelivered: await whyUndelivered() };
}

async function whyUndelivered(): Promise<Undelivered | undefined> {
  try {
    const { data } = await call<WebhookConsultResponse>('POST', '/api/consultar/webhook', {});
    if (data.activo) return undefined;
    return { why: 'disabled', since: data.desactivadoEn, reason: data.motivoDesactivacion };
  } catch (err) {
    return err instanceof ApiError && err.status === 404 ? { why: 'no-url' } : undefined;
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
