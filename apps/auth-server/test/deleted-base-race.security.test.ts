// A client created while the same base is being deleted never ends live on the base its deletion reserved
// (ADR 0065; race audit, 2026-12-07). In READ COMMITTED the creation's NOT EXISTS read its start's snapshot,
// while its ON CONFLICT waited for the deletion to commit and then found the base free: the new client, made
// without `reclaim`, got the deleted client's tenant data. A trigger that sleeps after the deletion has written
// (a slow disk or a busy server would do the same) widens the window between its statement and its commit.
// The embedded engine runs one statement at a time on one connection, where the two cannot interleave.
import { type Harness, startHarness } from './helpers';

const onPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

onPostgres('creating a base while it is being deleted (PostgreSQL)', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
    await h.db.exec(`
      CREATE FUNCTION slow_reservation() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_sleep(0.5); RETURN NEW; END $$;
      CREATE TRIGGER slow_reservation AFTER INSERT ON deleted_clients
      FOR EACH ROW EXECUTE FUNCTION slow_reservation();`);
  });
  afterAll(() => h.close());

  const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('when a creation without reclaim runs during the deletion, then it is refused as a deleted base and nothing is live', async () => {
    await h.services.clients.create('victim', 'old-hash');
    const deleting = h.services.clients.delete('victim');
    // The deletion has removed the client and is sleeping in its reservation's trigger, uncommitted.
    await wait(150);
    const creating = h.services.clients.create('victim', 'new-hash').then(
      () => 'created',
      (err: { code?: string; message?: string }) => `${err.code}: ${err.message}`,
    );
    await deleting;
    expect(await creating).toMatch(/^conflict: base: client "victim" was deleted on /);
    expect(await h.services.clients.find('victim')).toBeUndefined();
    expect(await h.services.clients.baseStatus('victim')).toEqual({
      taken: false,
      deletedAt: expect.any(Number),
    });
  });

  it('when a creation with reclaim runs during the deletion, then it waits for it and takes the base with its data', async () => {
    await h.services.clients.create('heir', 'old-hash');
    const deleting = h.services.clients.delete('heir');
    await wait(150);
    const creating = h.services.clients.create('heir', 'new-hash', { reclaim: true });
    await deleting;
    await creating;
    expect((await h.services.clients.find('heir'))?.passwordHash).toBe('new-hash');
    // Reclaimed: the base is live and no longer reserved.
    expect(await h.services.clients.baseStatus('heir')).toEqual({ taken: true, deletedAt: undefined });
  });
});
