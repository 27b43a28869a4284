import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestDatabase, createTestDatabase, migrate, openPglite, readMigrations } from '../src';

describe(`database (${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db.close();
  });

  it('when migrations run twice, then each is applied once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mig-'));
    writeFileSync(
      join(dir, '0001_items.sql'),
      'CREATE TABLE items (id int PRIMARY KEY, amount numeric(18,5));',
    );
    writeFileSync(
      join(dir, '0002_more.sql'),
      'ALTER TABLE items ADD COLUMN name text; CREATE INDEX ON items (name);',
    );
    writeFileSync(join(dir, 'README.md'), 'ignored');
    expect(await migrate(db, readMigrations(dir))).toEqual(['0001_items', '0002_more']);
    expect(await migrate(db, readMigrations(dir))).toEqual([]);
  });

  it('when a transaction fails, then nothing it wrote remains', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO items (id, amount, name) VALUES ($1, $2, $3)', [1, '10.50000', 'a']);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect((await db.query('SELECT count(*)::int AS n FROM items')).rows[0]).toEqual({ n: 0 });
  });

  it('when a transaction commits, then numeric values come back as exact strings', async () => {
    await db.transaction(async (tx) => {
      await tx.query('INSERT INTO items (id, amount, name) VALUES ($1, $2, $3)', [
        2,
        '1234567890.12345',
        'b',
      ]);
    });
    const r = await db.query<{ amount: string }>('SELECT amount FROM items WHERE id = $1', [2]);
    expect(r.rows[0]?.amount).toBe('1234567890.12345');
    expect(r.rowCount).toBe(1);
  });

  it('when a transaction opens with begin statements, then they hold inside it and vanish at its end', async () => {
    const seen = await db.transaction(
      async (tx) =>
        (await tx.query<{ v: string }>("SELECT current_setting('app.probe', true) AS v")).rows[0]?.v,
      { begin: "SELECT set_config('app.probe', 'inside', true)" },
    );
    expect(seen).toBe('inside');
    const after = await db.transaction(
      async (tx) =>
        (await tx.query<{ v: string | null }>("SELECT current_setting('app.probe', true) AS v")).rows[0]?.v,
    );
    expect(after ?? '').toBe('');
  });

  it('when a begin statement fails, then the transaction fails and its callback never runs', async () => {
    let ran = false;
    await expect(
      db.transaction(
        async () => {
          ran = true;
        },
        { begin: 'SELECT no_such_function()' },
      ),
    ).rejects.toThrow(/no_such_function/);
    expect(ran).toBe(false);
    expect((await db.query<{ n: number }>('SELECT 1 AS n')).rows[0]).toEqual({ n: 1 });
  });
});

describe('PGlite statements take turns with the event loop', () => {
  it('when many statements are queued, then timers and sockets get a turn between them, and ping skips the queue', async () => {
    const db = await openPglite();
    try {
      let turns = 0;
      let ticking = true;
      // Counts event-loop turns: the chain re-arms itself once per turn until stopped.
      const tick = () => {
        turns += 1;
        if (ticking) setImmediate(tick);
      };
      const queued = Array.from({ length: 20 }, () => db.query('SELECT 1'));
      setImmediate(tick);
      await queued[2];
      const turnsAfterThree = turns;
      await db.ping();
      await Promise.all(queued);
      ticking = false;
      // Back to back (no yielding), all twenty would finish before the first timer tick.
      expect(turnsAfterThree).toBeGreaterThan(0);
      expect(turns).toBeGreaterThan(turnsAfterThree);
    } finally {
      await db.close();
    }
  });
});

describe('PGlite on a data directory', () => {
  it('when the directory is new, then its cluster is created, runs with the embedded memory settings and keeps data across a reopen', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pglite-dir-'));
    const dataDir = join(dir, 'db');
    try {
      const first = await openPglite({ dataDir });
      try {
        expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(true);
        const shown = await first.query<{ shared_buffers: string }>('SHOW shared_buffers');
        expect(shown.rows[0]?.shared_buffers).toBe('16MB');
        await first.exec('CREATE TABLE kept (v text); INSERT INTO kept VALUES ($$still here$$)');
      } finally {
        await first.close();
      }
      const again = await openPglite({ dataDir });
      try {
        const r = await again.query<{ v: string }>('SELECT v FROM kept');
        expect(r.rows).toEqual([{ v: 'still here' }]);
      } finally {
        await again.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
