// Sign-in with the tenant's base (prefilled from the host: acme.<domain> → acme) and password. The
// tenant-api logs in at the auth-server and sets the session cookie; the page only learns the CSRF value.
// After a sign-out the auth-server did not confirm, it says the old session is still valid and until when;
// after a session ended under an open page, that it did.
import type { SessionResponse } from '@cr/contracts';
import { useState } from 'preact/hooks';
import { call } from '../api';
import { useWords } from '../i18n';
import { ErrorLine } from '../ui';

export function SignInPage({
  onSignedIn,
  notice,
}: {
  onSignedIn: (s: SessionResponse['data']) => void;
  /**
   * What the last sign-out left undone (the token still valid at the server), or that the session ended
   * while the page was open; shown until the next sign-in.
   */
  notice?: string | undefined;
}) {
  const t = useWords();
  const [base, setBase] = useState(location.hostname.split('.')[0] ?? '');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn((await call<SessionResponse>('POST', '/app/session', { base, password })).data);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card narrow" onSubmit={submit}>
      <h1>{t.signInTitle}</h1>
      {notice && (
        <p class="error" role="alert">
          {notice}
        </p>
      )}
      <label>
        {t.base}
        <input
          name="base"
          value={base}
          required
          autoComplete="username"
          onInput={(e) => setBase(e.currentTarget.value)}
        />
      </label>
      <label>
        {t.password}
        <input
          name="password"
          type="password"
          value={password}
          required
          autoComplete="current-password"
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
      </label>
      <ErrorLine error={error} />
      <button type="submit" disabled={busy}>
        {t.signIn}
      </button>
    </form>
  );
}
