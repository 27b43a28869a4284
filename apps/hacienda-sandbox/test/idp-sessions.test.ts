// The IdP's sessions as the process remembers them: what a restart reads back from the database, and a logout
// that races a check of the same session. The database is real; only the moment a read returns is held.
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { type Db, type TestDatabase, createTestDatabase, migrate, readMigrations } from '@cr/service-kit';
import { latch } from '@cr/testkit';
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
const service = (over: Db = db, now = () => new Date()) =>
  new TokenService({ db: over, keyPem, accessTtl: 300, refreshTtl: 1800, openMode: false, now });

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
    const { promise: held, release } = latch();
    const { promise: read, release: readDone } = latch();
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

describe('IdP sessions lapse', () => {
  const SECOND = 1000;
  /** The longest token (refresh, 1,800 s) and the minute's slack for the request that issues it. */
  const LIFETIME = (1800 + 60) * SECOND;
  let at: number;
  const clock = () => new Date(at);
  const start = (tokens: TokenService) => {
    const sid = randomUUID();
    return tokens.startSession(sid, 'rut-stag', 'user@stag', 'api-stag').then(() => sid);
  };
  const stored = async (sids: string[]) => {
    const r = await db.query<{ id: string }>('SELECT id FROM idp_sessions WHERE id = ANY($1)', [sids]);
    return r.rows.map((row) => row.id).sort();
  };
  beforeEach(async () => {
    // Far ahead of the sessions other tests started with the wall clock, which the logins here clear.
    at = Date.now() + 100 * 86_400 * SECOND;
    await db.query('DELETE FROM idp_sessions');
  });

  it('when a login comes after sessions lapsed or were logged out, then it deletes them and a live one stays', async () => {
    const tokens = service(db, clock);
    const lapsed = await start(tokens);
    at += LIFETIME + SECOND;
    const [live, loggedOut] = [await start(tokens), await start(tokens)];
    await tokens.endSession(loggedOut);
    at += SECOND;
    const next = await start(tokens);
    expect(await stored([lapsed, live, loggedOut, next])).toEqual([live, next].sort());
    expect(await service(db, clock).isLive(lapsed)).toBe(false);
    expect(await service(db, clock).isLive(loggedOut)).toBe(false);
    expect(await service(db, clock).isLive(live)).toBe(true);
  });

  it('when a session is refreshed within its lifetime, then it outlives its first tokens; once lapsed, or logged out, it is not renewed', async () => {
    const tokens = service(db, clock);
    const sid = await start(tokens);
    at += LIFETIME - 60 * SECOND;
    expect(await tokens.renewSession(sid)).toBe(true);
    at += 120 * SECOND; // past the first tokens' lifetime, within the renewed one
    await start(tokens);
    expect(await stored([sid])).toEqual([sid]);
    expect(await service(db, clock).renewSession(sid)).toBe(true);
    at += LIFETIME + SECOND;
    expect(await service(db, clock).renewSession(sid)).toBe(false);

    const ended = await start(tokens);
    await tokens.endSession(ended);
    expect(await service(db, clock).renewSession(ended)).toBe(false);
  });

  it('when more sessions lapsed than a login deletes, then each login deletes a batch of the oldest', async () => {
    await db.query(
      `INSERT INTO idp_sessions (id, realm, username, client_id, expires_at)
       SELECT 'lapsed-' || i, 'rut-stag', 'user@stag', 'api-stag', $1::timestamptz - i * interval '1 second'
         FROM generate_series(1, 101) AS i`,
      [clock()],
    );
    await start(service(db, clock));
    const left = await db.query<{ id: string }>("SELECT id FROM idp_sessions WHERE id LIKE 'lapsed-%'");
    expect(left.rows.map((r) => r.id)).toEqual(['lapsed-1']);
  });
});
