// Documents suppliers issued to the tenant's issuers: unanswered first by deadline, each with its findings
// and the accept / reject answer (a MensajeReceptor the tenant-api signs and sends to Hacienda).
import type { RecepcionListResponse } from '@cr/contracts';
import { useState } from 'preact/hooks';
import { call } from '../api';
import { useWords } from '../i18n';
import { ErrorLine, StateBadge, useLoad } from '../ui';

function Answer({ clave, onDone }: { clave: string; onDone: () => void }) {
  const t = useWords();
  const [error, setError] = useState<unknown>(undefined);
  const send = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const mensaje = Number((e as SubmitEvent).submitter?.getAttribute('value') ?? '1');
    const motivo = String(data.get('detalleMensaje') ?? '').trim();
    const condicion = String(data.get('condicionImpuesto') ?? '');
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

export function ReceivedPage() {
  const t = useWords();
  const list = useLoad(
    async () => (await call<RecepcionListResponse>('GET', '/api/recepcion/documentos?limite=50')).data,
    'recibidos',
  );
  return (
    <section>
      <h1>{t.received}</h1>
      <ErrorLine error={list.error} />
      {!list.data ? (
        !list.error && <p role="status">{t.loading}</p>
      ) : list.data.length === 0 ? (
        <p>{t.none}</p>
      ) : (
        list.data.map((d) => (
          <article class="card" key={d.clave} aria-label={d.clave}>
            <h2>
              {d.emisor.nombre} <small class="mono">{d.emisor.numero}</small> <StateBadge estado={d.estado} />
            </h2>
            <dl class="facts">
              <dt>{t.clave}</dt>
              <dd class="mono">{d.clave}</dd>
              <dt>{t.total}</dt>
              <dd>
                {d.moneda} {d.total}
              </dd>
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
            {d.estado === 'pendiente' && <Answer clave={d.clave} onDone={list.reload} />}
          </article>
        ))
      )}
    </section>
  );
}
