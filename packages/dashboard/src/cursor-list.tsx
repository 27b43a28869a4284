// A listing the API pages by cursor (GET /api/documentos, GET /api/recepcion/documentos): its first page
// whenever `key` changes, then each next page appended by "load more" while the server returns a cursor,
// so that what sorts after the first page (the 51st unanswered document, an older invoice) can be reached.
// A row can come twice: an answered received document changes rank, so a later page brings it again. Rows
// are one per `idOf`, in the place first shown, with the version read last (a later page's, or one `put`
// after it was read on its own): see cursor-rows.ts.
import { useState } from 'preact/hooks';
import { latestOnce, putRow } from './cursor-rows';
import { useWords } from './i18n';
import { useLoad } from './ui';

export interface CursorPage<T> {
  data: T[];
  /** The next page's ?cursor=, null on the last page. */
  cursor: string | null;
}

export interface MoreControl {
  cursor: string | null;
  busy: boolean;
  load: () => void;
}

/** `fetchPage(undefined)` is the first page; `fetchPage(cursor)` the one after it. */
export function useCursorList<T>(
  fetchPage: (cursor: string | undefined) => Promise<CursorPage<T>>,
  key: string,
  idOf: (row: T) => string,
) {
  const [more, setMore] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const first = useLoad(async () => {
    const page = await fetchPage(undefined);
    setMore([]);
    setCursor(page.cursor);
    setError(undefined);
    return page.data;
  }, key);
  const load = async () => {
    // One next page at a time: a second click before the first answer would append the same page twice.
    if (!cursor || busy) return;
    setBusy(true);
    setError(undefined);
    try {
      const page = await fetchPage(cursor);
      setMore((m) => [...m, ...page.data]);
      setCursor(page.cursor);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return {
    /** Every row loaded so far, once each; undefined until the first page arrives. */
    rows: first.data && latestOnce([...first.data, ...more], idOf),
    /** Shows `row`, read again on its own, in place of the version listed. */
    put: (row: T) => setMore((m) => putRow(m, row, idOf)),
    error: first.error ?? error,
    reload: first.reload,
    more: { cursor, busy, load } satisfies MoreControl,
  };
}

/** The "load more" button, while there is a next page. */
export function LoadMore({ cursor, busy, load }: MoreControl) {
  const t = useWords();
  if (!cursor) return null;
  return (
    <button type="button" onClick={load} disabled={busy}>
      {t.more}
    </button>
  );
}
