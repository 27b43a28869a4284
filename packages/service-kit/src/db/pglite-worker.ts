// The thread that runs a service's embedded PGlite (ADR 0039). PGlite executes every statement synchronously
// in its WebAssembly PostgreSQL, about half of a service's CPU on the embedded default; here that work runs
// beside the event loop instead of on it. The service (pglite-thread.ts) sends one statement or transaction at
// a time; PGlite's own mutex keeps a transaction's session to itself, as it did in the service's thread.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, type Transaction, types } from '@electric-sql/pglite';
import { DURABLE_SETTINGS, durablePgliteOptions } from './pglite-durable';
import { PglitePrepared } from './pglite-prepared';
import {
  type PgliteReply,
  type PgliteRequest,
  type PgliteStartup,
  type PgliteThreadData,
  failureOf,
} from './pglite-protocol';

// Same value shapes as our node-postgres settings: int8 and numeric as strings, date as a string.
const parsers = {
  [types.INT8]: (v: string) => v,
  [types.NUMERIC]: (v: string) => v,
  [types.DATE]: (v: string) => v,
};

type Session = Pick<PGlite, 'query' | 'exec'> | Transaction;
type Statement = Extract<PgliteRequest, { op: 'query' | 'exec' }>;
type TxMessage = Statement | Extract<PgliteRequest, { op: 'end' }>;

const port = parentPort;
if (!port) throw new Error('pglite-worker runs as a worker thread');
const reply = (message: PgliteReply) => {
  port.postMessage(message);
  // PostgreSQL stops at a PANIC (a flush that failed, ADR 0061) and recovers from its WAL when started again;
  // PGlite goes on, and every later statement waits forever. So the thread stops: the service is told
  // (onStopped), fails what is pending and exits, and its next start recovers.
  if (!message.ok && message.failure.fields.severity === 'PANIC') setImmediate(() => process.exit(70));
};

/** Statements of one open transaction, in the order the service sent them. */
class TxChannel {
  private readonly waiting: TxMessage[] = [];
  private take: ((message: TxMessage) => void) | undefined;

  push(message: TxMessage): void {
    const take = this.take;
    if (take) {
      this.take = undefined;
      take(message);
    } else this.waiting.push(message);
  }

  /** What waits when the transaction could not open: each is answered with that failure. */
  drain(): TxMessage[] {
    return this.waiting.splice(0);
  }

  next(): Promise<TxMessage> {
    const message = this.waiting.shift();
    if (message) return Promise.resolve(message);
    return new Promise((resolve) => {
      this.take = resolve;
    });
  }
}

const ROLLBACK = Symbol('rollback');
const transactions = new Map<number, TxChannel>();

let prepared: PglitePrepared;

/**
 * A statement with parameters runs prepared (pglite-prepared.ts), holding the session as PGlite's query()
 * would: inside a transaction its own mutex for the statement, outside one both.
 */
async function runPrepared(db: PGlite, inTransaction: boolean, sql: string, params: unknown[] | undefined) {
  const once = () => db.runExclusive(() => prepared.run(sql, params));
  if (inTransaction) return once();
  try {
    return await db._runExclusiveTransaction(once);
  } catch (err) {
    if (prepared.retireAfter(sql, err)) return undefined;
    throw err;
  }
}

/** A statement's rows: prepared when it has parameters, else (or once retired) through the session's query(). */
async function rowsOf(db: PGlite, session: Session, sql: string, params: unknown[] | undefined) {
  const done = await runPrepared(db, session !== db, sql, params);
  if (done) return { rows: done.rows, rowCount: done.rowCount };
  const r = await session.query(sql, params);
  return { rows: r.rows, rowCount: r.affectedRows || r.rows.length };
}

async function run(db: PGlite, session: Session, request: Statement): Promise<void> {
  try {
    if (request.op === 'exec') {
      await session.exec(request.sql);
      reply({ id: request.id, ok: true });
      return;
    }
    reply({ id: request.id, ok: true, ...(await rowsOf(db, session, request.sql, request.params)) });
  } catch (err) {
    reply({ id: request.id, ok: false, failure: failureOf(err) });
  }
}

function begin(db: PGlite, request: Extract<PgliteRequest, { op: 'begin' }>): void {
  const channel = new TxChannel();
  transactions.set(request.tx, channel);
  let endId: number | undefined;
  let opened = false;
  db.transaction(async (tx) => {
    if (request.sql) await tx.exec(request.sql);
    opened = true;
    reply({ id: request.id, ok: true });
    for (;;) {
      const message = await channel.next();
      if (message.op === 'end') {
        endId = message.id;
        if (!message.commit) throw ROLLBACK;
        return;
      }
      await run(db, tx, message);
    }
  })
    .then(
      () => reply({ id: endId!, ok: true }),
      (err) => {
        if (err === ROLLBACK) {
          reply({ id: endId!, ok: true });
          return;
        }
        const failure = failureOf(err);
        if (opened) {
          reply({ id: endId!, ok: false, failure }); // at COMMIT
          return;
        }
        // The service sends a transaction's first statements without waiting for it to open (a round trip
        // fewer): they share the failure.
        reply({ id: request.id, ok: false, failure });
        for (const message of channel.drain()) reply({ id: message.id, ok: false, failure });
      },
    )
    .finally(() => transactions.delete(request.tx));
}

/** A one-statement transaction in one message (ADR 0047): its opening, its statement and its COMMIT. */
function whole(db: PGlite, request: Extract<PgliteRequest, { op: 'transaction' }>): void {
  db.transaction(async (tx) => {
    if (request.sql) await tx.exec(request.sql);
    if (!request.statement) return { rows: [], rowCount: 0 };
    return rowsOf(db, tx, request.statement.sql, request.statement.params);
  }).then(
    (r) => reply({ id: request.id, ok: true, rows: r.rows, rowCount: r.rowCount }),
    (err) => reply({ id: request.id, ok: false, failure: failureOf(err) }),
  );
}

function route(tx: number, message: TxMessage): void {
  const channel = transactions.get(tx);
  if (channel) channel.push(message);
  else
    reply({ id: message.id, ok: false, failure: { message: `transaction ${tx} is not open`, fields: {} } });
}

async function main(): Promise<void> {
  const data = workerData as PgliteThreadData;
  let db: PGlite;
  try {
    // A data directory is flushed at each commit (ADR 0061); an in-memory database has nothing to flush.
    db = await PGlite.create({
      ...(data.dataDir ? durablePgliteOptions(data.dataDir) : {}),
      postgresqlconf: data.dataDir ? [...data.settings, ...DURABLE_SETTINGS] : data.settings,
      parsers,
    });
    prepared = new PglitePrepared(db);
  } catch (err) {
    port!.postMessage({ ready: false, failure: failureOf(err) } satisfies PgliteStartup);
    return;
  }
  port!.on('message', (request: PgliteRequest) => {
    switch (request.op) {
      case 'begin':
        begin(db, request);
        return;
      case 'end':
        route(request.tx, request);
        return;
      case 'transaction':
        whole(db, request);
        return;
      case 'close':
        db.close().then(
          () => reply({ id: request.id, ok: true }),
          (err) => reply({ id: request.id, ok: false, failure: failureOf(err) }),
        );
        return;
      default:
        if (request.tx !== undefined) route(request.tx, request);
        else void run(db, db, request);
    }
  });
  port!.postMessage({ ready: true } satisfies PgliteStartup);
}

void main();
