// A session belongs to the credentials it was opened with: new ATV credentials are used on the next call
// (the old session logged out), and a refresh chain does not outlive its bound.
import { createLogger, MemoryTransport } from '@cr/service-kit';
import { IdpClient, MAX_SESSION_MS, TokenManager } from '../src';
import { createFakeTime, FakeHacienda, STAG_USER } from './fake-hacienda';

const fake = new FakeHacienda();
let idp: IdpClient;

const USER_B = {
  username: 'cpj-3-101-999999@stag.comprobanteselectronicos.go.cr',
  password: 'B-n3w&Secret=%/+',
};

beforeAll(async () => {
  await fake.start();
  fake.users.set(USER_B.username, USER_B.password);
  idp = new IdpClient({
    tokenUrlTest: fake.settings.HACIENDA_IDP_URL_TEST,
    tokenUrlProd: fake.settings.HACIENDA_IDP_URL_PROD,
  });
});
afterAll(() => fake.stop());
beforeEach(() => {
  fake.grants.length = 0;
  fake.logouts.length = 0;
  fake.idpScript = [];
  fake.idpDelayMs = 0;
  fake.expiresIn = 300;
  fake.refreshExpiresIn = 1800;
});

const key = { issuerId: 'tenant-1/3101123456', ambiente: 2 as const };

function manager(
  time = createFakeTime(),
  extra: Partial<ConstructorParameters<typeof TokenManager>[0]> = {},
) {
  return new TokenManager({ idp, clock: time.clock, sleep: time.sleep, ...extra });
}

/** The refresh token the fake issued last (the session's current one). */
const lastRefresh = () => [...fake.refreshTokens.keys()].at(-1);

/** Lets the background logout of a dropped session reach the fake. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('TokenManager and changed credentials', () => {
  it('when the credentials change while the session lasts, then the next call signs in with the new ones and the old session is logged out', async () => {
    const time = createFakeTime();
    const tokens = manager(time);
    await tokens.getToken(key, STAG_USER);
    const sessionA = lastRefresh();
    // The reviewer's repro: six calls 271 s apart with user B's credentials.
    for (let i = 0; i < 6; i++) {
      time.advance(271_000);
      await tokens.getToken(key, USER_B);
    }
    await settle();
    expect(fake.grants.map((g) => `${g.grantType} ${g.username ?? ''}`.trim())).toEqual([
      `password ${STAG_USER.username}`,
      `password ${USER_B.username}`,
      'refresh_token',
      'refresh_token',
      'refresh_token',
      'refresh_token',
      'refresh_token',
    ]);
    expect(fake.logouts).toEqual([sessionA]);
  });

  it('when another process changed the credentials, then even a fresh cached token is dropped on the next call', async () => {
    const tokens = manager();
    const tokenA = await tokens.getToken(key, STAG_USER);
    const tokenB = await tokens.getToken(key, async () => USER_B);
    expect(tokenB).not.toBe(tokenA);
    expect(fake.grants.map((g) => g.username)).toEqual([STAG_USER.username, USER_B.username]);
    // The new session is the one kept.
    expect(await tokens.getToken(key, USER_B)).toBe(tokenB);
    expect(fake.grants).toHaveLength(2);
  });

  it('when the new credentials are wrong, then the old session is not used: the call fails', async () => {
    const tokens = manager();
    await tokens.getToken(key, STAG_USER);
    await expect(
      tokens.getToken(key, { username: STAG_USER.username, password: 'withdrawn-and-replaced' }),
    ).rejects.toMatchObject({ kind: 'invalid_credentials' });
  });

  it('when a grant with the old credentials is in flight, then a caller with the new ones gets its own grant', async () => {
    fake.idpDelayMs = 50;
    const tokens = manager();
    const [tokenA, tokenB] = await Promise.all([
      tokens.getToken(key, STAG_USER),
      tokens.getToken(key, USER_B),
    ]);
    expect(tokenB).not.toBe(tokenA);
    expect(fake.grants.map((g) => g.username)).toEqual([STAG_USER.username, USER_B.username]);
    fake.idpDelayMs = 0;
    expect(await tokens.getToken(key, USER_B)).toBe(tokenB);
  });

  it('when retired (the issuer was updated here), then the key is forgotten at once and its IdP session ended', async () => {
    const tokens = manager();
    await tokens.getToken(key, STAG_USER);
    const session = lastRefresh();
    await tokens.retire(key, 'issuer updated');
    expect(fake.logouts).toEqual([session]);
    await tokens.getToken(key, STAG_USER);
    expect(fake.grants.map((g) => g.grantType)).toEqual(['password', 'password']);
  });

  it('when the logout of a dropped session fails, then retiring still succeeds', async () => {
    const tokens = manager();
    await tokens.getToken(key, STAG_USER);
    fake.refreshTokens.clear(); // the IdP answers 400 to the logout
    await expect(tokens.retire(key)).resolves.toBeUndefined();
    await expect(tokens.getToken(key, STAG_USER)).resolves.toMatch(/^at-/);
  });
});

describe('TokenManager refresh chains', () => {
  it('when the IdP does not say how long the refresh token lasts, then it is not taken as forever', async () => {
    fake.refreshExpiresIn = undefined;
    const time = createFakeTime();
    const tokens = manager(time);
    await tokens.getToken(key, STAG_USER);
    time.advance(21 * 60_000); // past the 20 min assumed when the IdP is silent
    await tokens.getToken(key, STAG_USER);
    expect(fake.grants.map((g) => g.grantType)).toEqual(['password', 'password']);
  });

  it('when a session is refreshed again and again, then the password is presented again within the hour and the old session closed', async () => {
    for (const refreshExpiresIn of [undefined, 36_000]) {
      fake.grants.length = 0;
      fake.logouts.length = 0;
      fake.refreshExpiresIn = refreshExpiresIn;
      const time = createFakeTime();
      const tokens = manager(time);
      await tokens.getToken(key, STAG_USER);
      const firstSession = lastRefresh();
      const passwordAt: number[] = [];
      for (let elapsed = 271_000; elapsed <= 2 * MAX_SESSION_MS + 10 * 60_000; elapsed += 271_000) {
        time.advance(271_000);
        const before = fake.grants.length;
        await tokens.getToken(key, STAG_USER);
        if (fake.grants.slice(before).some((g) => g.grantType === 'password')) passwordAt.push(elapsed);
      }
      await settle();
      expect(passwordAt.length).toBeGreaterThanOrEqual(2);
      expect(passwordAt[0]).toBeLessThanOrEqual(MAX_SESSION_MS + 271_000);
      expect(passwordAt[0]).toBeGreaterThan(MAX_SESSION_MS - 271_000);
      expect(fake.logouts).toHaveLength(passwordAt.length);
      expect(fake.logouts[0]).not.toBe(firstSession); // the chain's last refresh token, not the first
    }
  });
});

describe('TokenManager logs', () => {
  it('when sessions are dropped, refused or fail to log out, then no password or token reaches the log', async () => {
    const memory = new MemoryTransport();
    const logger = createLogger({ service: 'test', level: 'debug', transports: [memory] });
    const time = createFakeTime();
    const tokens = manager(time, { logger });
    const issued: string[] = [];
    const remember = (t: string) => {
      issued.push(t);
      return t;
    };
    remember(await tokens.getToken(key, STAG_USER));
    remember(await tokens.getToken(key, USER_B)); // credentials changed: dropped and logged out
    fake.refreshTokens.clear();
    time.advance(280_000);
    remember(await tokens.getToken(key, USER_B)); // refresh refused
    fake.refreshTokens.clear();
    await tokens.retire(key); // logout refused
    await tokens
      .getToken(key, { username: USER_B.username, password: 'Wr0ng&Secret' })
      .catch(() => undefined);
    await settle();
    const text = memory.text;
    expect(text).toContain('session dropped');
    expect(text).toContain('credentials changed');
    expect(text).toContain('logout of a dropped session failed');
    for (const secret of [STAG_USER.password, USER_B.password, 'Wr0ng&Secret', ...issued, ...fake.logouts]) {
      expect(text).not.toContain(secret);
    }
    expect(text).not.toMatch(/(rt|at)-[0-9a-f]{16}/);
  });
});
