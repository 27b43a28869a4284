// Small pieces every page uses: a state badge, dates in Costa Rica time, an error line, a load hook.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { errorText } from './error-text';
import { LOCALES, type Lang, useWords } from './i18n';

export function StateBadge({ estado }: { estado: string }) {
  const t = useWords();
  return <span class={`badge badge-${estado}`}>{t.states[estado] ?? estado}</span>;
}

/** An instant shown in Costa Rica time (UTC−06:00, no daylight saving), written the way `lang` writes dates. */
export function crDate(iso: string, lang: Lang): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return new Intl.DateTimeFormat(LOCALES[lang], {
    timeZone: 'America/Costa_Rica',
    dateStyle: 'medium',
    timeStyle: 'short',
  }).format(d);
}

export function ErrorLine({ error }: { error: unknown }) {
  const t = useWords();
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {errorText(error, t)}
    </p>
  );
}

/** Runs `load` now and whenever `key` changes; `reload` runs it again. */
export function useLoad<T>(load: () => Promise<T>, key: string) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const run = useCallback(() => {
    setError(undefined);
    load().then(setData, setError);
  }, [key]);
  useEffect(run, [run]);
  return { data, error, reload: run };
}
