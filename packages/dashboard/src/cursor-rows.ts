// The rows of a cursor listing (useCursorList), kept apart from the hook so they can be tested without a
// browser. A row can come twice: a later page brings again a received document whose rank changed when it
// was answered, and a row read again on its own is put in place of the one listed. The rows shown are one
// per id, in the place first shown, as last read.

/** The rows by `idOf`, each where it was first, as its last version (a Map keeps a key's first place). */
export function latestOnce<T>(rows: T[], idOf: (row: T) => string): T[] {
  return [...new Map(rows.map((row) => [idOf(row), row])).values()];
}

/**
 * `rows` with `row` in place of its id's last version, or after them all when its id is new. The last one,
 * not the first: a later page may have brought the same id again, and that version would otherwise still
 * be the one `latestOnce` shows.
 */
export function putRow<T>(rows: T[], row: T, idOf: (row: T) => string): T[] {
  const id = idOf(row);
  const at = rows.findLastIndex((r) => idOf(r) === id);
  return at < 0 ? [...rows, row] : rows.with(at, row);
}
