// CABYS search: the catalogue code and usual VAT of a product or service.
import type { CabysResponse } from '@cr/contracts';
import { useState } from 'preact/hooks';
import { call } from '../api';
import { useWords } from '../i18n';
import { ErrorLine } from '../ui';

export function CabysPage() {
  const t = useWords();
  const [results, setResults] = useState<CabysResponse['data'] | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const search = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    const name = String(new FormData(e.currentTarget as HTMLFormElement).get('name')).trim();
    try {
      setResults((await call<CabysResponse>('POST', '/api/hacienda/cabys', { name, limite: 25 })).data);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section>
      <h1>{t.cabysTitle}</h1>
      <form class="card" aria-label={t.cabysTitle} onSubmit={search}>
        <label>
          {t.cabysQuery}
          <input name="name" type="search" required maxLength={100} />
        </label>
        <button type="submit">{t.search}</button>
      </form>
      <ErrorLine error={error} />
      {results &&
        (results.length === 0 ? (
          <p>{t.noResults}</p>
        ) : (
          <table class="list">
            <thead>
              <tr>
                <th scope="col">{t.code}</th>
                <th scope="col">{t.description}</th>
                <th scope="col">{t.tax}</th>
              </tr>
            </thead>
            <tbody>
              {results.map((r) => (
                <tr key={r.codigo}>
                  <td data-label={t.code} class="mono">
                    {r.codigo}
                  </td>
                  <td data-label={t.description}>{r.descripcion}</td>
                  <td data-label={t.tax}>{r.impuesto} %</td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
    </section>
  );
}
