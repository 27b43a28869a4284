// The tenant's webhook: its URL and state, set it (which rotates the signing secret, shown once), the
// latest deliveries, and a replay of any document's last event.
import type { WebhookConfigResponse, WebhookConsultResponse } from '@cr/contracts';
import { useState } from 'preact/hooks';
import { ApiError, call } from '../api';
import { useLang, useWords } from '../i18n';
import { ErrorLine, crDate, useLoad } from '../ui';
import { type Replayed, ReplayNote, replayWebhook } from '../webhook-replay';

export function WebhookPage() {
  const t = useWords();
  const lang = useLang();
  const [secret, setSecret] = useState<string | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [replayed, setReplayed] = useState<Replayed | undefined>(undefined);
  // What the tenant typed, until it is saved: the field is not wiped back to the stored URL when the save
  // fails (or the page re-renders for any other reason).
  const [url, setUrl] = useState<string | undefined>(undefined);
  const hook = useLoad(async () => {
    try {
      return (await call<WebhookConsultResponse>('POST', '/api/consultar/webhook', {})).data;
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return null;
      throw err;
    }
  }, 'webhook');
  const save = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    const url = String(new FormData(e.currentTarget as HTMLFormElement).get('url'));
    try {
      setSecret((await call<WebhookConfigResponse>('POST', '/api/configurar/webhook', { url })).data.secret);
      setUrl(undefined);
      hook.reload();
    } catch (err) {
      setError(err);
    }
  };
  const replay = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    const clave = String(new FormData(e.currentTarget as HTMLFormElement).get('clave'));
    try {
      setReplayed(await replayWebhook(clave));
      hook.reload();
    } catch (err) {
      setError(err);
    }
  };
  const h = hook.data;
  return (
    <section>
      <h1>{t.webhookTitle}</h1>
      <ErrorLine error={hook.error ?? error} />
      <form class="card" onSubmit={save}>
        <label>
          {t.url}
          <input
            name="url"
            type="url"
            required
            value={url ?? h?.url ?? ''}
            onInput={(e) => setUrl((e.currentTarget as HTMLInputElement).value)}
          />
        </label>
        {h && <p>{h.activo ? t.active : `${t.inactive}: ${h.motivoDesactivacion ?? ''}`}</p>}
        <button type="submit">{t.save}</button>
        {secret && (
          <p class="ok" role="status">
            {t.secretShown} <code>{secret}</code>
          </p>
        )}
      </form>
      <form class="card" onSubmit={replay}>
        <label>
          {t.clave}
          <input name="clave" required pattern="[0-9]{50}" inputMode="numeric" />
        </label>
        <button type="submit">{t.replay}</button>
        {replayed && <ReplayNote replayed={replayed} linked={false} />}
      </form>
      {h && h.entregas.length > 0 && (
        <>
          <h2>{t.lastDeliveries}</h2>
          <table class="list">
            <thead>
              <tr>
                <th scope="col">{t.date}</th>
                <th scope="col">{t.clave}</th>
                <th scope="col">{t.status}</th>
                <th scope="col">{t.error}</th>
              </tr>
            </thead>
            <tbody>
              {h.entregas.map((w) => (
                <tr key={`${w.eventId}-${w.intento}`}>
                  <td data-label={t.date}>{crDate(w.fecha, lang)}</td>
                  <td data-label={t.clave} class="mono">
                    {w.clave}
                  </td>
                  <td data-label={t.status}>{w.status ?? '—'}</td>
                  <td data-label={t.error}>{w.error ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
