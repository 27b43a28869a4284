// A PostgreSQL transaction's opening (BEGIN and its `begin` statements) written in one batch with the callback's
// first statement, before a single Sync (ADR 0046): one round trip where there were two. In the extended
// protocol the server skips everything after an error until the Sync, so if any opening statement fails, the
// first statement never runs, inside the transaction or outside it. A simple-protocol BEGIN sent ahead of it
// (node-postgres' `pipeline` mode: a Sync per query) would not give that: a BEGIN that failed to parse would
// leave the statement to run on its own, outside the transaction and without the tenant settings.
//
// node-postgres has no public API for this; it writes through the connection's message methods, as its own
// Query does, and checks that they are there (`wireOf`), so that a release without them falls back to the
// separate BEGIN instead of breaking.
import pg from 'pg';

/** The parts of node-postgres' connection the batch is written with. */
export interface Wire {
  stream: { cork?(): void; uncork?(): void };
  /** Statement names this connection has parsed, with their text. */
  parsedStatements: Record<string, string>;
  parse(message: { text: string; name: string; types: unknown[] }): void;
  bind(message: { portal: string; statement: string; values: unknown[] }): void;
  describe(message: { type: 'P'; name: string }): void;
  execute(message: { portal: string }): void;
  sync(): void;
}

/** The client's connection, when it has what the batch needs. */
export function wireOf(client: pg.PoolClient): Wire | undefined {
  const connection = (client as unknown as { connection?: Partial<Wire> }).connection;
  if (!connection || typeof connection.parsedStatements !== 'object' || !connection.stream) return undefined;
  const methods = [
    connection.parse,
    connection.bind,
    connection.describe,
    connection.execute,
    connection.sync,
  ];
  return methods.every((m) => typeof m === 'function') ? (connection as Wire) : undefined;
}

/**
 * Whether the statement can travel with the opening. An unnamed one always can; a named one only once this
 * connection has parsed it: node-postgres records a name as parsed at the first ParseComplete of the batch,
 * which would be the BEGIN's, so a statement whose own Parse then failed would be taken for parsed.
 */
export function canFollowOpening(wire: Wire, name: string | undefined, sql: string): boolean {
  return name === undefined || wire.parsedStatements[name] === sql;
}

type Submit = (this: pg.Query, connection: Wire) => Error | null | undefined;
const querySubmit = (pg.Query.prototype as unknown as { submit: Submit }).submit;

type Results = pg.QueryResult | pg.QueryResult[];

export interface AfterOpening {
  /** Settles once the opening has run: rejects with its error if it failed (the statement then never ran). */
  opening: Promise<void>;
  /** The statement's own result; rejects with the opening's error or its own. */
  result: Promise<pg.QueryResult>;
}

/** Parse, Bind, Describe and Execute of statements without parameters, unnamed. */
function writeEach(connection: Wire, statements: readonly string[]): void {
  for (const text of statements) {
    connection.parse({ text, name: '', types: [] });
    connection.bind({ portal: '', statement: '', values: [] });
    // Described so that a statement returning a row (set_config) gets its fields before the row.
    connection.describe({ type: 'P', name: '' });
    connection.execute({ portal: '' });
  }
}

/**
 * Writes `opening` (statements without parameters, each its own Parse), the statement, then `closing` (a COMMIT,
 * ADR 0047), all before one Sync. Synchronous up to the write: a statement queued on the client after this call
 * runs after the batch. An error in `closing` rejects `result`: the statement's answer counts only if what
 * follows it in the batch succeeded.
 */
export function queryAfterOpening(
  client: pg.PoolClient,
  opening: readonly string[],
  statement: { text: string; values: unknown[]; name?: string | undefined },
  closing: readonly string[] = [],
): AfterOpening {
  let completed = 0;
  let openingSettled: { resolve(): void; reject(err: Error): void } | undefined;
  const openingDone = new Promise<void>((resolve, reject) => {
    openingSettled = { resolve, reject };
  });
  let settleResult: { resolve(r: pg.QueryResult): void; reject(err: Error): void } | undefined;
  const result = new Promise<pg.QueryResult>((resolve, reject) => {
    settleResult = { resolve, reject };
  });
  const query = new pg.Query(
    { ...statement, queryMode: 'extended' } as pg.QueryConfig,
    ((err: Error | undefined, results: Results) => {
      if (err) {
        // An error before the opening's last CommandComplete is the opening's: the server skipped the rest.
        if (completed < opening.length) openingSettled!.reject(err);
        settleResult!.reject(err);
      } else {
        // One result per statement of the batch: the opening's, the statement's, the closing's.
        settleResult!.resolve(Array.isArray(results) ? results[opening.length]! : results);
      }
    }) as never,
  );
  const own = query as unknown as {
    submit: (connection: Wire) => Error | null | undefined;
    handleCommandComplete: (message: unknown, connection: Wire) => void;
  };
  const handleCommandComplete = own.handleCommandComplete;
  own.handleCommandComplete = (message, connection) => {
    completed += 1;
    if (completed === opening.length) openingSettled!.resolve();
    handleCommandComplete.call(query, message, connection);
  };
  own.submit = (connection) => {
    // The statement's own checks come first: once the opening is written, it must be followed to the Sync.
    const previous = statement.name ? connection.parsedStatements[statement.name] : undefined;
    if (previous !== undefined && previous !== statement.text) {
      return new Error(
        `Prepared statements must be unique - '${statement.name}' was used for a different statement`,
      );
    }
    connection.stream.cork?.();
    // node-postgres' Query ends the statement's messages with the Sync: the closing statements go just before it.
    if (closing.length > 0) {
      const sync = connection.sync;
      connection.sync = () => {
        writeEach(connection, closing);
        sync.call(connection);
      };
    }
    try {
      writeEach(connection, opening);
      return querySubmit.call(query, connection);
    } finally {
      if (closing.length > 0) delete (connection as Partial<Wire>).sync; // the prototype's again
      connection.stream.uncork?.();
    }
  };
  openingDone.catch(() => undefined); // awaited by the transaction; not every path reaches it
  client.query(query as never);
  return { opening: openingDone, result };
}
