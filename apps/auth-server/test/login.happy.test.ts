import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import jwt from 'jsonwebtoken';
import jwksRsa from 'jwks-rsa';
import request from 'supertest';
import { TokenClaims, validate } from '@cr/contracts';
import { thumbprintOf } from '../src/keys';
import { OWASP_ARGON2 } from '../src/passwords';
import {
  ADMIN_TOKEN,
  type ListeningHarness,
  TEST_ARGON2,
  admin,
  startHarness,
  startListeningHarness,
} from './helpers';

describe('POST /login (happy path)', () => {
  let h: ListeningHarness;

  beforeAll(async () => {
    h = await startListeningHarness();
    await request(h.app)
      .post('/admin/clients')
      .set(admin())
      .send({ base: 'acme', password: 'correct-horse-1' })
      .expect(201);
  });
  afterAll(async () => {
    await h.close();
  });

  it('when the credentials are right, then the token verifies through jwks-rsa against the live JWKS with exact claims', async () => {
    const res = await request(h.app)
      .post('/login')
      .send({ base: 'acme', password: 'correct-horse-1' })
      .expect(200);
    expect(res.body).toEqual({ token: expect.any(String), expires_in: 28800, token_type: 'Bearer' });
    expect(res.headers['cache-control']).toBe('no-store');

    const header = jwt.decode(res.body.token, { complete: true })!.header;
    expect(header.alg).toBe('RS256');
    const client = jwksRsa({ jwksUri: `${h.url}/.well-known/jwks.json`, cache: false });
    const key = await client.getSigningKey(header.kid);
    const claims = jwt.verify(res.body.token, key.getPublicKey(), {
      algorithms: ['RS256'],
      issuer: 'http://localhost:4000',
      audience: 'tenant-api',
      clockTimestamp: h.clock.now / 1000,
    }) as TokenClaims;

    const iat = h.clock.now / 1000;
    expect(claims).toEqual({
      iss: 'http://localhost:4000',
      aud: 'tenant-api',
      iat,
      exp: iat + 28800,
      jti: expect.any(String),
      sub: 'acme',
      base: 'acme',
    });
    expect(validate(TokenClaims, claims).ok).toBe(true);
  });

  it('when logging in twice, then each token has its own jti', async () => {
    const a = await request(h.app).post('/login').send({ base: 'acme', password: 'correct-horse-1' });
    const b = await request(h.app).post('/login').send({ base: 'acme', password: 'correct-horse-1' });
    const ja = (jwt.decode(a.body.token) as TokenClaims).jti;
    const jb = (jwt.decode(b.body.token) as TokenClaims).jti;
    expect(ja).not.toBe(jb);
  });

  it('serves the JWKS with only public members, its media type, a short cache, and kid = RFC 7638 thumbprint', async () => {
    const res = await request(h.app).get('/.well-known/jwks.json').expect(200);
    expect(res.headers['content-type']).toBe('application/jwk-set+json');
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    const jwks = JSON.parse(res.text) as { keys: Array<Record<string, string>> };
    expect(jwks.keys).toHaveLength(2); // current + published next
    for (const k of jwks.keys) {
      expect(Object.keys(k).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
      expect(k).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
      expect(k.kid).toBe(thumbprintOf({ e: k.e!, n: k.n! }));
    }
  });

  it('when the PEM is exported with `admin keys:export-public`, then jsonwebtoken verifies a token with it', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'auth-pem-')), 'key.pem');
    // Asynchronous: the server under test runs in this process and must keep answering.
    await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', join(__dirname, '..', 'src', 'cli.ts'), 'keys:export-public', '--out', out],
      { env: { ...process.env, NODE_OPTIONS: '', AUTH_URL: h.url, AUTH_ADMIN_TOKEN: ADMIN_TOKEN } },
    );
    const pem = readFileSync(out, 'utf8');
    expect(pem).toMatch(/^-----BEGIN PUBLIC KEY-----/);

    const res = await request(h.app)
      .post('/login')
      .send({ base: 'acme', password: 'correct-horse-1' })
      .expect(200);
    const claims = jwt.verify(res.body.token, pem, {
      algorithms: ['RS256'],
      issuer: 'http://localhost:4000',
      audience: 'tenant-api',
      clockTimestamp: h.clock.now / 1000,
    }) as TokenClaims;
    expect(claims.exp - claims.iat).toBe(28800);
  });

  it("when `admin keys:export-public` gets a relative --out under pnpm, then the file lands in the caller's directory (INIT_CWD)", async () => {
    // pnpm runs the CLI inside apps/auth-server and names the caller's directory in INIT_CWD.
    const caller = mkdtempSync(join(tmpdir(), 'auth-pem-caller-'));
    const scriptDir = mkdtempSync(join(tmpdir(), 'auth-pem-script-'));
    try {
      await promisify(execFile)(
        process.execPath,
        [
          '--import',
          pathToFileURL(require.resolve('tsx')).href, // found from here: the child runs elsewhere
          join(__dirname, '..', 'src', 'cli.ts'),
          'keys:export-public',
          '--out',
          'key.pem',
        ],
        {
          cwd: scriptDir,
          env: {
            ...process.env,
            NODE_OPTIONS: '',
            INIT_CWD: caller,
            AUTH_URL: h.url,
            AUTH_ADMIN_TOKEN: ADMIN_TOKEN,
          },
        },
      );
      expect(readFileSync(join(caller, 'key.pem'), 'utf8')).toMatch(/^-----BEGIN PUBLIC KEY-----/);
      expect(existsSync(join(scriptDir, 'key.pem'))).toBe(false);
    } finally {
      rmSync(caller, { recursive: true, force: true });
      rmSync(scriptDir, { recursive: true, force: true });
    }
  });

  it('when the argon2 parameters changed since the hash was made, then a login upgrades the stored hash', async () => {
    const before = await h.services.clients.find('acme');
    expect(before!.passwordHash).toContain('m=1024,t=1,p=1');
    const upgraded = await startHarness({ argon2: OWASP_ARGON2 });
    try {
      await upgraded.services.clients.create('acme', before!.passwordHash);
      await request(upgraded.app)
        .post('/login')
        .send({ base: 'acme', password: 'correct-horse-1' })
        .expect(200);
      let after = await upgraded.services.clients.find('acme');
      for (let i = 0; i < 50 && after!.passwordHash === before!.passwordHash; i++) {
        await new Promise((r) => setTimeout(r, 20));
        after = await upgraded.services.clients.find('acme');
      }
      expect(after!.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
      await request(upgraded.app)
        .post('/login')
        .send({ base: 'acme', password: 'correct-horse-1' })
        .expect(200);
    } finally {
      await upgraded.close();
    }
    expect(TEST_ARGON2.memoryCost).toBe(1024);
  });

  it('answers the health endpoints', async () => {
    await request(h.app).get('/health/live').expect(200, { status: 'ok' });
    const ready = await request(h.app).get('/health/ready').expect(200);
    expect(ready.body.checks).toEqual({ database: 'ok', signingKey: 'ok' });
    await request(h.app).get('/health').expect(200);
  });
});
