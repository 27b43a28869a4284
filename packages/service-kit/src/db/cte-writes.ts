// Writes composed into one statement as data-modifying CTEs (`WITH a AS (INSERT …), b AS (UPDATE …) SELECT …`).
// PostgreSQL runs each of them exactly once whether or not the statement's SELECT reads it, so a handler's last
// writes and what it selects after them (a job's record, JobContext.finishIn) cost one round trip, where a
// statement each cost one round trip each (and, on PGlite, two messages to the database's thread each).
import type { Queryable } from './types';

export class CteWrites {
  readonly params: unknown[] = [];
  private readonly parts: string[] = [];

  /** The placeholder ($n) of `value` among this statement's parameters; use it as often as needed. */
  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  /** Adds `name AS (sql)`: an INSERT, UPDATE or DELETE whose placeholders came from `param`. */
  add(name: string, sql: string): this {
    this.parts.push(`${name} AS (${sql})`);
    return this;
  }

  /**
   * The statement: these writes as its WITH clause (none when there are none), then the SELECT `select` makes.
   * A value `select` passes to its `param` is numbered after the writes' own; the writes are left as they were.
   */
  statement(select: (param: (value: unknown) => string) => string): { sql: string; params: unknown[] } {
    const params = [...this.params];
    const sql = select((value) => {
      params.push(value);
      return `$${params.length}`;
    });
    return { sql: this.parts.length === 0 ? sql : `WITH ${this.parts.join(',\n')}\n${sql}`, params };
  }

  /** Runs the writes as a statement of their own (a caller with nothing to select after them). */
  async run(tx: Queryable): Promise<void> {
    const { sql, params } = this.statement(() => 'SELECT 1');
    await tx.query(sql, params);
  }
}
