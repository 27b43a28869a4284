// The messages between a service and the thread that runs its embedded PGlite (pglite-thread.ts,
// pglite-worker.ts). One session: statements outside a transaction, and a transaction's statements routed by
// its number while it is open.

export interface PgliteThreadData {
  /** Directory of an existing cluster; omitted → in memory. */
  dataDir?: string;
  /** postgresql.conf lines (PGLITE_SETTINGS). */
  settings: string[];
}

export type PgliteRequest =
  | { id: number; op: 'query'; sql: string; params?: unknown[]; tx?: number }
  | { id: number; op: 'exec'; sql: string; tx?: number }
  /** Opens transaction `tx` with `sql` (transaction-local settings) as its first statements. */
  | { id: number; op: 'begin'; tx: number; sql?: string }
  | { id: number; op: 'end'; tx: number; commit: boolean }
  /**
   * A whole one-statement transaction (ADR 0047): `sql` (its opening), the statement, COMMIT. The reply carries
   * the statement's rows; without a statement it only opens and commits.
   */
  | { id: number; op: 'transaction'; sql?: string; statement?: { sql: string; params?: unknown[] } }
  | { id: number; op: 'close' };

/** A database error's fields as PostgreSQL reports them (code, constraint…), carried across the thread. */
export interface PgliteFailure {
  message: string;
  fields: Record<string, string | number>;
}

export type PgliteReply =
  | { id: number; ok: true; rows?: unknown[]; rowCount?: number }
  | { id: number; ok: false; failure: PgliteFailure };

export type PgliteStartup = { ready: true } | { ready: false; failure: PgliteFailure };

// What pg-protocol's DatabaseError carries beside its message.
const ERROR_FIELDS = [
  'severity',
  'code',
  'detail',
  'hint',
  'position',
  'where',
  'schema',
  'table',
  'column',
  'dataType',
  'constraint',
  'routine',
] as const;

export function failureOf(err: unknown): PgliteFailure {
  const fields: Record<string, string | number> = {};
  if (err && typeof err === 'object') {
    for (const name of ERROR_FIELDS) {
      const value = (err as Record<string, unknown>)[name];
      if (typeof value === 'string' || typeof value === 'number') fields[name] = value;
    }
  }
  return { message: err instanceof Error ? err.message : String(err), fields };
}

/** The error a caller sees: the database's message, with its fields (code, constraint…) as properties. */
export function errorOf(failure: PgliteFailure): Error {
  return Object.assign(new Error(failure.message), failure.fields);
}
