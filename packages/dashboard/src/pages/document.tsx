// One document: its state explained in plain words, the timeline, Hacienda's findings when rejected, the
// downloads (XML, Hacienda's answer, PDF), the latest webhook deliveries with a replay and the latest e-mails
// to the receptor with a resend (with how many there are in all when there are more).
import type { DocumentQueryResponse } from '@cr/contracts';
import { useState } from 'preact/hooks';
import { call } from '../api';
import { useLang, useWords } from '../i18n';
import { onLink } from '../router';
import { ErrorLine, StateBadge, crDate, useLoad } from '../ui';
import { type Replayed, ReplayNote, replayWebhook } from '../webhook-replay';

/** Under a list the service cut to its latest entries: how many of how many (`total` is absent from older servers). */
function LatestOf({ shown, total }: { shown: number; total: number | undefined }) {
  const t = useWords();
  if (total === undefined || total <= shown) return null;
  return (
    <p>
      <small>
        {t.latestShown} {shown} {t.ofTotal} {total}
      </small>
    </p>
  );
}

export function DocumentPage({ clave }: { clave: string }) {
  const t = useWords();
  const lang = useLang();
  // The last action's note: a replay's, or the e-mail resend's.
  const [replayed, setReplayed] = useState<Replayed | undefined>(undefined);
  const [note, setNote] = useState<string | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const doc = useLoad(
    async () => (await call<DocumentQueryResponse>('POST', '/api/consultar/documento', { clave })).data,
    clave,
  );
  const replay = async () => {
    setError(undefined);
    try {
      const queued = await replayWebhook(clave);
      setNote(undefined);
      setReplayed(queued);
      doc.reload();
    } catch (err) {
      setError(err);
    }
  };
  const resendMail = async () => {
    setError(undefined);
    try {
      await call('POST', '/api/reenviar/correo', { clave });
      setReplayed(undefined);
      setNote(t.mailQueued);
      doc.reload();
    } catch (err) {
      setError(err);
    }
  };
  const d = doc.data;
  return (
    <section>
      <p>
        <a href="/app/documentos" onClick={onLink}>
          ← {t.back}
        </a>
      </p>
      <ErrorLine error={doc.error} />
      {!d ? (
        !doc.error && <p role="status">{t.loading}</p>
      ) : (
        <>
          <h1>
            {t.kinds[d.tipoDoc] ?? t.documentTitle} {d.consecutivo} <StateBadge estado={d.estado} />
          </h1>
          <p class="explain">{t.explain[d.estado]}</p>
          <dl class="facts">
            <dt>{t.clave}</dt>
            <dd class="mono">{d.clave}</dd>
            <dt>{t.date}</dt>
            <dd>
              <time dateTime={d.fechaEmision}>{crDate(d.fechaEmision, lang)}</time>
            </dd>
          </dl>
          {(d.mensajeHacienda.detalle.length > 0 || d.mensajeHacienda.errorCause) && (
            <section class="card findings" aria-labelledby="findings">
              <h2 id="findings">{d.estado === 'rechazado' ? t.findings : t.haciendaSays}</h2>
              <ul>
                {d.mensajeHacienda.errorCause && <li>{d.mensajeHacienda.errorCause}</li>}
                {d.mensajeHacienda.detalle.map((f) => (
                  <li key={`${f.codigo}-${f.fila}-${f.columna}`}>
                    {f.mensaje} <small>({f.codigo})</small>
                  </li>
                ))}
              </ul>
            </section>
          )}
          <h2>{t.timeline}</h2>
          <ol class="timeline">
            {d.historial.map((h) => (
              <li key={h.estado}>
                <StateBadge estado={h.estado} /> <time dateTime={h.fecha}>{crDate(h.fecha, lang)}</time>
                {h.detalle && <span> — {h.detalle}</span>}
              </li>
            ))}
          </ol>
          <h2>{t.downloads}</h2>
          <ul class="downloads">
            <li>
              <a href={`/api/descargar/${d.clave}/xml`} download>
                {t.xml}
              </a>
            </li>
            {(d.estado === 'aceptado' || d.estado === 'rechazado') && (
              <li>
                <a href={`/api/descargar/${d.clave}/respuesta`} download>
                  {t.answer}
                </a>
              </li>
            )}
            {d.estado !== 'rechazado' && d.estado !== 'error' && (
              <li>
                <a href={`/api/descargar/${d.clave}/pdf`} download>
                  {t.pdf}
                </a>
              </li>
            )}
          </ul>
          <h2>{t.deliveries}</h2>
          {d.webhook.entregas.length === 0 ? (
            <p>{t.noDeliveries}</p>
          ) : (
            <table class="list">
              <thead>
                <tr>
                  <th scope="col">{t.date}</th>
                  <th scope="col">{t.attempt}</th>
                  <th scope="col">{t.status}</th>
                  <th scope="col">{t.error}</th>
                </tr>
              </thead>
              <tbody>
                {d.webhook.entregas.map((w) => (
                  <tr key={`${w.eventId}-${w.intento}`}>
                    <td data-label={t.date}>{crDate(w.fecha, lang)}</td>
                    <td data-label={t.attempt}>{w.intento}</td>
                    <td data-label={t.status}>{w.status ?? '—'}</td>
                    <td data-label={t.error}>{w.error ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <LatestOf shown={d.webhook.entregas.length} total={d.webhook.total} />
          <button type="button" onClick={replay}>
            {t.replay}
          </button>
          <h2>{t.mails}</h2>
          {d.correo.envios.length === 0 ? (
            <p>{t.noMails}</p>
          ) : (
            <table class="list mails">
              <thead>
                <tr>
                  <th scope="col">{t.date}</th>
                  <th scope="col">{t.mailReason}</th>
                  <th scope="col">{t.recipients}</th>
                  <th scope="col">{t.state}</th>
                  <th scope="col">{t.error}</th>
                </tr>
              </thead>
              <tbody>
                {d.correo.envios.map((m) => (
                  <tr key={m.envioId}>
                    <td data-label={t.date}>{crDate(m.fecha, lang)}</td>
                    <td data-label={t.mailReason}>{t.mailReasons[m.motivo] ?? m.motivo}</td>
                    <td data-label={t.recipients}>{m.destinatarios.join(', ')}</td>
                    <td data-label={t.state}>{t.states[m.estado] ?? m.estado}</td>
                    <td data-label={t.error}>{m.intentos.findLast((i) => !i.ok)?.respuesta ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <LatestOf shown={d.correo.envios.length} total={d.correo.total} />
          {d.estado === 'aceptado' && (
            <button type="button" onClick={resendMail}>
              {t.resendMail}
            </button>
          )}
          {replayed && <ReplayNote replayed={replayed} linked />}
          {note && (
            <p role="status" class="ok">
              {note}
            </p>
          )}
          <ErrorLine error={error} />
        </>
      )}
    </section>
  );
}
