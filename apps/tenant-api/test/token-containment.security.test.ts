// Attacks on token lifetime and revocation (issue 11, items 4, 5 and 8), each first reproduced, then refused.
//  - A leaked signing key mints a token with a far exp, or with an iat in the future to outlive maxAge.
//  - The auth-server withdraws a key (retired because it leaked); a verifier that never refreshes its JWKS
//    would keep accepting tokens signed by it forever.
//  - A client is disabled, deleted or its password changes; its tokens must end, not live 8 more hours.
//  - The revocation poll paged by this machine's clock: with the auth-server's clock behind, revocations
//    fall between two polls and are skipped. And a replica that has not loaded the list (or lost it) served
//    revoked tokens while reporting ready.
import { MemoryTransport, createLogger } from '@cr/service-kit';
import request from 'supertest';
import { JwksKeySource, maxAgeOf } from '../src/auth/key-source';
import { RevocationList, noRevocations } from '../src/auth/revocation-list';
import { TokenVerifier } from '../src/auth/token-verifier';
import { type TestApp, startTestApp } from './support/test-app';
import { TEST_AUDIENCE, TEST_ISSUER, TokenForge } from './support/token-forge';

const logger = createLogger({ service: 't', level: 'error', transports: [new MemoryTransport()] });
const nowSec = () => Math.floor(Date.now() / 1000);

// One app for every HTTP-level case (starting one is the slow part), with the revocation list's readiness
// wired as main.ts wires it.
let ctx: TestApp;
beforeAll(async () => {
  ctx = await startTestApp({ checkExonerations: false, revocationReadiness: true });
  await ctx.keys.refresh();
  await ctx.revocations.sync();
}, 120_000);
afterAll(() => ctx.close());

describe('tokens a leaked key could mint', () => {
  const ask = (token: string) =>
    request(ctx.app)
      .post('/api/consultar/emisor')
      .set('Host', ctx.host('acme'))
      .set('Authorization', `Bearer ${token}`)
      .send({ identificacion: 3101123456 });

  it('when a token claims an exp ten years ahead but was issued 9 h ago, then 401 (maxAge 8 h from iat)', async () => {
    const iat = nowSec() - 9 * 3600;
    const res = await ask(ctx.forge.token('acme', { iat, exp: iat + 10 * 365 * 86400 }));
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('token has expired');
  });

  it('when a token is issued an hour in the future (to outlive maxAge), then 401', async () => {
    const iat = nowSec() + 3600;
    const res = await ask(ctx.forge.token('acme', { iat, exp: iat + 28800 }));
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('token is issued in the future');
  });

  it('when iat is a few seconds ahead (clock skew within tolerance), then it is accepted', async () => {
    const iat = nowSec() + 3;
    const res = await ask(ctx.forge.token('acme', { iat, exp: iat + 28800 }));
    expect(res.status).toBe(404); // authenticated: the issuer simply is not registered
  });
});

describe('JWKS refresh on its Cache-Control max-age', () => {
  const forge = new TokenForge();
  let clock = Date.now();
  beforeAll(() => forge.start());
  afterAll(() => forge.stop());

  function verifierWith(keys: JwksKeySource): TokenVerifier {
    return new TokenVerifier({
      keys,
      revocations: noRevocations,
      issuer: TEST_ISSUER,
      audience: TEST_AUDIENCE,
      clockToleranceSeconds: 10,
    });
  }

  it.each([
    ['public, max-age=300', 300_000],
    ['max-age=0', 5_000],
    ['no-store', 5_000],
    ['max-age=86400', 3_600_000],
    [null, undefined],
  ])('when Cache-Control is %p, then the set lives %p ms', (header, ms) => {
    expect(maxAgeOf(header)).toBe(ms);
  });

  it('when the auth-server stops publishing a key, then its tokens are refused once the max-age passes', async () => {
    forge.jwksKeys = undefined;
    forge.jwksCacheControl = 'public, max-age=60';
    const keys = new JwksKeySource({ jwksUri: forge.jwksUrl, logger, now: () => clock });
    const verifier = verifierWith(keys);
    const token = forge.token('acme');
    expect(await keys.refresh()).toBe(true);
    await expect(verifier.verify(token, 'acme')).resolves.toMatchObject({ sub: 'acme' });

    // The key leaks and is retired: the JWKS now publishes only its successor.
    forge.jwksKeys = [forge.stranger];
    clock += 30_000; // within max-age: the cached set still holds (no fetch per request)
    const before = forge.jwksRequests;
    await expect(verifier.verify(token, 'acme')).resolves.toMatchObject({ sub: 'acme' });
    expect(forge.jwksRequests).toBe(before);

    clock += 31_000; // past max-age: the next lookup refetches and the withdrawn key is gone
    keys.cachedKey(undefined);
    await keys.refresh();
    expect(keys.kids()).toEqual([forge.stranger.kid]);
    await expect(verifier.verify(token, 'acme')).rejects.toThrow('token signing key is unknown');
    await expect(verifier.verify(forge.token('acme', {}, forge.stranger), 'acme')).resolves.toMatchObject({
      sub: 'acme',
    });
  });

  it('when a quiet service never verifies a token, then the timer still refetches on max-age', async () => {
    forge.jwksKeys = undefined;
    forge.jwksCacheControl = 'max-age=1';
    const keys = new JwksKeySource({ jwksUri: forge.jwksUrl, logger, defaultMaxAgeMs: 5_000 });
    await keys.refresh();
    const before = forge.jwksRequests;
    keys.start();
    try {
      await new Promise((r) => setTimeout(r, 5_600)); // the floor of an honoured max-age is 5 s
      expect(forge.jwksRequests).toBeGreaterThan(before);
    } finally {
      keys.stop();
    }
  }, 20_000);
});

describe('revoked subjects (client disabled, deleted, password changed)', () => {
  const ask = (token: string) =>
    request(ctx.app)
      .post('/api/consultar/emisor')
      .set('Host', ctx.host('acme'))
      .set('Authorization', `Bearer ${token}`)
      .send({ identificacion: 3101123456 });

  it('when the auth-server revokes a subject, then its earlier tokens are refused and later ones pass', async () => {
    const notBefore = nowSec();
    const earlier = ctx.forge.token('acme', { iat: notBefore - 60, exp: notBefore - 60 + 28800 });
    const other = ctx.forge.token('globex', { iat: notBefore - 60, exp: notBefore - 60 + 28800 });
    expect((await ask(earlier)).status).toBe(404);
    ctx.forge.revokedSubjects.push({ sub: 'acme', notBefore });
    expect(await ctx.revocations.sync()).toBe(true);

    const refused = await ask(earlier);
    expect(refused.status).toBe(401);
    expect(refused.body.message).toBe('token has been revoked');
    const later = ctx.forge.token('acme', { iat: notBefore, exp: notBefore + 28800 });
    expect((await ask(later)).status).toBe(404);
    // Another tenant's token of the same age is untouched.
    const globex = await request(ctx.app)
      .post('/api/consultar/emisor')
      .set('Host', ctx.host('globex'))
      .set('Authorization', `Bearer ${other}`)
      .send({ identificacion: 3101123456 });
    expect(globex.status).toBe(404);
  });
});

describe('revocation list paging and readiness', () => {
  it("when the auth-server's clock is an hour behind, then the next poll pages by its asOf, not ours", async () => {
    const forge = await new TokenForge().start();
    try {
      const serverNow = nowSec() - 3600;
      forge.asOf = serverNow - 5;
      const list = new RevocationList({ url: `${forge.url}/revocations`, logger, intervalMs: 60_000 });
      expect(await list.sync()).toBe(true);
      // A revocation made on the server's (behind) clock after our first poll…
      const token = forge.token('acme', { iat: serverNow, exp: serverNow + 28800 });
      forge.revoke(token);
      forge.asOf = serverNow + 10;
      expect(await list.sync()).toBe(true);
      // …is fetched, because `since` is the server's cursor (ours minus 60 s would have skipped it).
      expect(forge.revocationRequests).toEqual([
        '/revocations?since=0',
        `/revocations?since=${serverNow - 5}`,
      ]);
      expect(
        list.isRevoked({
          jti: (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { jti: string }).jti,
          sub: 'acme',
          iat: serverNow,
        }),
      ).toBe(true);
    } finally {
      await forge.stop();
    }
  });

  it('when the list body has no asOf cursor, then the poll fails instead of guessing', async () => {
    const fetchImpl = (async () => new Response(JSON.stringify({ revoked: [] }))) as typeof fetch;
    const list = new RevocationList({
      url: 'http://auth.test/revocations',
      logger,
      intervalMs: 60_000,
      fetchImpl,
    });
    expect(await list.sync()).toBe(false);
    expect(list.health()).toBe('revocation list not loaded yet');
  });

  it('when the last refresh is older than the staleness limit, then the list reports not ready', async () => {
    let clock = Date.now();
    let fail = false;
    const fetchImpl = (async () =>
      fail
        ? new Response('', { status: 503 })
        : new Response(JSON.stringify({ revoked: [], revokedSubjects: [], asOf: 100 }))) as typeof fetch;
    const list = new RevocationList({
      url: 'http://auth.test/revocations',
      logger,
      intervalMs: 30_000,
      maxStalenessMs: 120_000,
      now: () => clock,
      fetchImpl,
    });
    expect(await list.sync()).toBe(true);
    expect(list.health()).toBeUndefined();
    fail = true;
    clock += 100_000;
    expect(await list.sync()).toBe(false);
    expect(list.health()).toBeUndefined(); // still within the limit
    clock += 30_000;
    expect(list.health()).toMatch(/^revocation list is stale \(last refreshed 130 s ago\)$/);
  });

  it('when the revocation list was never loaded, then /health/ready is 503 until it is', async () => {
    const fresh = new RevocationList({ url: `${ctx.forge.url}/revocations`, logger, intervalMs: 60_000 });
    expect(fresh.health()).toBe('revocation list not loaded yet');
    ctx.forge.revocationsStatus = 503;
    try {
      expect(await fresh.sync()).toBe(false);
      expect(fresh.health()).toBe('revocation list not loaded yet');
    } finally {
      ctx.forge.revocationsStatus = undefined;
    }
    expect(await fresh.sync()).toBe(true);
    expect(fresh.health()).toBeUndefined();
    // The app's own list, wired into readiness by composeTenantApi.
    const up = await request(ctx.app).get('/health/ready').expect(200);
    expect(up.body.checks).toEqual({ database: 'ok', tokenKeys: 'ok', revocations: 'ok' });
  });
});

describe('verification before the revocation list was ever loaded (fail closed)', () => {
  it('when the auth-server has not answered yet, then a valid token is 503 with Retry-After, and passes once it answers', async () => {
    const cold = await startTestApp({ checkExonerations: false });
    try {
      await cold.keys.refresh();
      cold.forge.revocationsStatus = 503;
      const ask = () =>
        request(cold.app)
          .post('/api/consultar/emisor')
          .set('Host', cold.host('acme'))
          .set('Authorization', `Bearer ${cold.forge.token('acme')}`)
          .send({ identificacion: 3101123456 });
      const refused = await ask();
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.body).toMatchObject({
        error: 'service_unavailable',
        message: 'token revocations are not loaded from the auth-server yet; retry shortly',
      });
      // A forged token is still a 401, without asking the auth-server.
      const asked = cold.forge.revocationRequests.length;
      const forged = await request(cold.app)
        .post('/api/consultar/emisor')
        .set('Host', cold.host('acme'))
        .set('Authorization', `Bearer ${cold.forge.withBadSignature('acme')}`)
        .send({ identificacion: 3101123456 });
      expect(forged.status).toBe(401);
      // Within the second, a request is refused at once instead of asking again.
      expect((await ask()).status).toBe(503);
      expect(cold.forge.revocationRequests).toHaveLength(asked);

      cold.forge.revocationsStatus = undefined;
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect((await ask()).status).toBe(404); // authenticated: the issuer simply is not registered
      expect(cold.forge.revocationRequests).toHaveLength(asked + 1);
    } finally {
      await cold.close();
    }
  }, 120_000);

  it('when a revoked token is the first one a replica sees, then the list is loaded for it and it is refused', async () => {
    const forge = await new TokenForge().start();
    try {
      const token = forge.token('acme');
      forge.revoke(token);
      const list = new RevocationList({ url: `${forge.url}/revocations`, logger, intervalMs: 60_000 });
      const keys = new JwksKeySource({ jwksUri: forge.jwksUrl, logger });
      const verifier = new TokenVerifier({
        keys,
        revocations: list,
        issuer: TEST_ISSUER,
        audience: TEST_AUDIENCE,
        clockToleranceSeconds: 30,
      });
      // Before this change the list's empty maps answered "not revoked" and the token passed.
      await expect(verifier.verify(token, 'acme')).rejects.toThrow('token has been revoked');
      expect(forge.revocationRequests).toEqual(['/revocations?since=0']);
    } finally {
      await forge.stop();
    }
  });
});
