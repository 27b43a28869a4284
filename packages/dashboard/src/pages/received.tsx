// Documents suppliers issued to the tenant's issuers: unanswered first by deadline, 50 a page with "load
// more", each with its findings and the accept / reject answer (a MensajeReceptor the tenant-api signs and
// sends to Hacienda).
import type {
  RecepcionDocumentData,
  RecepcionDocumentResponse,
  RecepcionFinding,
  RecepcionListResponse,
} from '@cr/contracts';
import { useState } from 'preact/hooks';
import { call, query } from '../api';
import { LoadMore, useCursorList } from '../cursor-list';
import { useLang, useWords } from '../i18n';
import { formatMoney } from '../money';
import { ErrorLine, StateBadge } from '../ui';

/** A forged signature or an invalid XML is read before what was checked and found right. */
const SEVERITY_RANK: Record<RecepcionFinding['severity'], number> = { error: 0, warning: 1, info: 2 };

/** The VAT conditions whose creditable amount the answer must state (MontoTotalImpuestoAcreditar). */
const WITH_CREDIT = new Set(['02', '05']);

function Answer({ clave, taxed, onDone }: { clave: string; taxed: boolean; onDone: () => void }) {
  const t = useWords();
  const [error, setError] = useState<unknown>(undefined);
  const [condicion, setCondicion] = useState('');
  const send = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const mensaje = Number((e as SubmitEvent).submitter?.getAttribute('value') ?? '1');
    const motivo = String(data.get('detalleMensaje') ?? '').trim();
    const acreditar = String(data.get('montoTotalImpuestoAcreditar') ?? '').trim();
    // The tenant-api would refuse these answers with a 400 (planMensajeReceptor), so the form asks before
    // sending: DetalleMensaje for anything but an acceptance (1); for an acceptance of a document with tax
    // the condición del IVA, and with condición 02 or 05 the creditable amount. None of the fields can be
    // `required`, since a rejection submits the same form without them.
    const missing =
      mensaje !== 1 && !motivo
        ? (['detalleMensaje', t.reasonRequired] as const)
        : mensaje === 1 && taxed && !condicion
          ? (['condicionImpuesto', t.taxConditionRequired] as const)
          : mensaje === 1 && WITH_CREDIT.has(condicion) && !acreditar
            ? (['montoTotalImpuestoAcreditar', t.taxCreditRequired] as const)
            : undefined;
    if (missing) {
      setError(new Error(missing[1]));
      (form.elements.namedItem(missing[0]) as HTMLElement).focus();
      return;
    }
    const accepting = mensaje !== 3;
    try {
      await call('POST', `/api/recepcion/documentos/${clave}/respuesta`, {
        mensaje,
        numeroReferencia: Number(data.get('numeroReferencia')),
        ...(motivo ? { detalleMensaje: motivo } : {}),
        ...(condicion && accepting ? { condicionImpuesto: condicion } : {}),
        ...(acreditar && accepting && WITH_CREDIT.has(condicion)
          ? { montoTotalImpuestoAcreditar: acreditar }
          : {}),
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
        <select
          name="condicionImpuesto"
          value={condicion}
          onChange={(e) => setCondicion((e.currentTarget as HTMLSelectElement).value)}
        >
          <option value="">—</option>
          {Object.entries(t.taxConditions).map(([code, label]) => (
            <option key={code} value={code}>
              {code} {label}
            </option>
          ))}
        </select>
      </label>
      {WITH_CREDIT.has(condicion) && (
        <label>
          {t.taxCredit}
          <input name="montoTotalImpuestoAcreditar" inputMode="decimal" maxLength={19} />
        </label>
      )}
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

/**
 * The answer the tenant sent (a MensajeReceptor) and Hacienda's state of it. When Hacienda refused it the
 * document is pending again and the form is back: the card says why, so the refused answer is not mistaken
 * for one never sent.
 */
function AnswerSent({ d }: { d: RecepcionDocumentData }) {
  const t = useWords();
  const r = d.respuesta;
  if (!r) return null;
  const refused = d.estado === 'pendiente' && (r.estado === 'rechazado' || r.estado === 'error');
  return (
    <p class="answer-sent">
      {t.answerSent}: {t.answerKinds[r.mensaje] ?? r.mensaje} <span class="mono">{r.consecutivo}</span>{' '}
      <StateBadge estado={r.estado} />
      {refused ? ` ${t.answerRefused}` : r.estado === 'aceptado' ? '' : ` ${t.answered}`}
    </p>
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
      {d.respuesta && <AnswerSent d={d} />}
      {d.findings.length > 0 && (
        <ul class="received-findings">
          {[...d.findings]
            .sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity])
            .map((f) => (
              <li key={f.code + f.message} class={`finding-${f.severity}`}>
                <strong>{t.severities[f.severity]}:</strong> {f.message}
              </li>
            ))}
        </ul>
      )}
      {d.estado === 'pendiente' && (
        <Answer clave={d.clave} taxed={/[1-9]/.test(d.impuestos ?? '')} onDone={onAnswered} />
      )}
    </article>
  );
}

export function ReceivedPage() {
  const t = useWords();
  const list = useCursorList(
    (cursor) =>
      call<RecepcionListResponse>('GET', `/api/recepcion/documentos${query({ limite: '50', cursor })}`),
    'recibidos',
    (d) => d.clave,
  );
  // An answered document is read again on its own and shown in place: reloading the listing would drop
  // the pages loaded after the first, where it may well be.
  const [error, setError] = useState<unknown>(undefined);
  const refresh = async (clave: string) => {
    setError(undefined);
    try {
      const { data } = await call<RecepcionDocumentResponse>('GET', `/api/recepcion/documentos/${clave}`);
      list.put(data);
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
        list.rows.map((d) => <ReceivedCard key={d.clave} d={d} onAnswered={() => refresh(d.clave)} />)
      )}
      <LoadMore {...list.more} />
    </section>
  );
}
