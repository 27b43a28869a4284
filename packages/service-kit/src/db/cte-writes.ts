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

  /** The `WITH …` clause that goes before the statement's SELECT; its parameters are `params`, from $1. */
  get clause(): string {
    if (this.parts.length === 0) throw new Error('CteWrites: no writes were added');
    return `WITH ${this.parts.join(',\n')}`;
  }

  /** Runs the writes as a statement of their own (a caller with nothing to select after them). */
  async run(tx: Queryable): Promise<void> {
    await tx.query(`${this.clause}\nSELECT 1`, this.params);
  }
}
