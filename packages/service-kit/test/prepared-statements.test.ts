// Prepared statements on PostgreSQL (ADR 0030) and on the embedded PGlite (ADR 0040): a parameterised
// statement is prepared once per session and reused, a text without parameters is never prepared, a table
// changed under a prepared SELECT * is answered by running the text unnamed, the option turns it off
// (PostgreSQL), and the number of named texts is bounded.
import { setFlagsFromString, getHeapStatistics } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { PGlite } from '@electric-sql/pglite';
import { PglitePrepared } from '../src/db/pglite-prepared';
import { PreparedStatements } from '../src/db/prepared-statements';
import {
  type Db,
  type Queryable,
  type TestDatabase,
  createTestDatabase,
  openPglite,
  openPostgres,
} from '../src';

const onPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

const seedThings = async (db: Queryable) => {
  await db.exec('CREATE TABLE things (id int PRIMARY KEY, name text)');
  await db.exec("INSERT INTO things VALUES (1, 'uno'), (2, 'dos')");
};

/** How many prepared statements of the session that runs this hold `text`. */
const preparedCount = (session: Queryable, text: string) =>
  session
    .query<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = $1', [
      text,
    ])
    .then((r) => r.rows[0]?.n);

describe('PreparedStatements', () => {
  it('names a text with parameters the same way each time, and none without parameters', () => {
    const p = new PreparedStatements();
    const name = p.nameOf('SELECT $1::int', [1]);
    expect(name).toMatch(/^cr_[\w-]{24}$/);
    expect(p.nameOf('SELECT $1::int', [2])).toBe(name);
    expect(p.nameOf('SELECT $1::text', ['a'])).not.toBe(name);
    expect(p.nameOf('SELECT 1', [])).toBeUndefined();
    expect(p.nameOf('SELECT 1; SELECT 2', undefined)).toBeUndefined();
  });

  it('names at most `limit` distinct texts; later ones run unnamed', () => {
    const p = new PreparedStatements(2);
    expect(p.nameOf('SELECT $1::int AS a', [1])).toBeDefined();
    expect(p.nameOf('SELECT $1::int AS b', [1])).toBeDefined();
    expect(p.nameOf('SELECT $1::int AS c', [1])).toBeUndefined();
    expect(p.nameOf('SELECT $1::int AS a', [1])).toBeDefined();
  });

  it('retires a text only for the changed-result-type error, and only a named one', () => {
    const p = new PreparedStatements();
    p.nameOf('SELECT * FROM t WHERE id = $1', [1]);
    expect(p.retireAfter('SELECT * FROM t WHERE id = $1', { code: '42P01' })).toBe(false);
    expect(p.retireAfter('SELECT never named', { code: '0A000' })).toBe(false);
    expect(p.retireAfter('SELECT * FROM t WHERE id = $1', { code: '0A000' })).toBe(true);
    expect(p.nameOf('SELECT * FROM t WHERE id = $1', [1])).toBeUndefined();
  });
});

onPostgres('prepared statements on PostgreSQL', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
    await seedThings(db);
  });
  afterAll(() => db.close());

  it('when a statement with parameters runs twice in a session, then it is prepared once and answers both', async () => {
    const text = 'SELECT name FROM things WHERE id = $1';
    await db.transaction(async (tx) => {
      expect((await tx.query(text, [1])).rows).toEqual([{ name: 'uno' }]);
      expect((await tx.query(text, [2])).rows).toEqual([{ name: 'dos' }]);
      expect(await preparedCount(tx, text)).toBe(1);
      // Without parameters nothing is prepared (a text may hold several statements).
      await tx.query('SELECT 42 AS answer');
      expect(await preparedCount(tx, 'SELECT 42 AS answer')).toBe(0);
    });
  });

  it('when another session adds a column under a prepared SELECT *, then the next call answers with it', async () => {
    const text = 'SELECT * FROM things WHERE id = $1';
    expect((await db.query(text, [1])).rows).toEqual([{ id: 1, name: 'uno' }]);
    const other = openPostgres({ connectionString: db.url as string, max: 1 });
    try {
      await other.exec("ALTER TABLE things ADD COLUMN note text NOT NULL DEFAULT 'nueva'");
    } finally {
      await other.close();
    }
    // Every pooled connection that prepared the text gets PostgreSQL's "cached plan must not change result
    // type"; the query runs again unnamed and the text is not prepared again.
    for (let i = 0; i < 3; i++) {
      expect((await db.query(text, [1])).rows).toEqual([{ id: 1, name: 'uno', note: 'nueva' }]);
    }
  });

  it('when turned off, then nothing is prepared', async () => {
    const plain = openPostgres({ connectionString: db.url as string, max: 1, preparedStatements: false });
    try {
      const text = 'SELECT name FROM things WHERE id = $1 AND $2::int = 0';
      await plain.transaction(async (tx) => {
        await tx.query(text, [1, 0]);
        await tx.query(text, [2, 0]);
        expect(await preparedCount(tx, text)).toBe(0);
      });
    } finally {
      await plain.close();
    }
  });
});

describe('prepared statements on PGlite', () => {
  let db: Db;
  beforeAll(async () => {
    db = await openPglite();
    await seedThings(db);
  });
  afterAll(() => db.close());

  it('when a statement with parameters runs twice, then it is prepared once and answers both, in a transaction or not', async () => {
    const text = 'SELECT name FROM things WHERE id = $1';
    expect((await db.query(text, [1])).rows).toEqual([{ name: 'uno' }]);
    await db.transaction(async (tx) => {
      expect((await tx.query(text, [2])).rows).toEqual([{ name: 'dos' }]);
    });
    expect(await preparedCount(db, text)).toBe(1);
    await db.query('SELECT 42 AS answer');
    expect(await preparedCount(db, 'SELECT 42 AS answer')).toBe(0);
  });

  it("when values of every kind go in and come back, then they keep the shapes PGlite's query() gives them", async () => {
    await db.exec(
      'CREATE TABLE kinds (id int PRIMARY KEY, doc jsonb, tags text[], at timestamptz, b bytea, n numeric, big bigint, d date, ok boolean, note text)',
    );
    const at = new Date('2026-11-29T06:00:00.000Z');
    const insert =
      'INSERT INTO kinds VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id, doc, tags, at, b, n, big, d, ok, note';
    const values = [
      1,
      { a: [1, 'dos'] },
      ['x', 'y z'],
      at,
      Buffer.from([0, 255]),
      '0.10000',
      '9007199254740993',
      '2026-01-02',
      true,
      null,
    ];
    const inserted = await db.query<Record<string, unknown>>(insert, values);
    const again = await db.query<Record<string, unknown>>(insert, [2, ...values.slice(1)]);
    expect(inserted.rowCount).toBe(1);
    const expected = {
      doc: { a: [1, 'dos'] },
      tags: ['x', 'y z'],
      at,
      n: '0.10000',
      big: '9007199254740993',
      d: '2026-01-02',
      ok: true,
      note: null,
    };
    for (const [row, id] of [
      [inserted.rows[0]!, 1],
      [again.rows[0]!, 2],
    ] as const) {
      expect(row).toMatchObject({ id, ...expected });
      expect(Buffer.from(row.b as Uint8Array)).toEqual(Buffer.from([0, 255]));
    }
    const updated = await db.query('UPDATE kinds SET note = $1 WHERE id >= $2', ['nota', 1]);
    expect(updated.rowCount).toBe(2);
    expect((await db.query('DELETE FROM kinds WHERE id = $1', [3])).rowCount).toBe(0);
  });

  it("when a prepared statement fails, then the error keeps PostgreSQL's code and constraint and the session goes on", async () => {
    const text = 'INSERT INTO things VALUES ($1, $2)';
    await expect(db.query(text, [1, 'otra'])).rejects.toMatchObject({
      code: '23505',
      constraint: 'things_pkey',
      message: 'duplicate key value violates unique constraint "things_pkey"',
    });
    await expect(db.query('SELECT nme FROM things WHERE id = $1', [1])).rejects.toMatchObject({
      code: '42703',
    });
    await expect(db.query('SELECT nme FROM things WHERE id = $1', [1])).rejects.toMatchObject({
      code: '42703',
    });
    const inTx = db.transaction(async (tx) => {
      await tx.query(text, [3, 'tres']);
      await tx.query(text, [3, 'tres']);
    });
    await expect(inTx).rejects.toMatchObject({ code: '23505' });
    expect((await db.query('SELECT count(*)::int AS n FROM things WHERE id >= $1', [0])).rows).toEqual([
      { n: 2 },
    ]);
  });

  it('when a migration adds a column under a prepared SELECT *, then the next call answers with it', async () => {
    await db.exec('CREATE TABLE later (id int PRIMARY KEY)');
    await db.exec('INSERT INTO later VALUES (1)');
    const text = 'SELECT * FROM later WHERE id = $1';
    expect((await db.query(text, [1])).rows).toEqual([{ id: 1 }]);
    await db.exec("ALTER TABLE later ADD COLUMN note text NOT NULL DEFAULT 'nueva'");
    for (let i = 0; i < 3; i++) {
      expect((await db.query(text, [1])).rows).toEqual([{ id: 1, note: 'nueva' }]);
    }
  });
});

describe('PglitePrepared', () => {
  it('when a statement runs thousands of times, then nothing of its replies stays on the heap', async () => {
    // PGlite's execProtocolRawSync alone keeps every reply's parsed messages: 11 KB rows × 3,000 would stay.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const pglite = await PGlite.create();
    try {
      await pglite.exec(
        "CREATE TABLE big (id int PRIMARY KEY, body text); INSERT INTO big VALUES (1, repeat('x', 11000))",
      );
      const prepared = new PglitePrepared(pglite);
      const select = () => pglite.runExclusive(() => prepared.run('SELECT body FROM big WHERE id = $1', [1]));
      expect((await select())?.rows[0]?.body).toHaveLength(11000);
      gc();
      const before = getHeapStatistics().used_heap_size;
      for (let i = 0; i < 3000; i++) await select();
      gc();
      const grown = getHeapStatistics().used_heap_size - before;
      expect(grown).toBeLessThan(8 * 1024 * 1024);
    } finally {
      await pglite.close();
    }
  });
});
