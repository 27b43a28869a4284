// A PostgreSQL transaction's opening travels with its first statement (ADR 0046): one round trip, and if the
// opening fails the statement never runs. Runs against the real server of TEST_DATABASE_URL.
import pg from 'pg';
import { type Db, openPostgres } from '../src';
import { canFollowOpening, queryAfterOpening, wireOf } from '../src/db/postgres-opening';

const url = process.env.TEST_DATABASE_URL;
const onPostgres = url ? describe : describe.skip;

/** ReadyForQuery messages the client receives while `work` runs: one per round trip. */
async function roundTrips(client: pg.PoolClient, work: () => Promise<unknown>): Promise<number> {
  let count = 0;
  const count1 = () => {
    count += 1;
  };
  client.connection.on('readyForQuery', count1);
  try {
    await work();
  } finally {
    client.connection.off('readyForQuery', count1);
  }
  return count;
}

onPostgres('a transaction opened with its first statement (PostgreSQL)', () => {
  let pool: pg.Pool;
  let client: pg.PoolClient;
  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: url, max: 1 });
    client = await pool.connect();
    await client.query('CREATE TEMP TABLE opened (id int PRIMARY KEY, who text)');
  });
  afterAll(async () => {
    client.release();
    await pool.end();
  });
  afterEach(async () => {
    await client.query('ROLLBACK').catch(() => undefined);
    await client.query('DELETE FROM opened');
  });

  it("when node-postgres' connection is at hand, then it has what the batch is written with", () => {
    // Without it every transaction would fall back to a BEGIN of its own: correct, but a round trip more.
    expect(wireOf(client)).toBeDefined();
  });

  it('when the opening and a statement are sent, then they take one round trip and the result is the statement’s', async () => {
    let rows: unknown[] = [];
    const trips = await roundTrips(client, async () => {
      const sent = queryAfterOpening(client, ['BEGIN', "SELECT set_config('app.who', 'ana', true)"], {
        text: "INSERT INTO opened VALUES ($1, current_setting('app.who')) RETURNING id, who",
        values: [1],
      });
      await sent.opening;
      const r = await sent.result;
      rows = r.rows;
      expect(r.rowCount).toBe(1);
    });
    expect(trips).toBe(1);
    expect(rows).toEqual([{ id: 1, who: 'ana' }]);
    expect(client.getTransactionStatus()).toBe('T'); // inside the transaction BEGIN opened
    await client.query('ROLLBACK');
    expect((await client.query('SELECT count(*)::int AS n FROM opened')).rows).toEqual([{ n: 0 }]);
  });

  it('when an opening statement fails, then the statement does not run and both fail with the opening’s error', async () => {
    const sent = queryAfterOpening(client, ['BEGIN', 'SELECT no_such_function()'], {
      text: 'INSERT INTO opened VALUES ($1, $2)',
      values: [2, 'never'],
    });
    await expect(sent.opening).rejects.toMatchObject({ code: '42883' });
    await expect(sent.result).rejects.toMatchObject({ code: '42883' });
    await client.query('ROLLBACK');
    expect((await client.query('SELECT count(*)::int AS n FROM opened')).rows).toEqual([{ n: 0 }]);
  });

  it('when an opening that does not parse fails, then the statement does not run outside a transaction either', async () => {
    // The BEGIN itself refused: in the extended protocol the server skips to the Sync, so nothing runs.
    const sent = queryAfterOpening(client, ['BEGIN TRANSACTION NOT VALID'], {
      text: 'INSERT INTO opened VALUES ($1, $2)',
      values: [3, 'alone'],
    });
    await expect(sent.opening).rejects.toMatchObject({ code: '42601' });
    await expect(sent.result).rejects.toMatchObject({ code: '42601' });
    expect((await client.query('SELECT count(*)::int AS n FROM opened')).rows).toEqual([{ n: 0 }]);
  });

  it('when the statement fails after the opening ran, then only the statement fails', async () => {
    await client.query("INSERT INTO opened VALUES (4, 'first')");
    // node-postgres rejects at the ErrorResponse; the batch's one ReadyForQuery, which carries the
    // transaction's state, may come in a later read (it did under CI's load).
    const ready = new Promise((resolve) => client.connection.once('readyForQuery', resolve));
    const sent = queryAfterOpening(client, ['BEGIN'], {
      text: 'INSERT INTO opened VALUES ($1, $2)',
      values: [4, 'again'],
    });
    await expect(sent.opening).resolves.toBeUndefined();
    await expect(sent.result).rejects.toMatchObject({ code: '23505' });
    await ready;
    expect(client.getTransactionStatus()).toBe('E');
  });

  it('when a COMMIT closes the batch (ADR 0047), then the whole transaction takes one round trip', async () => {
    let rows: unknown[] = [];
    const trips = await roundTrips(client, async () => {
      const sent = queryAfterOpening(
        client,
        ['BEGIN', "SELECT set_config('app.who', 'luz', true)"],
        { text: "INSERT INTO opened VALUES ($1, current_setting('app.who')) RETURNING who", values: [5] },
        ['COMMIT'],
      );
      rows = (await sent.result).rows;
    });
    expect(trips).toBe(1);
    expect(rows).toEqual([{ who: 'luz' }]);
    expect(client.getTransactionStatus()).toBe('I'); // committed
    expect((await client.query('SELECT who FROM opened')).rows).toEqual([{ who: 'luz' }]);
  });

  it('when the COMMIT that closes the batch fails, then the statement’s answer does not count', async () => {
    // A deferred constraint is checked at COMMIT, after the statement itself succeeded.
    await client.query(
      'CREATE TEMP TABLE deferred_child (parent int REFERENCES opened (id) DEFERRABLE INITIALLY DEFERRED)',
    );
    const sent = queryAfterOpening(
      client,
      ['BEGIN'],
      {
        text: 'INSERT INTO deferred_child VALUES ($1) RETURNING parent',
        values: [404],
      },
      ['COMMIT'],
    );
    await expect(sent.opening).resolves.toBeUndefined();
    await expect(sent.result).rejects.toMatchObject({ code: '23503' });
    expect((await client.query('SELECT count(*)::int AS n FROM deferred_child')).rows).toEqual([{ n: 0 }]);
  });

  it('when a named statement is not yet parsed on the connection, then it does not follow the opening', async () => {
    const wire = wireOf(client)!;
    const text = 'SELECT $1::int AS n';
    expect(canFollowOpening(wire, undefined, text)).toBe(true);
    expect(canFollowOpening(wire, 'cr_opening_probe', text)).toBe(false);
    await client.query({ name: 'cr_opening_probe', text, values: [1] });
    expect(canFollowOpening(wire, 'cr_opening_probe', text)).toBe(true);
    expect(canFollowOpening(wire, 'cr_opening_probe', 'SELECT $1::text AS n')).toBe(false);
  });
});

onPostgres('transactions on openPostgres with their opening (ADR 0046)', () => {
  let db: Db;
  beforeAll(async () => {
    db = openPostgres({ connectionString: url!, max: 1 });
    await db.exec(
      'DROP TABLE IF EXISTS opening_rows; CREATE TABLE opening_rows (id int PRIMARY KEY, who text)',
    );
  });
  afterAll(async () => {
    await db.exec('DROP TABLE IF EXISTS opening_rows');
    await db.close();
  });

  const insertWho = 'INSERT INTO opening_rows VALUES ($1, current_setting($2)) RETURNING who';
  const begin = ["SELECT set_config('app.who', 'eva', true)"];

  it('when a prepared statement opens transactions, then the first (parsing it) and the later ones see the opening', async () => {
    for (const id of [1, 2, 3]) {
      const r = await db.transaction((tx) => tx.query<{ who: string }>(insertWho, [id, 'app.who']), {
        begin,
      });
      expect(r.rows).toEqual([{ who: 'eva' }]);
    }
    expect((await db.query('SELECT count(*)::int AS n FROM opening_rows')).rows).toEqual([{ n: 3 }]);
  });

  it('when the opening fails, then nothing the callback sends runs, whether its statement was parsed or not', async () => {
    for (const text of [insertWho, 'INSERT INTO opening_rows VALUES ($1, $2::text || current_setting($3))']) {
      const failed = db.transaction(
        async (tx) => {
          const first = tx.query(text, text === insertWho ? [10, 'app.who'] : [10, 'x', 'app.who']);
          const second = tx.query('INSERT INTO opening_rows VALUES ($1, $2)', [11, 'second']);
          await Promise.allSettled([first, second]);
          return 'swallowed';
        },
        { begin: ['SELECT no_such_function()'] },
      );
      await expect(failed).rejects.toMatchObject({ code: '42883' });
    }
    expect((await db.query('SELECT count(*)::int AS n FROM opening_rows WHERE id >= 10')).rows).toEqual([
      { n: 0 },
    ]);
  });

  it('when statements are sent at once in a transaction that then fails, then none of them remains', async () => {
    const failed = db.transaction(
      async (tx) => {
        await Promise.all(
          [20, 21, 22].map((id) => tx.query('INSERT INTO opening_rows VALUES ($1, $2)', [id, 'x'])),
        );
        throw new Error('after the inserts');
      },
      { begin },
    );
    await expect(failed).rejects.toThrow('after the inserts');
    expect((await db.query('SELECT count(*)::int AS n FROM opening_rows WHERE id >= 20')).rows).toEqual([
      { n: 0 },
    ]);
    // The connection goes on.
    expect(await db.transaction(async (tx) => (await tx.query('SELECT $1::int AS n', [7])).rows)).toEqual([
      { n: 7 },
    ]);
  });
});
