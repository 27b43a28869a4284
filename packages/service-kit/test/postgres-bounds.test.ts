// ADR 0068 against a real PostgreSQL, reached directly or through a proxy that can go silent.
import { type TcpProxy, startTcpProxy } from '@cr/testkit';
import {
  DatabaseUnavailableError,
  type Db,
  type TestDatabase,
  createTestDatabase,
  migrate,
  openPostgres,
} from '../src';
import type { PostgresOptions } from '../src/db/postgres';

const onPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

/** The rejection of `work`, and how long it took to come. */
async function failureOf(work: Promise<unknown>): Promise<{ err: unknown; ms: number }> {
  const started = Date.now();
  const err = await work.then(
    () => new Error('expected a failure, it succeeded'),
    (e: unknown) => e,
  );
  return { err, ms: Date.now() - started };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

onPostgres('PostgreSQL connection bounds (ADR 0068)', () => {
  jest.setTimeout(20_000);
  let test: TestDatabase;
  let proxy: TcpProxy;
  const opened: Db[] = [];

  /** A pool with short bounds, through the proxy unless told `direct`. */
  function open(options: Partial<PostgresOptions> & { direct?: boolean } = {}): Db {
    const url = new URL(test.url!);
    if (!options.direct) {
      url.hostname = '127.0.0.1';
      url.port = String(proxy.port);
    }
    const db = openPostgres({
      connectionString: url.toString(),
      max: 2,
      // Short enough for a test, long enough that a loaded CI machine does not trip them on a healthy path.
      connectTimeoutMs: 1_500,
      statementTimeoutMs: 400,
      clientMarginMs: 1_000,
      idleInTransactionTimeoutMs: 400,
      ...options,
    });
    opened.push(db);
    return db;
  }

  beforeAll(async () => {
    test = await createTestDatabase();
    await test.exec('CREATE TABLE items (id int PRIMARY KEY)');
    const target = new URL(test.url!);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  });
  afterEach(() => proxy.thaw());
  afterAll(async () => {
    proxy.thaw();
    for (const db of opened) await db.close().catch(() => undefined);
    await proxy.close();
    await test.close();
  });

  it('when the server goes silent, then a statement fails within its bound and the pool serves again once it answers', async () => {
    const db = open();
    await db.query('SELECT 1');
    proxy.freeze();
    const read = await failureOf(db.query('SELECT 1'));
    expect(read.err).toBeInstanceOf(DatabaseUnavailableError);
    expect((read.err as DatabaseUnavailableError).mayHaveTakenEffect).toBe(false);
    expect(read.ms).toBeLessThan(5_000);
    const inTransaction = await failureOf(
      db.transaction((tx) => tx.query('INSERT INTO items (id) VALUES (1)')),
    );
    expect(inTransaction.err).toBeInstanceOf(DatabaseUnavailableError);
    expect(inTransaction.ms).toBeLessThan(5_000);
    proxy.thaw();
    // Every connection that waited on the silent server was closed, not handed out again.
    expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await db.transaction((tx) => tx.query('INSERT INTO items (id) VALUES (2)'));
    expect((await test.query('SELECT id FROM items WHERE id = 2')).rowCount).toBe(1);
  });

  it('when the connection is lost before the COMMIT, then nothing took effect; once the COMMIT is sent, the outcome is unknown', async () => {
    const db = open();
    const before = await failureOf(
      db.transaction(async (tx) => {
        await tx.query('SELECT 1');
        proxy.freeze();
        await tx.query('INSERT INTO items (id) VALUES (3)');
      }),
    );
    expect((before.err as DatabaseUnavailableError).mayHaveTakenEffect).toBe(false);
    proxy.thaw();
    const during = await failureOf(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO items (id) VALUES (4)');
        proxy.freeze();
      }),
    );
    expect(during.err).toBeInstanceOf(DatabaseUnavailableError);
    expect((during.err as DatabaseUnavailableError).mayHaveTakenEffect).toBe(true);
    // A transaction that only read commits nothing, whenever its connection is lost.
    proxy.thaw();
    await db.query('SELECT 1');
    const reading = await failureOf(
      db.transaction(async (tx) => {
        await tx.query('SELECT id FROM items');
        proxy.freeze();
      }),
    );
    expect((reading.err as DatabaseUnavailableError).mayHaveTakenEffect).toBe(false);
    proxy.thaw();
    await db.query('SELECT 1'); // a connection open, so the statement is sent
    const oneRead = await failureOf(
      db.transaction(
        (tx) => {
          proxy.freeze();
          return tx.query('SELECT id FROM items');
        },
        { oneStatement: true },
      ),
    );
    expect(oneRead.err).toBeInstanceOf(DatabaseUnavailableError);
    expect((oneRead.err as DatabaseUnavailableError).mayHaveTakenEffect).toBe(false);
    // On its own a write commits as it runs: its lost answer leaves the outcome unknown too.
    proxy.thaw();
    await db.query('SELECT 1'); // a connection open and idle, so the write is sent
    proxy.freeze();
    const write = await failureOf(db.query('INSERT INTO items (id) VALUES (5)'));
    expect((write.err as DatabaseUnavailableError).mayHaveTakenEffect).toBe(true);
  });

  it('when a transaction fails while one of its statements waits on a silent server, then its connection is closed, not pooled', async () => {
    const db = open({ max: 1 });
    await db.query('SELECT 1');
    expect(db.poolStats?.()).toMatchObject({ total: 1, idle: 1 });
    proxy.freeze();
    const { err } = await failureOf(
      db.transaction(async (tx) => {
        void tx.query('SELECT 1').catch(() => undefined); // sent, and never answered while frozen
        throw new Error('the callback gave up');
      }),
    );
    expect((err as Error).message).toBe('the callback gave up');
    // Its ROLLBACK waited behind the unanswered statement and got no answer either: the connection is gone.
    expect(db.poolStats?.()).toMatchObject({ total: 0 });
  });

  it('when no connection can be opened in time, then even a write is refused as having done nothing', async () => {
    proxy.freeze();
    const db = open();
    const { err, ms } = await failureOf(db.query('INSERT INTO items (id) VALUES (6)'));
    expect(err).toBeInstanceOf(DatabaseUnavailableError);
    expect((err as DatabaseUnavailableError).mayHaveTakenEffect).toBe(false);
    expect(ms).toBeLessThan(5_000);
  });

  it('when the server is silent, then a readiness ping answers within its own bound', async () => {
    const db = open({ connectTimeoutMs: 0, statementTimeoutMs: 0 });
    await db.query('SELECT 1');
    proxy.freeze();
    const { err, ms } = await failureOf(db.ping());
    expect(err).toBeInstanceOf(DatabaseUnavailableError);
    expect(ms).toBeLessThan(7_000);
  });

  it('when the server ends the session between two statements of a transaction, then the transaction fails and the process goes on', async () => {
    const db = open({ direct: true, max: 1 });
    const { err } = await failureOf(
      db.transaction(async (tx) => {
        const { rows } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        await test.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
        // The server's FATAL arrives while no statement of ours is in flight: an 'error' event, not an answer.
        await sleep(300);
        await tx.query('SELECT 1');
      }),
    );
    expect(err).toBeInstanceOf(DatabaseUnavailableError);
    expect((err as DatabaseUnavailableError).mayHaveTakenEffect).toBe(false);
    expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('when a statement runs past statement_timeout, then the server cancels it and the caller is told the database is unavailable', async () => {
    const db = open({ direct: true });
    const { err, ms } = await failureOf(db.query('SELECT pg_sleep(3)'));
    expect(err).toBeInstanceOf(DatabaseUnavailableError);
    expect(((err as Error).cause as { code?: string }).code).toBe('57014');
    expect(ms).toBeLessThan(2_000);
  });

  it('when a transaction idles past its bound, then the server ends it and its locks are free for others', async () => {
    const db = open({ direct: true });
    const idle = failureOf(
      db.transaction(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock(68)');
        await sleep(1_200);
        await tx.query('SELECT 1');
      }),
    );
    await sleep(800);
    const free = await test.query<{ got: boolean }>('SELECT pg_try_advisory_lock(68) AS got');
    expect(free.rows).toEqual([{ got: true }]);
    await test.query('SELECT pg_advisory_unlock(68)');
    expect((await idle).err).toBeInstanceOf(DatabaseUnavailableError);
  });

  it('when a migration takes longer than the statement bound, then it runs to its end on its own connection', async () => {
    const db = open({ direct: true });
    await expect(db.transaction((tx) => tx.query('SELECT pg_sleep(1)'))).rejects.toBeInstanceOf(
      DatabaseUnavailableError,
    );
    const applied = await migrate(db, [
      { id: '0001_slow', sql: 'CREATE TABLE slow AS SELECT 1 AS one FROM pg_sleep(1.2);' },
    ]);
    expect(applied).toEqual(['0001_slow']);
    expect((await db.query('SELECT one FROM slow')).rows).toEqual([{ one: 1 }]);
  });
});
