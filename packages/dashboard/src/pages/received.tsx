// Documents suppliers issued to the tenant's issuers: unanswered first by deadline, 50 a page with "load
// more", each with its findings and the accept / reject answer (a MensajeReceptor the tenant-api signs and
// sends to Hacienda).
import type { RecepcionDocumentData, RecepcionDocumentResponse, RecepcionListResponse } from '@cr/contracts';
import { useState } from 'preact/hooks';
import { call, query } from '../api';
import { LoadMore, useCursorList } from '../cursor-list';
import { useLang, useWords } from '../i18n';
import { formatMoney } from '../money';
import { ErrorLine, StateBadge } from '../ui';

function Answer({ clave, onDone }: { clave: string; onDone: () => void }) {
  const t = useWords();
  const [error, setError] = useState<unknown>(undefined);
  const send = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const mensaje = Number((e as SubmitEvent).submitter?.getAttribute('value') ?? '1');
    const motivo = String(data.get('detalleMensaje') ?? '').trim();
    const condicion = String(data.get('condicionImpuesto') ?? '');
    // Hacienda needs DetalleMensaje for anything but an acceptance (1): the tenant-api would refuse the
    // answer with a 400, so the form asks for it before sending. The field cannot be `required`, since an
    // acceptance submits the same form without it.
    if (mensaje !== 1 && !motivo) {
      setError(new Error(t.reasonRequired));
      (form.elements.namedItem('detalleMensaje') as HTMLInputElement).focus();
      return;
    }
    try {
      await call('POST', `/api/recepcion/documentos/${clave}/respuesta`, {
        mensaje,
        numeroReferencia: Number(data.get('numeroReferencia')),
        ...(motivo ? { detalleMensaje: motivo } : {}),
        ...(condicion && mensaje !== 3 ? { condicionImpuesto: condicion } : {}),
      });
      onDone();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form class="answer" onSubmit={send}>
      <label>
        {t.reference}
        <input name="numeroReferencia" type="number" min={1} required />
      </label>
      <label>
        {t.taxCondition}
        <select name="condicionImpuesto">
          <option value="">—</option>
          {Object.entries(t.taxConditions).map(([code, label]) => (
            <option key={code} value={code}>
              {code} {label}
            </option>
          ))}
        </select>
      </label>
      <label>
        {t.reason}
        <input name="detalleMensaje" maxLength={160} />
      </label>
      <button type="submit" value="1">
        {t.accept}
      </button>
      <button type="submit" value="3" class="danger">
        {t.reject}
      </button>
      <ErrorLine error={error} />
    </form>
  );
}

function ReceivedCard({ d, onAnswered }: { d: RecepcionDocumentData; onAnswered: () => void }) {
  const t = useWords();
  const lang = useLang();
  return (
    <article class="card" aria-label={d.clave}>
      <h2>
        {d.emisor.nombre} <small class="mono">{d.emisor.numero}</small> <StateBadge estado={d.estado} />
      </h2>
      <dl class="facts">
        <dt>{t.clave}</dt>
        <dd class="mono">{d.clave}</dd>
        <dt>{t.total}</dt>
        <dd>{formatMoney(d.total, d.moneda, lang)}</dd>
        <dt>{t.deadline}</dt>
        <dd>
          <time dateTime={d.vence}>{d.vence}</time>
        </dd>
      </dl>
      {d.findings.length > 0 && (
        <ul>
          {d.findings.map((f) => (
            <li key={f.code + f.message}>{f.message}</li>
          ))}
        </ul>
      )}
      {d.estado === 'pendiente' && <Answer clave={d.clave} onDone={onAnswered} />}
    </article>
  );
}

export function ReceivedPage() {
  const t = useWords();
  const list = useCursorList(
    (cursor) =>
      call<RecepcionListResponse>('GET', `/api/recepcion/documentos${query({ limite: '50', cursor })}`),
    'recibidos',
  );
  // An answered document is read again on its own and shown in place: reloading the listing would drop
  // the pages loaded after the first, where it may well be.
  const [answered, setAnswered] = useState<Record<string, RecepcionDocumentData>>({});
  const [error, setError] = useState<unknown>(undefined);
  const refresh = async (clave: string) => {
    setError(undefined);
    try {
      const { data } = await call<RecepcionDocumentResponse>('GET', `/api/recepcion/documentos/${clave}`);
      setAnswered((a) => ({ ...a, [clave]: data }));
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section>
      <h1>{t.received}</h1>
      <ErrorLine error={list.error ?? error} />
      {!list.rows ? (
        !list.error && <p role="status">{t.loading}</p>
      ) : list.rows.length === 0 ? (
        <p>{t.none}</p>
      ) : (
        list.rows.map((d) => (
          <ReceivedCard key={d.clave} d={answered[d.clave] ?? d} onAnswered={() => refresh(d.clave)} />
        ))
      )}
      <LoadMore {...list.more} />
    </section>
  );
}
