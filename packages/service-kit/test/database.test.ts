import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { widestLoopGap } from '@cr/testkit';
import { PGlite } from '@electric-sql/pglite';
import {
  type Db,
  SchemaNewerThanReleaseError,
  type TestDatabase,
  createTestDatabase,
  migrate,
  openPglite,
  readMigrations,
} from '../src';
import { PGLITE_SETTINGS } from '../src/db/pglite';
import { DURABLE_SETTINGS, durablePgliteOptions } from '../src/db/pglite-durable';

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
    // An earlier release, which lacks 0002, is refused on this database rather than served by it.
    const earlier = readMigrations(dir).filter((m) => m.id === '0001_items');
    const refused = await migrate(db, earlier).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SchemaNewerThanReleaseError);
    expect((refused as Error).message).toMatch(
      /^database schema is newer than this release: it holds migrations 0002_more, which this release does not have: a later release applied them/,
    );
    const { rows } = await db.query<{ id: string }>('SELECT id FROM schema_migrations ORDER BY id');
    expect(rows.map((r) => r.id)).toEqual(['0001_items', '0002_more']);
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

  it('when a statement fails in a transaction whose callback swallows the error, then the transaction fails and nothing it wrote remains', async () => {
    await db.exec('CREATE TABLE swallowed (id int PRIMARY KEY)');
    const outcome = db.transaction(async (tx) => {
      await tx.query('INSERT INTO swallowed (id) VALUES (1)');
      await tx.query('INSERT INTO swallowed (id) VALUES (1)').catch(() => undefined); // a duplicate key
      return 'looked fine';
    });
    await expect(outcome).rejects.toMatchObject({
      code: '25P02',
      message: 'Transaction was rolled back instead of committed',
    });
    expect((await db.query('SELECT count(*)::int AS n FROM swallowed')).rows[0]).toEqual({ n: 0 });
    // The connection or session goes on.
    await db.transaction((tx) => tx.query('INSERT INTO swallowed (id) VALUES (2)'));
    expect((await db.query('SELECT id FROM swallowed')).rows).toEqual([{ id: 2 }]);
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
      { begin: ["SELECT set_config('app.probe', 'inside', true)"] },
    );
    expect(seen).toBe('inside');
    const after = await db.transaction(
      async (tx) =>
        (await tx.query<{ v: string | null }>("SELECT current_setting('app.probe', true) AS v")).rows[0]?.v,
    );
    expect(after ?? '').toBe('');
  });

  it('when a begin statement fails, then the transaction fails with its error and nothing the callback wrote remains', async () => {
    await db.exec('CREATE TABLE IF NOT EXISTS begun (v text)');
    await expect(
      db.transaction(
        async (tx) => {
          // On PGlite the callback's first statements follow the BEGIN without waiting for it (ADR 0039).
          await tx.query("INSERT INTO begun VALUES ('written')");
        },
        { begin: ['SELECT no_such_function()'] },
      ),
    ).rejects.toThrow(/no_such_function/);
    expect((await db.query('SELECT * FROM begun')).rows).toEqual([]);
    expect((await db.query<{ n: number }>('SELECT 1 AS n')).rows[0]).toEqual({ n: 1 });
  });
});

describe(`one-statement transactions, ADR 0047 (${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let db: TestDatabase;
  const one = { oneStatement: true, begin: ["SELECT set_config('app.probe', 'set', true)"] } as const;
  const insert =
    "INSERT INTO solo (id, note) VALUES ($1, current_setting('app.probe', true)) RETURNING id, note";
  const count = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM solo')).rows[0]?.n;
  beforeAll(async () => {
    db = await createTestDatabase();
    await db.exec('CREATE TABLE solo (id int PRIMARY KEY, note text)');
  });
  afterAll(async () => {
    await db.close();
  });
  beforeEach(async () => {
    await db.exec('DELETE FROM solo');
  });

  it('when its statement answers, then the transaction is committed with it and the opening held inside it', async () => {
    // The same text several times: on PostgreSQL the first use parses it, the later ones travel in one batch.
    for (const id of [1, 2, 3]) {
      const r = await db.transaction((tx) => tx.query(insert, [id]), one);
      expect(r.rows).toEqual([{ id, note: 'set' }]);
      expect(r.rowCount).toBe(1);
    }
    expect(await count()).toBe(3);
    const outside = await db.query<{ v: string | null }>("SELECT current_setting('app.probe', true) AS v");
    expect(outside.rows[0]?.v ?? '').toBe('');
  });

  it('when the callback sends a second statement or an exec, then it is refused and the transaction fails', async () => {
    const twice = db.transaction(async (tx) => {
      await tx.query(insert, [1]);
      await tx.query(insert, [2]);
    }, one);
    await expect(twice).rejects.toThrow('a one-statement transaction was sent a second statement');
    const exec = db.transaction(async (tx) => tx.exec('DELETE FROM solo'), one);
    await expect(exec).rejects.toThrow(/a one-statement transaction was sent an exec/);
    // The first statement was the transaction, committed with it; the second never ran.
    expect((await db.query('SELECT id FROM solo')).rows).toEqual([{ id: 1 }]);
  });

  it('when its statement fails and the callback swallows the error, then the transaction fails with it and nothing is written', async () => {
    await db.query('INSERT INTO solo (id) VALUES (1)');
    for (let round = 0; round < 2; round++) {
      const swallowed = db.transaction(async (tx) => {
        await tx.query(insert, [1]).catch(() => undefined);
        return 'looked fine';
      }, one);
      await expect(swallowed).rejects.toMatchObject({ code: '23505' });
    }
    expect(await count()).toBe(1);
    // The connection or session goes on.
    await db.transaction((tx) => tx.query(insert, [2]), one);
    expect(await count()).toBe(2);
  });

  it('when its opening fails, then its statement does not run, and a callback that sends nothing still reports it', async () => {
    const failing = { oneStatement: true, begin: ['SELECT no_such_function()'] } as const;
    for (let round = 0; round < 2; round++) {
      await expect(db.transaction((tx) => tx.query(insert, [5]), failing)).rejects.toMatchObject({
        code: '42883',
      });
    }
    await expect(db.transaction(async () => 'nothing sent', failing)).rejects.toMatchObject({
      code: '42883',
    });
    expect(await count()).toBe(0);
    expect(await db.transaction(async () => 'nothing sent', one)).toBe('nothing sent');
  });
});

describe('PGlite runs in a thread of its own (ADR 0039)', () => {
  /** A fresh in-memory PGlite for one test, closed after it. */
  const withPglite = async (test: (db: Db) => Promise<void>): Promise<void> => {
    const db = await openPglite();
    try {
      await test(db);
    } finally {
      await db.close();
    }
  };

  it('when a long statement runs, then the event loop keeps its timers, and ping does not wait for the queue', () =>
    withPglite(async (db) => {
      // A statement of a few hundred milliseconds of WebAssembly CPU: on the event loop it would stop every timer.
      const started = performance.now();
      const long = db.query('SELECT count(*) AS n FROM generate_series(1, 3000000)');
      const finished: string[] = [];
      const queued = Array.from({ length: 20 }, (_, i) =>
        db.query('SELECT 1').then(() => finished.push(`query ${i}`)),
      );
      const { result: counted, widestMs } = await widestLoopGap(async () => {
        await db.ping();
        finished.push('ping');
        return long;
      }, 5);
      const elapsed = performance.now() - started;
      await Promise.all(queued);
      expect(counted.rows).toEqual([{ n: '3000000' }]);
      expect(elapsed).toBeGreaterThan(100);
      expect(widestMs).toBeLessThan(elapsed / 2);
      // The thread holds at most the statement running besides the ping; the other queued ones wait here.
      expect(finished.indexOf('ping')).toBeLessThanOrEqual(1);
    }));

  it("when a statement fails, then its error crosses the thread with PostgreSQL's code and constraint, and values keep their shapes", () =>
    withPglite(async (db) => {
      await db.exec('CREATE TABLE kinds (id int PRIMARY KEY, b bytea, n numeric, big bigint, d date)');
      await db.query('INSERT INTO kinds VALUES ($1, $2, $3, $4, $5)', [
        1,
        Buffer.from([0, 1, 254, 255]),
        '0.10000',
        '9007199254740993',
        '2026-01-02',
      ]);
      const row = (await db.query<Record<string, unknown>>('SELECT b, n, big, d FROM kinds')).rows[0]!;
      expect(Buffer.from(row.b as Uint8Array)).toEqual(Buffer.from([0, 1, 254, 255]));
      expect([row.n, row.big, row.d]).toEqual(['0.10000', '9007199254740993', '2026-01-02']);
      const failed = db.query('INSERT INTO kinds (id) VALUES (1)');
      await expect(failed).rejects.toThrow('duplicate key value violates unique constraint "kinds_pkey"');
      await expect(failed).rejects.toMatchObject({ code: '23505', constraint: 'kinds_pkey', table: 'kinds' });
      // The session is intact after the error, inside and outside a transaction.
      const inTx = db.transaction(async (tx) => {
        await tx.query('INSERT INTO kinds (id) VALUES (2)');
        await tx.query('SELECT * FROM missing');
      });
      await expect(inTx).rejects.toMatchObject({
        code: '42P01',
        message: 'relation "missing" does not exist',
      });
      expect((await db.query('SELECT count(*)::int AS n FROM kinds')).rows).toEqual([{ n: 1 }]);
    }));

  it('when a transaction cannot open, then it fails with that error even if its callback sends nothing or swallows it', () =>
    withPglite(async (db) => {
      const begin = { begin: ['SELECT no_such_function()'] };
      await expect(db.transaction(async () => 'nothing sent', begin)).rejects.toThrow(/no_such_function/);
      const swallowed = db.transaction(async (tx) => {
        await tx.query('SELECT 1').catch(() => undefined);
        return 'swallowed';
      }, begin);
      await expect(swallowed).rejects.toMatchObject({ code: '42883' });
      // The session goes on, and later transactions open.
      expect(await db.transaction(async (tx) => (await tx.query('SELECT 5 AS n')).rows)).toEqual([{ n: 5 }]);
    }));

  it('when transactions overlap, then each keeps the session to itself until it ends', () =>
    withPglite(async (db) => {
      await db.exec('CREATE TABLE counter (n int); INSERT INTO counter VALUES (0)');
      // Read, then write what was read plus one, with a pause between: interleaved in one session, the
      // transactions would read the same value and lose increments.
      const increments = Array.from({ length: 12 }, () =>
        db.transaction(async (tx) => {
          const { rows } = await tx.query<{ n: number }>('SELECT n FROM counter');
          await new Promise((resolve) => setTimeout(resolve, 2));
          await tx.query('UPDATE counter SET n = $1', [rows[0]!.n + 1]);
        }),
      );
      const reads = Array.from({ length: 6 }, () => db.query<{ n: number }>('SELECT n FROM counter'));
      await Promise.all([...increments, ...reads]);
      expect((await db.query('SELECT n FROM counter')).rows).toEqual([{ n: 12 }]);
    }));

  it('when it is closed, then what was sent before ends first and later statements are refused instead of waiting forever', async () => {
    const db = await openPglite();
    const before = [
      db.query<{ n: number }>('SELECT 2 AS n'),
      db.query<{ n: number }>('SELECT 3 AS n'),
      db.query<{ n: string }>('SELECT count(*)::text AS n FROM generate_series(1, 1000000)'),
    ];
    // A transaction whose next statement is still to come when close is called.
    const open = db.transaction(async (tx) => {
      await tx.query('SELECT 1');
      await new Promise((resolve) => setTimeout(resolve, 100));
      return (await tx.query<{ n: number }>('SELECT 4 AS n')).rows[0]?.n;
    });
    await db.close();
    const answered = (await Promise.all(before)).map((r) => r.rows[0]?.n);
    expect(answered).toEqual([2, 3, '1000000']);
    await expect(open).resolves.toBe(4);
    await expect(db.query('SELECT 1')).rejects.toThrow('the embedded database is closed');
  });
});

describe('PGlite whose thread stops', () => {
  it('when its thread runs out of memory, then the service is told once and every statement fails instead of waiting', async () => {
    const stops: Error[] = [];
    const db = await openPglite({ threadHeapMb: 32, onStopped: (err) => stops.push(err) });
    try {
      expect((await db.query<{ n: number }>('SELECT 1 AS n')).rows).toEqual([{ n: 1 }]);
      // ~300 MB of rows for a thread allowed 32: the thread stops, the process does not.
      const flood = db.query("SELECT repeat('x', 1000000) AS s FROM generate_series(1, 300)");
      await expect(flood).rejects.toThrow(/the embedded database thread failed/);
      await expect(db.query('SELECT 1')).rejects.toThrow(/the embedded database thread failed/);
      await expect(db.ping()).rejects.toThrow(/the embedded database thread failed/);
      expect(stops).toHaveLength(1);
      expect(stops[0]?.message).toMatch(/out of memory/i);
    } finally {
      await db.close();
    }
    expect(stops).toHaveLength(1);
  });

  it('when it is closed, then the service is not told of a stop', async () => {
    const stops: Error[] = [];
    const db = await openPglite({ onStopped: (err) => stops.push(err) });
    await db.query('SELECT 1');
    await db.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stops).toEqual([]);
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

describe('what the embedded engine survives (ADR 0061)', () => {
  // A service commits rows one by one and says so after each commit (fixtures/acknowledging-service.ts); it is
  // killed without warning after the 40th. Every row it acknowledged must be there when the directory is opened
  // again, after PostgreSQL's recovery. The machine's crash needs the flush, tested below.
  const SERVICE = join(__dirname, 'fixtures', 'acknowledging-service.ts');

  it('when the service is killed right after acknowledged commits, then every acknowledged row is there on reopen', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pglite-killed-'));
    const dataDir = join(dir, 'db');
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', SERVICE, dataDir], {
        cwd: join(__dirname, '..'),
        env: { ...process.env, NODE_OPTIONS: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let errors = '';
      child.stderr.on('data', (d: Buffer) => {
        errors += d.toString();
      });
      let acknowledged = 0;
      const exited = new Promise<NodeJS.Signals | null>((resolve) =>
        child.on('exit', (_code, signal) => resolve(signal)),
      );
      child.stdout.on('data', (d: Buffer) => {
        for (const line of d.toString().split('\n'))
          if (line) acknowledged = Math.max(acknowledged, Number(line));
        if (acknowledged >= 40) child.kill('SIGKILL');
      });
      expect({ signal: await exited, errors }).toEqual({ signal: 'SIGKILL', errors: '' });
      expect(acknowledged).toBeGreaterThanOrEqual(40);

      const again = await openPglite({ dataDir, maintenanceIntervalMs: false });
      try {
        const r = await again.query<{ rows: number }>(
          'SELECT count(*)::int AS rows FROM acked WHERE n <= $1',
          [acknowledged],
        );
        expect(r.rows[0]?.rows).toBe(acknowledged);
      } finally {
        await again.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('when transactions commit on a data directory, then each is flushed to disk, and a checkpoint flushes the files it wrote', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pglite-flushed-'));
    const dataDir = join(dir, 'db');
    try {
      // As the service opens it, in its thread: PostgreSQL runs with fsync on, through fsync().
      const service = await openPglite({ dataDir, maintenanceIntervalMs: false });
      try {
        const fsync = await service.query<{ fsync: string }>('SHOW fsync');
        const method = await service.query<{ wal_sync_method: string }>('SHOW wal_sync_method');
        expect([fsync.rows[0]?.fsync, method.rows[0]?.wal_sync_method]).toEqual(['on', 'fsync']);
        await service.exec('CREATE TABLE flushed (n int)');
      } finally {
        await service.close();
      }
      // The same options here, where the file system's flushes can be counted: PGlite as shipped makes none.
      const options = durablePgliteOptions(dataDir);
      const db = await PGlite.create({
        ...options,
        postgresqlconf: [...PGLITE_SETTINGS, ...DURABLE_SETTINGS],
      });
      try {
        const before = options.fs.flushes;
        for (let n = 1; n <= 20; n++) await db.query('INSERT INTO flushed VALUES ($1)', [n]);
        expect(options.fs.flushes - before).toBeGreaterThanOrEqual(20);
        const committed = options.fs.flushes;
        await db.exec('CHECKPOINT');
        expect(options.fs.flushes).toBeGreaterThan(committed);
      } finally {
        await db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('when a flush fails, then the commit is refused with the I/O error, never acknowledged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pglite-eio-'));
    const dataDir = join(dir, 'db');
    try {
      await (await openPglite({ dataDir, maintenanceIntervalMs: false })).close();
      // PostgreSQL stops at that PANIC and PGlite would never answer again: a process of its own, and the
      // service's thread exits at a PANIC (pglite-worker.ts).
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', join(__dirname, 'fixtures', 'failing-flush.ts'), dataDir],
        { cwd: join(__dirname, '..'), env: { ...process.env, NODE_OPTIONS: '' }, timeout: 60_000 },
      );
      expect(JSON.parse(stdout)).toEqual({
        acknowledged: false,
        severity: 'PANIC',
        message: expect.stringMatching(/could not fsync .*I\/O error/),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('when it runs in memory, then it keeps PGlite as shipped: nothing to flush', async () => {
    const db = await openPglite({ maintenanceIntervalMs: false });
    try {
      const r = await db.query<{ fsync: string }>('SHOW fsync');
      expect(r.rows[0]?.fsync).toBe('off');
    } finally {
      await db.close();
    }
  });
});
