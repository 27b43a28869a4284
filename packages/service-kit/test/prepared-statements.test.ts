// Prepared statements on PostgreSQL (ADR 0030): a parameterised statement is prepared once per connection
// and reused, a text without parameters is never prepared, a table changed under a prepared SELECT * is
// answered by running the text unnamed, the option turns it off, and the number of named texts is bounded.
// PostgreSQL only (TEST_DATABASE_URL); PGlite has no such cache.
import { PreparedStatements } from '../src/db/prepared-statements';
import { type TestDatabase, createTestDatabase, openPostgres } from '../src';

const onPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

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
    await db.exec('CREATE TABLE things (id int PRIMARY KEY, name text)');
    await db.exec("INSERT INTO things VALUES (1, 'uno'), (2, 'dos')");
  });
  afterAll(() => db.close());

  const preparedCount = (tx: { query: TestDatabase['query'] }, text: string) =>
    tx
      .query<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = $1', [
        text,
      ])
      .then((r) => r.rows[0]?.n);

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
