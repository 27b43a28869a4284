// The tenant's documents: filters (kind, state, dates, receptor, text), newest first, "load more" by cursor.
import type { DocumentListResponse, DocumentSummary } from '@cr/contracts';
import { useState } from 'preact/hooks';
import { call, query } from '../api';
import { LoadMore, useCursorList } from '../cursor-list';
import { useLang, useWords } from '../i18n';
import { formatMoney } from '../money';
import { onLink } from '../router';
import { ErrorLine, StateBadge } from '../ui';

type Filters = Record<'tipo' | 'estado' | 'desde' | 'hasta' | 'receptor' | 'q', string>;
const EMPTY: Filters = { tipo: '', estado: '', desde: '', hasta: '', receptor: '', q: '' };

/**
 * A row's key in the list and in the table. An answer is listed under the clave it answers, which a second
 * answer to the same document (after Hacienda refused the first) shares: the consecutivo tells them apart.
 */
function rowKey(d: DocumentSummary): string {
  return `${d.clave}-${d.consecutivo}`;
}

export function DocumentsPage() {
  const t = useWords();
  const lang = useLang();
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const list = useCursorList(
    (cursor) =>
      call<DocumentListResponse>('GET', `/api/documentos${query({ ...filters, limite: '25', cursor })}`),
    JSON.stringify(filters),
    rowKey,
  );
  const field = (name: keyof Filters) => ({
    name,
    value: draft[name],
    onInput: (e: Event) => setDraft({ ...draft, [name]: (e.currentTarget as HTMLInputElement).value }),
  });
  const rows = list.rows ?? [];
  return (
    <section>
      <h1>{t.navDocuments}</h1>
      <form
        class="filters card"
        aria-label={t.filters}
        onSubmit={(e) => {
          e.preventDefault();
          setFilters(draft);
        }}
      >
        <label>
          {t.kind}
          <select {...field('tipo')}>
            <option value="">{t.any}</option>
            {Object.entries(t.kinds).map(([k, v]) => (
              <option key={k} value={k}>
                {v}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t.state}
          <select {...field('estado')}>
            <option value="">{t.any}</option>
            {['pendiente', 'enviado', 'aceptado', 'rechazado', 'error'].map((s) => (
              <option key={s} value={s}>
                {t.states[s]}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t.from}
          <input type="date" {...field('desde')} />
        </label>
        <label>
          {t.to}
          <input type="date" {...field('hasta')} />
        </label>
        <label>
          {t.receptor}
          <input pattern="[A-Za-z0-9]{1,20}" {...field('receptor')} />
        </label>
        <label>
          {t.searchText}
          <input type="search" maxLength={50} {...field('q')} />
        </label>
        <div class="actions">
          <button type="submit">{t.apply}</button>
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setDraft(EMPTY);
              setFilters(EMPTY);
            }}
          >
            {t.clear}
          </button>
        </div>
      </form>
      <ErrorLine error={list.error} />
      {list.rows === undefined && !list.error ? (
        <p role="status">{t.loading}</p>
      ) : rows.length === 0 ? (
        <p>{t.none}</p>
      ) : (
        <table class="list">
          <thead>
            <tr>
              <th scope="col">{t.date}</th>
              <th scope="col">{t.kind}</th>
              <th scope="col">{t.consecutivo}</th>
              <th scope="col">{t.receptor}</th>
              <th scope="col">{t.total}</th>
              <th scope="col">{t.state}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((d) => (
              <tr key={rowKey(d)} data-clave={d.clave}>
                <td data-label={t.date}>{d.fechaEmision.slice(0, 16).replace('T', ' ')}</td>
                <td data-label={t.kind}>{t.kinds[d.tipoDoc] ?? d.tipoDoc}</td>
                <td data-label={t.consecutivo}>
                  <a href={`/app/documentos/${d.clave}`} onClick={onLink}>
                    {d.consecutivo}
                  </a>
                </td>
                <td data-label={t.receptor}>{d.receptor?.numero ?? '—'}</td>
                <td data-label={t.total} class="num">
                  {d.total && d.moneda ? formatMoney(d.total, d.moneda, lang) : '—'}
                </td>
                <td data-label={t.state}>
                  <StateBadge estado={d.estado} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <LoadMore {...list.more} />
    </section>
  );
}
