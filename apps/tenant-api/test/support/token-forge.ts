// The token side of component tests: our own RSA keys served from a local JWKS HTTP server (with the
// auth-server's /revocations beside it), and tokens crafted the way a client or an attacker would: valid,
// expired, for another audience or issuer, with an unknown kid, `alg: none`, HS256 keyed with the public key,
// a critical header extension.
import { createHash, createHmac, generateKeyPairSync, type KeyObject, randomUUID, sign } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';

export const TEST_ISSUER = 'http://auth.test';
export const TEST_AUDIENCE = 'tenant-api';

interface TestKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

function thumbprint(publicKey: KeyObject): string {
  const jwk = publicKey.export({ format: 'jwk' });
  return createHash('sha256')
    .update(JSON.stringify({ e: jwk.e, kty: 'RSA', n: jwk.n }))
    .digest('base64url');
}

function makeKey(): TestKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid: thumbprint(publicKey), privateKey, publicKey };
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

export interface ClaimOverrides {
  iss?: string;
  aud?: string;
  sub?: string;
  base?: string;
  jti?: string;
  iat?: number;
  exp?: number;
  /** An API key's token: its scopes (space-separated) and its id. */
  scope?: string;
  akid?: string;
}

// Generated once per test file: RSA key generation is the slow part of starting a test app.
let sharedKeys: { published: TestKey; stranger: TestKey } | undefined;

export class TokenForge {
  readonly published: TestKey;
  /** A key the JWKS never publishes. */
  readonly stranger: TestKey;

  constructor() {
    sharedKeys ??= { published: makeKey(), stranger: makeKey() };
    this.published = sharedKeys.published;
    this.stranger = sharedKeys.stranger;
  }

  readonly revoked: Array<{ jti: string; exp: number }> = [];
  /** Subjects revoked as the auth-server does on disable, delete and password change. */
  readonly revokedSubjects: Array<{ sub: string; notBefore: number }> = [];
  /** The keys the JWKS publishes (default: the published key); a test may withdraw one. */
  jwksKeys: TestKey[] | undefined;
  /** Cache-Control of the JWKS response (default none). */
  jwksCacheControl: string | undefined;
  /** When set, /revocations answers this status instead of the list. */
  revocationsStatus: number | undefined;
  jwksRequests = 0;
  revocationRequests: string[] = [];
  private server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      if (req.url?.startsWith('/.well-known/jwks.json')) {
        this.jwksRequests++;
        const keys = (this.jwksKeys ?? [this.published]).map((k) => ({
          ...k.publicKey.export({ format: 'jwk' }),
          kid: k.kid,
          alg: 'RS256',
          use: 'sig',
        }));
        res.setHeader('content-type', 'application/json');
        if (this.jwksCacheControl) res.setHeader('cache-control', this.jwksCacheControl);
        res.end(JSON.stringify({ keys }));
        return;
      }
      if (req.url?.startsWith('/revocations')) {
        this.revocationRequests.push(req.url);
        if (this.revocationsStatus) {
          res.statusCode = this.revocationsStatus;
          res.end();
          return;
        }
        res.setHeader('content-type', 'application/json');
        // As the auth-server: everything (the forge keeps no revocation times), and its own cursor.
        res.end(
          JSON.stringify({
            revoked: this.revoked,
            revokedSubjects: this.revokedSubjects,
            asOf: this.asOf ?? Math.floor(Date.now() / 1000) - 5,
          }),
        );
        return;
      }
      res.statusCode = 404;
      res.end();
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  get jwksUrl(): string {
    return `${this.url}/.well-known/jwks.json`;
  }

  get publicKeyPem(): string {
    return this.published.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  }

  async stop(): Promise<void> {
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }

  claims(tenant: string, overrides: ClaimOverrides = {}): ClaimOverrides {
    const iat = Math.floor(Date.now() / 1000);
    return {
      iss: TEST_ISSUER,
      aud: TEST_AUDIENCE,
      sub: tenant,
      base: tenant,
      jti: randomUUID(),
      iat,
      exp: iat + 28800,
      ...overrides,
    };
  }

  /** A valid RS256 token for `tenant` signed with the published key. */
  token(tenant: string, overrides: ClaimOverrides = {}, key: TestKey = this.published): string {
    return jwt.sign(this.claims(tenant, overrides), key.privateKey, {
      algorithm: 'RS256',
      keyid: key.kid,
    });
  }

  withUnknownKid(tenant: string): string {
    return this.token(tenant, {}, this.stranger);
  }

  /** Signed with the stranger key but claiming the published kid: a forged signature. */
  withBadSignature(tenant: string): string {
    return jwt.sign(this.claims(tenant), this.stranger.privateKey, {
      algorithm: 'RS256',
      keyid: this.published.kid,
    });
  }

  /** Valid in every other way, but its header lists a critical extension (`crit`) nobody here understands. */
  withCriticalExtension(tenant: string): string {
    const header = { alg: 'RS256', typ: 'JWT', kid: this.published.kid, crit: ['x'], x: 1 };
    const head = `${b64(header)}.${b64(this.claims(tenant))}`;
    return `${head}.${sign('sha256', Buffer.from(head), this.published.privateKey).toString('base64url')}`;
  }

  unsigned(tenant: string): string {
    return `${b64({ alg: 'none', typ: 'JWT', kid: this.published.kid })}.${b64(this.claims(tenant))}.`;
  }

  /** The classic confusion attack: HS256 with the server's public key PEM as the HMAC secret. */
  hs256WithPublicKey(tenant: string): string {
    const head = `${b64({ alg: 'HS256', typ: 'JWT', kid: this.published.kid })}.${b64(this.claims(tenant))}`;
    return `${head}.${createHmac('sha256', this.publicKeyPem).update(head).digest('base64url')}`;
  }

  /** The cursor /revocations answers (default: now − 5 s, as the auth-server). */
  asOf: number | undefined;

  revoke(token: string): void {
    const payload = jwt.decode(token) as { jti: string; exp: number };
    this.revoked.push({ jti: payload.jti, exp: payload.exp });
  }
}
