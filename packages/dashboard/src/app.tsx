// The shell: session (GET /app/session on load, back to the sign-in form when an /api call finds it ended),
// language, navigation and the page for the path.
import type { SessionResponse } from '@cr/contracts';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, call, onSessionEnded, setCsrf } from './api';
import { I18n, type Lang, WORDS, initialLang } from './i18n';
import { CabysPage } from './pages/cabys';
import { DocumentPage } from './pages/document';
import { DocumentsPage } from './pages/documents';
import { IssuersPage } from './pages/issuers';
import { ReceivedPage } from './pages/received';
import { SignInPage } from './pages/sign-in';
import { WebhookPage } from './pages/webhook';
import { onLink, usePath } from './router';
import { ErrorLine, crDate } from './ui';

type Session = SessionResponse['data'];

function page(path: string) {
  const doc = /^\/app\/documentos\/(\d{50})$/.exec(path);
  if (doc) return <DocumentPage clave={doc[1]!} />;
  switch (path.replace(/\/$/, '')) {
    case '/app':
    case '/app/documentos':
      return <DocumentsPage />;
    case '/app/emisores':
      return <IssuersPage />;
    case '/app/recibidos':
      return <ReceivedPage />;
    case '/app/webhook':
      return <WebhookPage />;
    case '/app/cabys':
      return <CabysPage />;
    default:
      return null;
  }
}

export function App() {
  const [lang, setLang] = useState<Lang>(initialLang);
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  // A sign-out that failed before anything changed (403, 503…): the person is still signed in and retries.
  const [signOutError, setSignOutError] = useState<unknown>(undefined);
  // The `expira` of a session whose cookie went but whose token the auth-server did not revoke: the
  // sign-in page says it stays valid until then, so nobody believes a copied token died with the sign-out.
  const [unrevokedUntil, setUnrevokedUntil] = useState<string | undefined>(undefined);
  // The session ended under an open page (a 401 from /api): the sign-in form says why it is back.
  const [ended, setEnded] = useState(false);
  const path = usePath();
  const t = WORDS[lang];

  useEffect(() => {
    document.documentElement.lang = lang;
  }, [lang]);
  // Stored when chosen, not in an effect after the render: a page left at once (a link, a reload) would
  // otherwise open the next one in the language before.
  const chooseLang = (next: Lang) => {
    localStorage.setItem('lang', next);
    setLang(next);
  };

  useEffect(() => {
    call<SessionResponse>('GET', '/app/session')
      .then((s) => {
        setCsrf(s.data.csrf);
        setSession(s.data);
      })
      .catch(() => setSession(null));
  }, []);

  useEffect(() => {
    // The path stays: signing in again shows the page the person was on.
    onSessionEnded(() => {
      setEnded(true);
      setSession(null);
    });
    return () => onSessionEnded(undefined);
  }, []);

  const signedIn = (s: Session) => {
    setCsrf(s.csrf);
    setUnrevokedUntil(undefined);
    setSignOutError(undefined);
    setEnded(false);
    setSession(s);
  };
  const signOut = async () => {
    setSignOutError(undefined);
    try {
      await call('DELETE', '/app/session');
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      // 502 upstream_error: the tenant-api cleared the cookie but the auth-server did not revoke the token.
      if (err.code === 'upstream_error') setUnrevokedUntil(session?.expira);
      // 401: the token no longer works, which is what signing out wants. Anything else failed before the
      // cookie was touched: still signed in.
      else if (err.status !== 401) {
        setSignOutError(err);
        return;
      }
    }
    setCsrf(undefined);
    setSession(null);
  };
  const notice = unrevokedUntil
    ? t.signOutNotRevoked(crDate(unrevokedUntil, lang))
    : ended
      ? t.sessionEnded
      : undefined;

  const nav: [string, string][] = [
    ['/app/documentos', t.navDocuments],
    ['/app/emisores', t.navIssuers],
    ['/app/recibidos', t.navReceived],
    ['/app/webhook', t.navWebhooks],
    ['/app/cabys', t.navCabys],
  ];
  const current = path === '/app' || path === '/app/' ? '/app/documentos' : path;

  return (
    <I18n.Provider value={{ t, lang }}>
      <a class="skip" href="#main">
        {t.skip}
      </a>
      <header class="top">
        <strong class="brand">{t.appTitle}</strong>
        <label class="lang">
          <span class="sr-only">{t.language}</span>
          <select
            value={lang}
            onChange={(e) => chooseLang((e.currentTarget as HTMLSelectElement).value as Lang)}
          >
            <option value="es">Español</option>
            <option value="en">English</option>
          </select>
        </label>
        {session && (
          <span class="who">
            {t.signedInAs} <strong>{session.base}</strong>{' '}
            <button type="button" onClick={signOut}>
              {t.signOut}
            </button>
          </span>
        )}
      </header>
      {session && (
        <nav aria-label={t.appTitle}>
          <ul>
            {nav.map(([href, label]) => (
              <li key={href}>
                <a href={href} onClick={onLink} aria-current={current.startsWith(href) ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      )}
      <main id="main" tabIndex={-1}>
        {session && <ErrorLine error={signOutError} />}
        {session === undefined ? (
          <p role="status">{t.loading}</p>
        ) : session === null ? (
          <SignInPage onSignedIn={signedIn} notice={notice} />
        ) : (
          (page(path) ?? <p>{t.notFound}</p>)
        )}
      </main>
    </I18n.Provider>
  );
}
