// Writes composed into one statement as data-modifying CTEs (`WITH a AS (INSERT …), b AS (UPDATE …) SELECT …`).
// PostgreSQL runs each of them exactly once whether or not the statement's SELECT reads it, so a handler's last
// writes and what it selects after them (a job's record, JobContext.finishIn) cost one round trip, where a
// statement each cost one round trip each (and, on PGlite, two messages to the database's thread each).
import type { Queryable } from './types';

export class CteWrites {
  readonly params: unknown[] = [];
  private readonly parts: string[] = [];
  private readonly columns: string[] = [];
  private row: Record<string, unknown> | undefined;

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
   * Adds CTEs written with their own numbering: `build(firstParam)` returns `a AS (…), b AS (…)` whose first
   * placeholder is `$firstParam`, and their values in order (as `enqueueCtes` of @cr/jobs does).
   */
  include(build: (firstParam: number) => { sql: string; params: readonly unknown[] }): this {
    const { sql, params } = build(this.params.length + 1);
    this.parts.push(sql);
    this.params.push(...params);
    return this;
  }

  /**
   * Selects `sql AS name` too (an expression over the writes, e.g. `(SELECT id FROM updated)`), whoever runs
   * the statement: its value is in `selected()` once it ran. `name` must differ from the runner's own columns.
   */
  select(name: string, sql: string): this {
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new TypeError('CteWrites.select: name must be an SQL name');
    this.columns.push(`${sql} AS ${name}`);
    return this;
  }

  /** The values of the `select` columns (and the runner's own) from the statement's row, once it ran. */
  selected<R>(): R {
    if (!this.row) throw new Error('CteWrites.selected: the statement has not run');
    return this.row as R;
  }

  /**
   * The statement: these writes as its WITH clause (none when there are none), then SELECT with the columns
   * `own` gives (the runner's) and those of `select`. A value `own` passes to its `param` is numbered after the
   * writes' own; the writes are left as they were.
   */
  statement(own?: (param: (value: unknown) => string) => string): { sql: string; params: unknown[] } {
    const params = [...this.params];
    const first = own?.((value) => {
      params.push(value);
      return `$${params.length}`;
    });
    const columns = [...(first ? [first] : []), ...this.columns];
    const select = `SELECT ${columns.length ? columns.join(', ') : '1'}`;
    return { sql: this.parts.length === 0 ? select : `WITH ${this.parts.join(',\n')}\n${select}`, params };
  }

  /** Runs the statement through `tx` and returns its row (also kept for `selected`). */
  async run<R extends Record<string, unknown> = Record<string, unknown>>(
    tx: Queryable,
    own?: (param: (value: unknown) => string) => string,
  ): Promise<R> {
    const { sql, params } = this.statement(own);
    const r = await tx.query<R>(sql, params);
    this.row = r.rows[0] ?? {};
    return this.row as R;
  }
}
