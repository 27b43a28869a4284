// Which statements node-postgres prepares once per connection (a named statement) instead of parsing and
// planning again on every call. Measured on this repository's statements (a SELECT * of an 11 KB row and two
// UPDATEs by key, 3,000 calls): the server's CPU per statement 100-110 → 57-63 µs and the client's 73-162 →
// 49-79 µs (docs/decisions/0030). Only statements with parameters are named (a text without them may hold
// several statements, which the extended protocol refuses), and only the first `limit` distinct texts, so SQL
// built at run time cannot pile up prepared statements in every server session.
import { createHash } from 'node:crypto';

/** PostgreSQL's "cached plan must not change result type": a table changed under a prepared SELECT *. */
export const CHANGED_RESULT_TYPE = '0A000';

export class PreparedStatements {
  private readonly names = new Map<string, string>();
  /** Texts whose prepared form a schema change made unusable: they run unnamed until the process restarts. */
  private readonly retired = new Set<string>();

  constructor(private readonly limit = 256) {}

  /** The statement's name, or undefined when it runs unnamed. */
  nameOf(sql: string, params: readonly unknown[] | undefined): string | undefined {
    if (!params?.length || this.retired.has(sql)) return undefined;
    let name = this.names.get(sql);
    if (name === undefined) {
      if (this.names.size >= this.limit) return undefined;
      name = `cr_${createHash('sha256').update(sql).digest('base64url').slice(0, 24)}`;
      this.names.set(sql, name);
    }
    return name;
  }

  /**
   * After a prepared statement failed because its result columns changed (a migration by another process):
   * whether to run it again unnamed. The text is not prepared again in this process; sessions that still hold
   * the old statement never execute it again.
   */
  retireAfter(sql: string, err: unknown): boolean {
    const code = (err as { code?: unknown } | null)?.code;
    if (code !== CHANGED_RESULT_TYPE || !this.names.has(sql)) return false;
    this.retired.add(sql);
    return true;
  }
}
