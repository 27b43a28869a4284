// The shared security table every authenticated route runs: each case must be refused with 401
// `unauthorized`, `WWW-Authenticate: Bearer…`, and a message that does not echo the token. A later route
// adds its own suite with `describeSecurityTable('POST /api/…', () => ctx, { method, path, body })`.
import request from 'supertest';
import type { TestApp } from './test-app';

export interface SecurityCase {
  name: string;
  /** The Authorization header to send (undefined: none). */
  authorization: (ctx: TestApp, tenant: string) => string | undefined;
  /** Runs before the request (e.g. revoking the token and syncing the list). */
  before?: (ctx: TestApp, authorization: string | undefined) => Promise<void>;
}

const bearer = (t: string) => `Bearer ${t}`;
const now = () => Math.floor(Date.now() / 1000);

export const SECURITY_CASES: SecurityCase[] = [
  { name: 'the Authorization header is missing', authorization: () => undefined },
  { name: 'the scheme is not Bearer', authorization: (c, t) => `Basic ${c.forge.token(t)}` },
  { name: 'the token is malformed', authorization: () => bearer('not-a-jwt') },
  { name: 'the token has a garbage header', authorization: () => bearer('e30.e30.e30') },
  {
    name: 'the token has expired',
    authorization: (c, t) => bearer(c.forge.token(t, { iat: now() - 30000, exp: now() - 120 })),
  },
  {
    name: 'the audience is wrong',
    authorization: (c, t) => bearer(c.forge.token(t, { aud: 'another-api' })),
  },
  {
    name: 'the issuer is wrong',
    authorization: (c, t) => bearer(c.forge.token(t, { iss: 'http://evil.test' })),
  },
  { name: 'the kid is unknown', authorization: (c, t) => bearer(c.forge.withUnknownKid(t)) },
  { name: 'the signature is forged', authorization: (c, t) => bearer(c.forge.withBadSignature(t)) },
  { name: 'alg is none', authorization: (c, t) => bearer(c.forge.unsigned(t)) },
  {
    name: 'HS256 is signed with the public key',
    authorization: (c, t) => bearer(c.forge.hs256WithPublicKey(t)),
  },
  {
    name: 'the header lists a critical extension (crit)',
    authorization: (c, t) => bearer(c.forge.withCriticalExtension(t)),
  },
  { name: "the token is another tenant's", authorization: (c) => bearer(c.forge.token('other-tenant')) },
  {
    name: 'sub and base disagree',
    authorization: (c, t) => bearer(c.forge.token(t, { sub: 'other-tenant' })),
  },
  {
    name: 'the token has been revoked',
    authorization: (c, t) => bearer(c.forge.token(t)),
    async before(c, authorization) {
      c.forge.revoke(authorization!.slice('Bearer '.length));
      await c.revocations.sync();
    },
  },
];

export interface RouteUnderTest {
  method: 'get' | 'post';
  path: string;
  body?: unknown;
}

/** Registers one test per security case against `route`; `ctx` is read when the tests run. */
export function describeSecurityTable(
  title: string,
  ctx: () => TestApp,
  route: RouteUnderTest,
  tenant = 'acme',
): void {
  describe(`${title}: security table`, () => {
    it('when the token is valid (the control case), then it is not refused', async () => {
      const app = ctx();
      let req = request(app.app)[route.method](route.path).set('Host', app.host(tenant));
      req = req.set('Authorization', bearer(app.forge.token(tenant)));
      const res = await (route.body === undefined ? req : req.send(route.body as object));
      expect(res.status).not.toBe(401);
    });

    it.each(SECURITY_CASES.map((c) => [c.name, c] as const))(
      'when %s, then 401 unauthorized',
      async (_n, c) => {
        const app = ctx();
        const authorization = c.authorization(app, tenant);
        await c.before?.(app, authorization);
        let req = request(app.app)[route.method](route.path).set('Host', app.host(tenant));
        if (authorization !== undefined) req = req.set('Authorization', authorization);
        const res = await (route.body === undefined ? req : req.send(route.body as object));
        expect(res.status).toBe(401);
        expect(res.body).toMatchObject({ error: 'unauthorized', message: expect.any(String) });
        expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
        const token = authorization?.split(' ')[1];
        if (token) {
          expect(res.text).not.toContain(token);
          expect(app.log.text).not.toContain(token);
        }
      },
    );
  });
}
