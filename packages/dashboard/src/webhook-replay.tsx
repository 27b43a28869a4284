// A webhook replay (POST /api/reenviar/webhook), asked for from a document's page or the webhook page. The
// tenant-api only queues a new event and names it: the note says so, and when the tenant has no webhook URL
// (POST /api/consultar/webhook answers 404) it says the event will go nowhere, since the delivery then only
// records "no webhook endpoint configured".
import type { WebhookConsultResponse, WebhookReplayResponse } from '@cr/contracts';
import { ApiError, call } from './api';
import { useWords } from './i18n';
import { onLink } from './router';

export interface Replayed {
  /** The queued event's webhook-id (the one already waiting, when a replay of the document was). */
  eventId: string;
  /** Only when the tenant-api said no webhook is configured: a check that failed claims nothing. */
  noUrl: boolean;
}

export async function replayWebhook(clave: string): Promise<Replayed> {
  const { data } = await call<WebhookReplayResponse>('POST', '/api/reenviar/webhook', { clave });
  return { eventId: data.eventId, noUrl: await lacksWebhookUrl() };
}

async function lacksWebhookUrl(): Promise<boolean> {
  try {
    await call<WebhookConsultResponse>('POST', '/api/consultar/webhook', {});
    return false;
  } catch (err) {
    return err instanceof ApiError && err.status === 404;
  }
}

/** What a replay did; `linked` adds the way to the webhook page, for the pages that are not it. */
export function ReplayNote({ replayed, linked }: { replayed: Replayed; linked: boolean }) {
  const t = useWords();
  if (!replayed.noUrl) {
    return (
      <p role="status" class="ok">
        {t.replayQueued(replayed.eventId)}
      </p>
    );
  }
  return (
    <p role="status" class="warning">
      {t.replayNoUrl(replayed.eventId)}
      {linked && (
        <>
          {' '}
          {t.replayNoUrlFix}{' '}
          <a href="/app/webhook" onClick={onLink}>
            {t.navWebhooks}
          </a>
          .
        </>
      )}
    </p>
  );
}
