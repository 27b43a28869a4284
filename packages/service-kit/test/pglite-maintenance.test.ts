// PGlite has no autovacuum; the maintenance passes do its work (ADR 0041). PGlite only: PostgreSQL has its own.
import { type Db, type Logger, openPglite, startPgliteMaintenance } from '../src';

interface TableStats {
  n_dead_tup: string;
  reltuples: number;
  vacuumed: boolean;
  analysed: boolean;
}

async function statsOf(db: Db, table: string): Promise<TableStats> {
  // The counts are published at most once a second unless forced (as the maintenance pass does).
  await db.query('SELECT pg_stat_force_next_flush()');
  const r = await db.query<TableStats>(
    `SELECT s.n_dead_tup::text, c.reltuples, s.last_vacuum IS NOT NULL AS vacuumed,
            s.last_analyze IS NOT NULL AS analysed
     FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid WHERE s.relname = $1`,
    [table],
  );
  return r.rows[0]!;
}

/** `rows` rows, each updated `updates` times: as many dead row versions as updates. */
async function churn(db: Db, table: string, rows: number, updates: number): Promise<void> {
  await db.exec(`CREATE TABLE ${table} (id int PRIMARY KEY, state text NOT NULL)`);
  await db.query(`INSERT INTO ${table} SELECT g, 'pending' FROM generate_series(1, $1::int) g`, [rows]);
  for (let i = 0; i < updates; i++) await db.query(`UPDATE ${table} SET state = $1`, [`state ${i}`]);
}

function recordingLogger() {
  const warnings: Array<{ message: string; command?: string }> = [];
  const logger = {
    debug: () => undefined,
    warn: (message: string, meta: { command?: string }) => warnings.push({ message, command: meta.command }),
  } as unknown as Logger;
  return { logger, warnings };
}

describe('PGlite maintenance (the autovacuum PGlite lacks)', () => {
  let db: Db;
  beforeEach(async () => {
    db = await openPglite({ maintenanceIntervalMs: false });
  });
  afterEach(() => db.close());

  it('vacuums and analyses a table whose dead rows pass the threshold', async () => {
    await churn(db, 'busy', 500, 3);
    const before = await statsOf(db, 'busy');
    expect(Number(before.n_dead_tup)).toBeGreaterThanOrEqual(1500);
    expect(before).toMatchObject({ vacuumed: false, analysed: false });

    const done = await startPgliteMaintenance(db).runOnce();

    expect(done).toEqual(['VACUUM public.busy', 'ANALYZE public.busy']);
    const after = await statsOf(db, 'busy');
    expect(after).toMatchObject({ n_dead_tup: '0', reltuples: 500, vacuumed: true, analysed: true });
  });

  it('leaves a table below every threshold alone', async () => {
    // 20 dead rows (vacuum from 50) and 40 changes (analyse from 50).
    await churn(db, 'quiet', 20, 1);
    const done = await startPgliteMaintenance(db).runOnce();
    expect(done).toEqual([]);
    expect(await statsOf(db, 'quiet')).toMatchObject({ n_dead_tup: '20', vacuumed: false, analysed: false });
  });

  it('vacuums an insert-only table once it has grown by 1,000 rows, so its visibility map is kept', async () => {
    await churn(db, 'ledger', 1200, 0);
    expect(await startPgliteMaintenance(db).runOnce()).toEqual([
      'VACUUM public.ledger',
      'ANALYZE public.ledger',
    ]);
    const pages = await db.query<{ all_visible: number }>(
      "SELECT relallvisible AS all_visible FROM pg_class WHERE relname = 'ledger'",
    );
    expect(pages.rows[0]!.all_visible).toBeGreaterThan(0);
  });

  it('analyses with a small sample (statistics target 10), so an analyse touches little WebAssembly memory', async () => {
    await churn(db, 'wide', 5000, 0);
    await startPgliteMaintenance(db).runOnce();
    const r = await db.query<{ buckets: number }>(
      "SELECT array_length(histogram_bounds::text::int[], 1) AS buckets FROM pg_stats WHERE tablename = 'wide' AND attname = 'id'",
    );
    // 11 bounds (10 buckets) at target 10; PostgreSQL's default 100 would give 101.
    expect(r.rows).toEqual([{ buckets: 11 }]);
  });

  it('after the analyse, the next pass has nothing to do', async () => {
    await churn(db, 'busy', 500, 1);
    const maintenance = startPgliteMaintenance(db);
    expect(await maintenance.runOnce()).toEqual(['VACUUM public.busy', 'ANALYZE public.busy']);
    expect(await maintenance.runOnce()).toEqual([]);
  });

  it('a table that cannot be vacuumed is reported and the pass goes on with the others', async () => {
    await churn(db, 'gone', 500, 3);
    await churn(db, 'kept', 500, 2);
    const { logger, warnings } = recordingLogger();
    // The table is dropped between the pass reading the statistics and vacuuming it.
    const session = {
      query: db.query,
      exec: async (sql: string) => {
        if (sql.endsWith('public.gone')) await db.exec('DROP TABLE gone');
        await db.exec(sql);
      },
    };
    expect(await startPgliteMaintenance(session, { logger }).runOnce()).toEqual([
      'VACUUM public.kept',
      'ANALYZE public.kept',
    ]);
    // Once: the gone table's analyse is not attempted.
    expect(warnings).toEqual([
      { message: 'embedded database maintenance failed', command: 'VACUUM public.gone' },
    ]);
  });

  it("the service's statements take their turn between a table's vacuum and its analyse", async () => {
    await churn(db, 'busy', 500, 3);
    const finished: string[] = [];
    // The service's statement arrives while the vacuum runs, as a request's would: it is queued behind it.
    const session = {
      query: db.query,
      exec: async (sql: string) => {
        const running = db.exec(sql).then(() => finished.push(sql));
        if (sql.startsWith('VACUUM')) void db.query('SELECT 1').then(() => finished.push('SELECT 1'));
        await running;
      },
    };
    await startPgliteMaintenance(session).runOnce();
    expect(finished).toEqual(['VACUUM public.busy', 'SELECT 1', 'ANALYZE public.busy']);
  });
});

describe('openPglite runs the maintenance on its own', () => {
  it('vacuums a busy table within a few intervals, and closes cleanly', async () => {
    const db = await openPglite({ maintenanceIntervalMs: 50 });
    try {
      await churn(db, 'busy', 500, 2);
      const deadline = Date.now() + 10_000;
      while (!(await statsOf(db, 'busy')).vacuumed && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(await statsOf(db, 'busy')).toMatchObject({ vacuumed: true, analysed: true, n_dead_tup: '0' });
    } finally {
      await db.close();
    }
  });
});
