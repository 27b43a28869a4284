// The IdP's sessions as the process remembers them: what a restart reads back from the database, and a logout
// that races a check of the same session. The database is real; only the moment a read returns is held.
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { type Db, type TestDatabase, createTestDatabase, migrate, readMigrations } from '@cr/service-kit';
import { TokenService } from '../src/idp';

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await migrate(db, readMigrations(join(__dirname, '..', 'migrations')));
});
afterAll(() => db.close());

/** A TokenService as a (re)started sandbox process has it: nothing remembered yet. */
const service = (over: Db = db) =>
  new TokenService({
    db: over,
    keyPem,
    accessTtl: 300,
    refreshTtl: 1800,
    openMode: false,
    now: () => new Date(),
  });

const access = (tokens: TokenService, sid: string) =>
  tokens.issue('rut-stag', 'api-stag', 'user@stag', sid, 'http://sandbox').access_token;

describe('IdP sessions', () => {
  it('when the sandbox restarts, then a session logged out before stays ended and a live one still works', async () => {
    const before = service();
    const [ended, live] = [randomUUID(), randomUUID()];
    await before.startSession(ended, 'rut-stag', 'user@stag', 'api-stag');
    await before.startSession(live, 'rut-stag', 'user@stag', 'api-stag');
    await before.endSession(ended);
    expect(await before.verifyAccess(access(before, ended))).toBeUndefined();

    const after = service();
    expect(await after.verifyAccess(access(after, ended))).toBeUndefined();
    expect(await after.verifyAccess(access(after, live))).toMatchObject({ sid: live, username: 'user@stag' });
    expect(await after.isLive(randomUUID())).toBe(false);
  });

  it('when a check read its session before a logout of it finished, then the session is ended once the logout is', async () => {
    const sid = randomUUID();
    await service().startSession(sid, 'rut-stag', 'user@stag', 'api-stag');
    // The check's read has its answer (live) but has not gone on when the logout runs.
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let readDone!: () => void;
    const read = new Promise<void>((r) => {
      readDone = r;
    });
    const holding: Db = Object.create(db, {
      query: {
        value: async (sql: string, params?: unknown[]) => {
          const result = await db.query(sql, params);
          if (sql.includes('FROM idp_sessions WHERE id')) {
            readDone();
            await held;
          }
          return result;
        },
      },
    });
    const tokens = service(holding);
    const checking = tokens.isLive(sid);
    await read;
    await tokens.endSession(sid);
    release();
    expect(await checking).toBe(true); // it read before the logout: live then
    expect(await tokens.isLive(sid)).toBe(false);
    expect(await tokens.verifyAccess(access(tokens, sid))).toBeUndefined();
    const row = await db.query<{ ended: boolean }>(
      'SELECT ended_at IS NOT NULL AS ended FROM idp_sessions WHERE id = $1',
      [sid],
    );
    expect(row.rows[0]?.ended).toBe(true);
  });
});
