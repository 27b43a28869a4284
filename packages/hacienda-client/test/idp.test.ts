import { IdpClient, IdpError, RateLimitedError, TokenManager } from '../src';
import { createFakeTime, FakeHacienda, STAG_USER } from './fake-hacienda';

const fake = new FakeHacienda();
let idp: IdpClient;

beforeAll(async () => {
  await fake.start();
  idp = new IdpClient({
    tokenUrlTest: fake.settings.HACIENDA_IDP_URL_TEST,
    tokenUrlProd: fake.settings.HACIENDA_IDP_URL_PROD,
  });
});
afterAll(() => fake.stop());
beforeEach(() => {
  fake.grants.length = 0;
  fake.idpScript = [];
  fake.idpDelayMs = 0;
  fake.expiresIn = 300;
  fake.refreshExpiresIn = 1800;
});

const key = { issuerId: 'issuer-1', ambiente: 2 as const };

function manager(
  time = createFakeTime(),
  extra: Partial<ConstructorParameters<typeof TokenManager>[0]> = {},
) {
  return new TokenManager({ idp, clock: time.clock, sleep: time.sleep, ...extra });
}

describe('TokenManager', () => {
  it('when asked for a sandbox token, then it makes a form-encoded password grant with client api-stag and empty scope and secret', async () => {
    const tokens = manager();
    const token = await tokens.getToken(key, STAG_USER);
    expect(fake.accessTokens.has(token)).toBe(true);
    expect(fake.grants).toEqual([
      {
        realm: 'rut-stag',
        grantType: 'password',
        clientId: 'api-stag',
        username: STAG_USER.username,
        scope: '',
        clientSecret: '',
      },
    ]);
  });

  it('when asked for a production token, then it uses the prod realm and client api-prod', async () => {
    await manager().getToken({ issuerId: 'issuer-1', ambiente: 1 }, STAG_USER);
    expect(fake.grants[0]).toMatchObject({ realm: 'rut', clientId: 'api-prod', grantType: 'password' });
  });

  it('when the token is fresh, then it is reused; shortly before expiry it is refreshed with the refresh token', async () => {
    const time = createFakeTime();
    const tokens = manager(time);
    const first = await tokens.getToken(key, STAG_USER);
    time.advance(269_000);
    expect(await tokens.getToken(key, STAG_USER)).toBe(first);
    expect(fake.grants).toHaveLength(1);
    time.advance(2_000); // 271 s: inside the 30 s margin of a 300 s token
    const second = await tokens.getToken(key, STAG_USER);
    expect(second).not.toBe(first);
    expect(fake.grants.map((g) => g.grantType)).toEqual(['password', 'refresh_token']);
  });

  it('when the refresh token has expired, then it goes straight to a password grant', async () => {
    const time = createFakeTime();
    fake.refreshExpiresIn = 600;
    const tokens = manager(time);
    await tokens.getToken(key, STAG_USER);
    time.advance(600_000);
    await tokens.getToken(key, STAG_USER);
    expect(fake.grants.map((g) => g.grantType)).toEqual(['password', 'password']);
  });

  it('when the IdP refuses the refresh token, then it falls back to a password grant', async () => {
    const time = createFakeTime();
    const tokens = manager(time);
    await tokens.getToken(key, STAG_USER);
    fake.refreshTokens.clear(); // the IdP lost the session
    time.advance(280_000);
    const token = await tokens.getToken(key, STAG_USER);
    expect(fake.accessTokens.has(token)).toBe(true);
    expect(fake.grants.map((g) => g.grantType)).toEqual(['password', 'refresh_token', 'password']);
  });

  it('when many callers ask at once, then one grant serves them all', async () => {
    fake.idpDelayMs = 50;
    const tokens = manager();
    const got = await Promise.all(Array.from({ length: 20 }, () => tokens.getToken(key, STAG_USER)));
    expect(new Set(got).size).toBe(1);
    expect(fake.grants).toHaveLength(1);
  });

  it('when different issuers ask at once, then each gets its own grant', async () => {
    const tokens = manager();
    const [a, b] = await Promise.all([
      tokens.getToken({ issuerId: 'a', ambiente: 2 }, STAG_USER),
      tokens.getToken({ issuerId: 'b', ambiente: 2 }, STAG_USER),
    ]);
    expect(a).not.toBe(b);
    expect(fake.grants).toHaveLength(2);
  });

  it('when invalidated after a 401, then the next call refreshes', async () => {
    const tokens = manager();
    const first = await tokens.getToken(key, STAG_USER);
    tokens.invalidate(key);
    const second = await tokens.getToken(key, STAG_USER);
    expect(second).not.toBe(first);
    expect(fake.grants.map((g) => g.grantType)).toEqual(['password', 'refresh_token']);
  });

  it('when credentials come as a function, then it is read on every call and the session kept while they match', async () => {
    const tokens = manager();
    let read = 0;
    const source = async () => {
      read += 1;
      return STAG_USER;
    };
    const first = await tokens.getToken(key, source);
    expect(await tokens.getToken(key, source)).toBe(first);
    tokens.invalidate(key);
    await tokens.getToken(key, source);
    expect(read).toBe(3);
    expect(fake.grants.map((g) => g.grantType)).toEqual(['password', 'refresh_token']);
  });

  it('when the password is wrong, then a non-retryable invalid_credentials error says so without the password', async () => {
    const tokens = manager();
    const err = await tokens
      .getToken(key, { username: STAG_USER.username, password: 'Wr0ng&Secret' })
      .catch((e) => e);
    expect(err).toBeInstanceOf(IdpError);
    expect(err).toMatchObject({
      kind: 'invalid_credentials',
      status: 401,
      retryable: false,
      oauthError: 'invalid_grant',
    });
    expect(JSON.stringify({ m: err.message, s: err.stack, c: err.cause })).not.toContain('Wr0ng&Secret');
  });

  it('when the IdP is down, then a retryable unavailable error comes back and the next call tries again', async () => {
    const tokens = manager();
    fake.idpScript.push((_req, res) => res.status(503).send('down'));
    await expect(tokens.getToken(key, STAG_USER)).rejects.toMatchObject({
      kind: 'unavailable',
      retryable: true,
      status: 503,
    });
    await expect(tokens.getToken(key, STAG_USER)).resolves.toMatch(/^at-/);
  });

  it('when an issuer would exceed 10 grants a minute, then the 11th gets a retryable error with the delay', async () => {
    const time = createFakeTime();
    const tokens = manager(time);
    for (let i = 0; i < 10; i++) {
      tokens.forget(key);
      await tokens.getToken(key, STAG_USER);
      time.advance(1_000);
    }
    tokens.forget(key);
    const err = await tokens.getToken(key, STAG_USER).catch((e) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err.retryAfterMs).toBe(50_000);
    expect(fake.grants).toHaveLength(10);
    // Another issuer is not affected.
    await expect(tokens.getToken({ issuerId: 'other', ambiente: 2 }, STAG_USER)).resolves.toMatch(/^at-/);
  });

  it('when waiting is allowed, then the 11th grant waits for a free slot instead of failing', async () => {
    const time = createFakeTime();
    const tokens = manager(time, { maxWaitMs: 60_000 });
    for (let i = 0; i < 11; i++) {
      tokens.forget(key);
      await tokens.getToken(key, STAG_USER);
    }
    expect(time.sleeps).toEqual([60_000]);
    expect(fake.grants).toHaveLength(11);
  });

  it('when logging out, then the IdP session ends (204) and the next call starts a new one', async () => {
    const tokens = manager();
    await tokens.getToken(key, STAG_USER);
    const refresh = [...fake.refreshTokens.keys()].at(-1);
    await tokens.logout(key);
    expect(fake.logouts).toContain(refresh);
    await tokens.getToken(key, STAG_USER);
    expect(fake.grants.map((g) => g.grantType)).toEqual(['password', 'password']);
  });

  it('when the IdP cannot be reached, then the error is retryable', async () => {
    const dead = new IdpClient({
      tokenUrlTest: 'http://127.0.0.1:1/token',
      tokenUrlProd: 'http://127.0.0.1:1/token',
    });
    await expect(new TokenManager({ idp: dead }).getToken(key, STAG_USER)).rejects.toMatchObject({
      kind: 'unavailable',
      retryable: true,
    });
  });
});
