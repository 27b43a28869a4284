// The tenant's issuers with their certificate's expiry: a warning within the service's window, and the
// form that uploads a renewed .p12 (POST /api/actualizar/emisor needs the issuer's whole registration).
import type { EmisorListResponse } from '@cr/contracts';
import { call } from '../api';
import { useLang, useWords } from '../i18n';
import { ErrorLine, crDate, useLoad } from '../ui';
import { UpdateCertificate } from './update-certificate';

export function IssuersPage() {
  const t = useWords();
  const lang = useLang();
  const list = useLoad(async () => (await call<EmisorListResponse>('GET', '/api/emisores')).data, 'emisores');
  return (
    <section>
      <h1>{t.issuers}</h1>
      <ErrorLine error={list.error} />
      {!list.data
        ? !list.error && <p role="status">{t.loading}</p>
        : list.data.map((e) => (
            <article class="card" key={e.identificacion} aria-labelledby={`emisor-${e.identificacion}`}>
              <h2 id={`emisor-${e.identificacion}`}>
                {e.nombreComercial} <small class="mono">{e.identificacion}</small>
              </h2>
              <dl class="facts">
                <dt>{t.environment}</dt>
                <dd>{e.ambiente === 1 ? t.production : t.testing}</dd>
                <dt>{t.expires}</dt>
                <dd>
                  {crDate(e.certificado.vence, lang)} ({e.diasParaVencer} {t.daysLeft})
                </dd>
              </dl>
              {e.porVencer ? (
                <p class="warning" role="alert">
                  {e.diasParaVencer < 0 ? t.expired : t.expiringSoon}
                </p>
              ) : (
                <p class="ok">{t.certOk}</p>
              )}
              <UpdateCertificate identificacion={e.identificacion} onDone={list.reload} />
            </article>
          ))}
    </section>
  );
}
