// The whole trust chain with the real auth-server running as its own process: a client created through its
// admin API logs in, and the tenant-api verifies that token through jwks-rsa against the live JWKS, honours
// the live revocation list, and refuses the same token at another tenant's host. The dashboard's sign-in
// through it is throttled per browser address, not per this service's.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AppProcess, startApp } from '@cr/testkit';
import type { Express } from 'express';
import request from 'supertest';
import type { RevocationList } from '../src/auth/revocation-list';
import { issuerBody } from './support/issuer-mother';
import { type TestApp, startTestApp } from './support/test-app';

const ADMIN_TOKEN = 'admin-token-for-the-real-auth-server-test';
const ISSUER = 'http://auth.test.local';
const AUDIENCE = 'tenant-api';

let auth: AppProcess;
let dataDir: string;
let ctx: TestApp;
let app: Express;
let revocations: RevocationList;

async function createClient(base: string, password: string): Promise<void> {
  const r = await fetch(`${auth.url}/admin/clients`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ base, password }),
  });
  expect(r.status).toBe(201);
}

async function login(base: string, password: string): Promise<string> {
  const r = await fetch(`${auth.url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ base, password }),
  });
  expect(r.status).toBe(200);
  return ((await r.json()) as { token: string }).token;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'auth-server-'));
  auth = await startApp({
    app: 'auth-server',
    portVar: 'AUTH_PORT',
    env: {
      DATA_DIR: dataDir,
      DATABASE_URL: undefined,
      AUTH_ISSUER: ISSUER,
      AUTH_AUDIENCE: AUDIENCE,
      AUTH_ADMIN_TOKEN: ADMIN_TOKEN,
      // As deployed: one trusted hop, so the tenant-api can name the browser's address for the throttle.
      TRUST_PROXY: 'true',
      // Two logouts per credential and minute, so the dashboard's sign-out meets the limit below.
      LOGOUTS_PER_MINUTE: '2',
      LOG_LEVEL: 'warn',
    },
    timeoutMs: 90_000,
  });
  ctx = await startTestApp({
    auth: {
      jwksUrl: `${auth.url}/.well-known/jwks.json`,
      revocationsUrl: `${auth.url}/revocations`,
      issuer: ISSUER,
      audience: AUDIENCE,
    },
  });
  app = ctx.app;
  revocations = ctx.revocations;
  await createClient('acme', 'acme-password-123');
  await createClient('globex', 'globex-password-123');
}, 120_000);

afterAll(async () => {
  await auth?.stop();
  await ctx?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the dashboard sign-in through the real auth-server, behind a gateway', () => {
  let behindGateway: TestApp;
  beforeAll(async () => {
    behindGateway = await startTestApp({
      trustProxy: 'true',
      auth: {
        jwksUrl: `${auth.url}/.well-known/jwks.json`,
        revocationsUrl: `${auth.url}/revocations`,
        issuer: ISSUER,
        audience: AUDIENCE,
      },
    });
    await createClient('initech', 'initech-password-123');
  }, 120_000);
  afterAll(() => behindGateway?.close());

  const signIn = (address: string, password: string) =>
    request(behindGateway.app)
      .post('/app/session')
      .set('Host', behindGateway.host('initech'))
      .set('X-Forwarded-For', address)
      .send({ base: 'initech', password });

  it('when one address fails until the auth-server holds it back, then a browser elsewhere still signs in to that base', async () => {
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof signIn>> | undefined;
    while (statuses.length < 12 && last?.status !== 429) {
      last = await signIn('203.0.113.66', 'not-the-password');
      statuses.push(last.status);
    }
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.slice(0, -1).every((s) => s === 401)).toBe(true);
    expect(Number(last?.headers['retry-after'])).toBeGreaterThan(0);
    // Before the address was sent on, every browser shared this service's, and this was 429 too.
    const elsewhere = await signIn('198.51.100.7', 'initech-password-123');
    expect(elsewhere.status).toBe(200);
    expect(String(elsewhere.headers['set-cookie'])).toMatch(/^__Host-cr_session=/);
  });

  it("when the password's logouts this minute are spent, then the sign-out is the 502 of an unconfirmed one, with the auth-server's Retry-After and the cookie cleared", async () => {
    await createClient('umbrella', 'umbrella-password-123');
    const signOut = async () => {
      const token = await login('umbrella', 'umbrella-password-123');
      return request(behindGateway.app)
        .delete('/app/session')
        .set('Host', behindGateway.host('umbrella'))
        .set('Cookie', `__Host-cr_session=${token}`)
        .set('X-CSRF-Token', createHash('sha256').update(token).digest('base64url'));
    };
    // LOGOUTS_PER_MINUTE is 2: the third sign-out in a minute is refused, the fifth at the latest if a minute
    // turns between them.
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof signOut>> | undefined;
    while (statuses.length < 5 && last?.status !== 502) {
      last = await signOut();
      statuses.push(last.status);
    }
    expect(statuses.slice(0, -1).every((s) => s === 200)).toBe(true);
    expect(last?.status).toBe(502);
    // upstream_error: the dashboard tells the person the token stays valid until it expires.
    expect(last?.body.error).toBe('upstream_error');
    expect(last?.body.message).toMatch(
      /^the auth-server refused the sign-out \(too many this minute\), so the token is not revoked; retry in \d+ s; the cookie was cleared$/,
    );
    expect(Number(last?.headers['retry-after'])).toBeGreaterThan(0);
    expect(String(last?.headers['set-cookie'])).toMatch(/^__Host-cr_session=;/);
  });
});

describe('tenant-api with the real auth-server', () => {
  it('when a client logs in, then its token registers and consults an issuer at its own host', async () => {
    const token = await login('acme', 'acme-password-123');
    const created = await request(app)
      .post('/api/enviar/emisor')
      .set('Host', 'acme.localhost')
      .set('Authorization', `Bearer ${token}`)
      .send(issuerBody());
    expect(created.status).toBe(200);
    const found = await request(app)
      .post('/api/consultar/emisor')
      .set('Host', 'acme.localhost')
      .set('Authorization', `Bearer ${token}`)
      .send({ identificacion: 3101123456 });
    expect(found.status).toBe(200);
    expect(found.body.data.identificacion).toBe(3101123456);
  });

  it("when another client's real token is used at acme's host, then it is refused", async () => {
    const token = await login('globex', 'globex-password-123');
    const r = await request(app)
      .post('/api/consultar/emisor')
      .set('Host', 'acme.localhost')
      .set('Authorization', `Bearer ${token}`)
      .send({ identificacion: 3101123456 });
    expect(r.status).toBe(401);
    expect(r.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it('when the client logs out, then its token is refused once the revocation list is refreshed', async () => {
    const token = await login('acme', 'acme-password-123');
    const ask = () =>
      request(app)
        .post('/api/consultar/emisor')
        .set('Host', 'acme.localhost')
        .set('Authorization', `Bearer ${token}`)
        .send({ identificacion: 3101123456 });
    expect((await ask()).status).toBe(200);
    const out = await fetch(`${auth.url}/logout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(out.status).toBeLessThan(300);
    expect(await revocations.sync()).toBe(true);
    const refused = await ask();
    expect(refused.status).toBe(401);
    expect(JSON.stringify(refused.body)).not.toContain(token);
  });

  it('when the admin disables the client, then the token it already holds is refused after the next poll', async () => {
    await createClient('hooli', 'hooli-password-123');
    const token = await login('hooli', 'hooli-password-123');
    const ask = () =>
      request(app)
        .post('/api/consultar/emisor')
        .set('Host', 'hooli.localhost')
        .set('Authorization', `Bearer ${token}`)
        .send({ identificacion: 3101123456 });
    expect((await ask()).status).toBe(404);
    const off = await fetch(`${auth.url}/admin/clients/hooli`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ disabled: true }),
    });
    expect(off.status).toBe(200);
    expect(await revocations.sync()).toBe(true);
    const refused = await ask();
    expect(refused.status).toBe(401);
    expect(refused.body.message).toBe('token has been revoked');
  });

  it('when the admin retires the signing key, then its tokens are refused once the JWKS is refetched', async () => {
    const token = await login('acme', 'acme-password-123');
    const kid = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).kid as string;
    const ask = (t: string) =>
      request(app)
        .post('/api/consultar/emisor')
        .set('Host', 'acme.localhost')
        .set('Authorization', `Bearer ${t}`)
        .send({ identificacion: 3101123456 });
    expect((await ask(token)).status).toBe(200);
    const retired = await fetch(`${auth.url}/admin/keys/${kid}/retire`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(retired.status).toBe(200);
    // What the key source does when the JWKS's max-age runs out (tested on its own with a clock).
    expect(await ctx.keys.refresh()).toBe(true);
    expect(ctx.keys.kids()).not.toContain(kid);
    const refused = await ask(token);
    expect(refused.status).toBe(401);
    expect(refused.body.message).toBe('token signing key is unknown');
    // A login after the retirement is signed by the successor and accepted.
    expect((await ask(await login('acme', 'acme-password-123'))).status).toBe(200);
  });
});
