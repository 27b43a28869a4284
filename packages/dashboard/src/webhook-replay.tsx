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

/**
 * What the replay's answer says: the queued event's webhook-id (the one already waiting, when a replay of the
 * document was) and where it goes, as the endpoint stood when it was queued.
 */
export type Replayed = WebhookReplayResponse['data'];

export async function replayWebhook(clave: string): Promise<Replayed> {
  return (await call<WebhookReplayResponse>('POST', '/api/reenviar/webhook', { clave })).data;
}

/** What a replay did; `linked` adds the way to the webhook page, for the pages that are not it. */
export function ReplayNote({ replayed, linked }: { replayed: Replayed; linked: boolean }) {
  const t = useWords();
  const lang = useLang();
  const { eventId } = replayed;
  if (replayed.webhook === 'activo') {
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
  if (replayed.webhook === 'sin-url') {
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
  const since = replayed.desactivadoEn && crDate(replayed.desactivadoEn, lang);
  return (
    <p role="status" class="warning">
      {t.replayDisabled(eventId, since, replayed.motivoDesactivacion)}{' '}
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
