import { createTestDatabase, migrate, type TestDatabase } from '@cr/service-kit';
import { jobsMigrations } from '../src';

export async function createJobsDatabase(): Promise<TestDatabase> {
  const db = await createTestDatabase();
  await migrate(db, jobsMigrations);
  return db;
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
