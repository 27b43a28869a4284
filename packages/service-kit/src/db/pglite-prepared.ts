// Prepared statements on the embedded PGlite (ADR 0040), in its thread. PGlite's `query()` sends six protocol
// messages for every call, each a separate trip into its WebAssembly PostgreSQL (parse, describe, bind,
// describe, execute, sync), and the server parses and plans the text again each time. Here a statement with
// parameters is parsed and described once per session under a name; each later call is one trip: bind, execute
// and sync written together, the rows read with the columns described at prepare time. Measured on this
// machine (a lookup by key returning an 11 KB row; an UPDATE by key): 233 → 136 µs and 222 → 27 µs of CPU.
// Which texts are named, and what happens when a schema change makes a prepared SELECT unusable, is decided
// by the same PreparedStatements as for node-postgres (ADR 0030).
import { type PGlite, protocol, types } from '@electric-sql/pglite';

import { PreparedStatements } from './prepared-statements';

interface Column {
  name: string;
  dataTypeID: number;
}

interface Described {
  name: string;
  /** Parameter types, for the serializers (JSON, bytea, arrays, dates as PGlite's query() writes them). */
  paramTypes: number[];
  columns: Column[];
}

export interface Outcome {
  rows: Record<string, unknown>[];
  rowCount: number;
}

// Commands whose tag ends with the number of rows they changed (PGlite's own query() counts the same ones).
const COUNTED = new Set(['INSERT', 'UPDATE', 'DELETE', 'COPY', 'MERGE']);

export class PglitePrepared {
  private readonly names = new PreparedStatements();
  /** Statements this session holds, by name. */
  private readonly described = new Map<string, Described>();

  constructor(private readonly db: PGlite) {}

  /**
   * Runs `sql` prepared when it may be; undefined when it must run through PGlite's query() instead (no
   * parameters, or a text past the limit or retired). The caller holds the session.
   */
  async run(sql: string, params: unknown[] | undefined): Promise<Outcome | undefined> {
    const name = this.names.nameOf(sql, params);
    if (!name) return undefined;
    const statement = this.described.get(name) ?? (await this.prepare(name, sql));
    const values = params!.map((value, i) => this.serialize(value, statement.paramTypes[i]));
    return this.execute(statement, values);
  }

  /** After `run` failed: whether the text's prepared form is now retired and it should run unnamed. */
  retireAfter(sql: string, err: unknown): boolean {
    return this.names.retireAfter(sql, err);
  }

  private async prepare(name: string, sql: string): Promise<Described> {
    const described: Described = { name, paramTypes: [], columns: [] };
    await this.exchange(
      [
        protocol.serialize.parse({ name, text: sql, types: [] }),
        protocol.serialize.describe({ type: 'S', name }),
        protocol.serialize.sync(),
      ],
      (message) => {
        if (message.name === 'parameterDescription')
          described.paramTypes = (message as unknown as { dataTypeIDs: number[] }).dataTypeIDs;
        else if (message.name === 'rowDescription')
          described.columns = (message as unknown as { fields: Column[] }).fields.map((f) => ({
            name: f.name,
            dataTypeID: f.dataTypeID,
          }));
      },
    );
    this.described.set(name, described);
    return described;
  }

  private async execute(statement: Described, values: (string | null)[]): Promise<Outcome> {
    const rows: Record<string, unknown>[] = [];
    let changed: number | undefined;
    const parsers = this.db.parsers;
    const { columns } = statement;
    await this.exchange(
      [
        protocol.serialize.bind({ statement: statement.name, values }),
        protocol.serialize.execute({}),
        protocol.serialize.sync(),
      ],
      (message) => {
        if (message.name === 'dataRow') {
          const fields = (message as unknown as { fields: (string | null)[] }).fields;
          const row: Record<string, unknown> = {};
          columns.forEach((column, i) => {
            row[column.name] = types.parseType(fields[i] ?? null, column.dataTypeID, parsers);
          });
          rows.push(row);
        } else if (message.name === 'commandComplete') {
          const tag = (message as unknown as { text: string }).text.split(' ');
          if (COUNTED.has(tag[0] ?? '')) changed = Number(tag[tag.length - 1]);
        }
      },
    );
    return { rows, rowCount: changed || rows.length };
  }

  private serialize(value: unknown, type: number | undefined): string | null {
    if (value === null || value === undefined) return null;
    const serializer = type === undefined ? undefined : this.db.serializers[type];
    return serializer ? serializer(value) : String(value);
  }

  /**
   * One trip into PGlite. Through `execProtocol`, which parses the reply and starts a fresh collector for each
   * call: `execProtocolRawSync` alone leaves every reply's parsed messages in PGlite's collector, ~2 KB of
   * heap per statement that is never freed (found by `pnpm soak`).
   */
  private async exchange(messages: Uint8Array[], onMessage: (message: { name: string }) => void) {
    const reply = await this.db.execProtocol(Buffer.concat(messages), {
      syncToFs: false,
      throwOnError: true,
    });
    for (const message of reply.messages) onMessage(message);
  }
}
