import { createTestDatabase, migrate, type TestDatabase } from '@cr/service-kit';
import { jobsMigrations } from '../src';

export async function createJobsDatabase(): Promise<TestDatabase> {
  const db = await createTestDatabase();
  await migrate(db, jobsMigrations);
  return db;
}

/**
 * One migrated database for the suite, emptied of jobs before each test: call at the top of a test file and
 * read `.db` inside the tests.
 */
export function useJobsDatabase(): { readonly db: TestDatabase } {
  const suite = {} as { db: TestDatabase };
  beforeAll(async () => {
    suite.db = await createJobsDatabase();
  });
  afterAll(async () => {
    await suite.db.close();
  });
  beforeEach(async () => {
    await suite.db.exec('DELETE FROM jobs');
  });
  return suite;
}

/** A clock tests move by hand. */
// Starts a little ahead of the wall clock so jobs enqueued "now" (wall clock) are already due.
export function createClock(start = Date.now() + 1_000) {
  let t = start;
  return {
    now: () => new Date(t),
    advance(ms: number) {
      t += ms;
    },
  };
}

export function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
