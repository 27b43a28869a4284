// The IdP (REFERENCE §3): Keycloak's token and logout endpoints for the realms rut-stag (client api-stag)
// and rut (client api-prod). Tokens are RS256 JWTs like Keycloak's; sessions live in the database so that
// logout ends them and a refresh after logout fails as it does on Keycloak; a session lapses with its last
// token (Keycloak's idle timeout), and lapsed sessions are deleted as new ones start.
import {
  createPrivateKey,
  createPublicKey,
  randomUUID,
  scryptSync,
  sign,
  timingSafeEqual,
  verify,
  randomBytes,
} from 'node:crypto';
import express, { type Request, type Response, type Router } from 'express';
import { LRUCache } from 'lru-cache';
import type { Db } from '@cr/service-kit';
import { publicBase } from './public-url';

export const REALM_CLIENTS: Readonly<Record<string, string>> = { 'rut-stag': 'api-stag', rut: 'api-prod' };

export interface IdpOptions {
  db: Db;
  keyPem: string;
  accessTtl: number;
  refreshTtl: number;
  openMode: boolean;
  now: () => Date;
  publicUrl?: string | undefined;
}

export interface AccessClaims {
  sub: string;
  realm: string;
  sid: string;
  username: string;
  exp: number;
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  return `scrypt$${salt.toString('base64')}$${scryptSync(password, salt, 32).toString('base64')}`;
}

function checkPassword(password: string, stored: string): boolean {
  const [, saltB64, hashB64] = stored.split('$');
  if (!saltB64 || !hashB64) return false;
  const expected = Buffer.from(hashB64, 'base64');
  const actual = scryptSync(password, Buffer.from(saltB64, 'base64'), expected.length);
  return timingSafeEqual(expected, actual);
}

export async function upsertUser(db: Db, realm: string, username: string, password: string): Promise<void> {
  await db.query(
    `INSERT INTO idp_users (realm, username, password_hash) VALUES ($1, $2, $3)
     ON CONFLICT (realm, username) DO UPDATE SET password_hash = EXCLUDED.password_hash`,
    [realm, username.toLowerCase(), hashPassword(password)],
  );
}

/** Sessions whose state this process knows; an evicted one is read from the database again. */
const KNOWN_SESSIONS = 10_000;
/** Lapsed sessions deleted by each password grant. */
const LAPSED_BATCH = 100;
const SESSION_SLACK_S = 60;

export class TokenService {
  private readonly privateKey;
  private readonly publicKey;
  /**
   * Whether each session is live, as the database said or as this process made it. Every Hacienda call checks
   * its token's session, two per document; the sessions only ever end through this process's logout (the
   * sandbox runs as one process over its own database) or lapse with their tokens, so what it knows stays
   * true without reading again: a lapsed session's tokens have all expired, and `decode` refuses them before
   * anything asks. An ended session is remembered as such, so a check that read the row before a logout
   * finished cannot mark it live afterwards.
   */
  private readonly sessions = new LRUCache<string, boolean>({ max: KNOWN_SESSIONS });
  constructor(private readonly options: IdpOptions) {
    this.privateKey = createPrivateKey(options.keyPem);
    this.publicKey = createPublicKey(this.privateKey);
  }

  private signJwt(payload: Record<string, unknown>): string {
    const header = b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: 'sandbox' }));
    const body = b64url(JSON.stringify(payload));
    const sig = sign('sha256', Buffer.from(`${header}.${body}`), this.privateKey);
    return `${header}.${body}.${b64url(sig)}`;
  }

  /** Payload of a JWT signed by this IdP that has not expired; undefined otherwise. */
  decode(token: string): Record<string, unknown> | undefined {
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    const [h, p, s] = parts as [string, string, string];
    try {
      const header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as { alg?: string };
      if (header.alg !== 'RS256') return undefined;
      if (!verify('sha256', Buffer.from(`${h}.${p}`), this.publicKey, Buffer.from(s, 'base64url')))
        return undefined;
      const payload = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>;
      if (typeof payload.exp !== 'number' || payload.exp * 1000 <= this.options.now().getTime())
        return undefined;
      return payload;
    } catch {
      return undefined;
    }
  }

  /** The claims of a live access token whose session has not been logged out. */
  async verifyAccess(token: string): Promise<AccessClaims | undefined> {
    const p = this.decode(token);
    if (p?.typ !== 'Bearer' || typeof p.sid !== 'string') return undefined;
    if (!(await this.isLive(p.sid))) return undefined;
    return {
      sub: String(p.sub),
      realm: String(p.realm),
      sid: p.sid,
      username: String(p.preferred_username),
      exp: Number(p.exp),
    };
  }

  /**
   * Whether a session has been started and not logged out. A lapsed one still counts until a login deletes
   * it: every token it issued has expired, so `decode` refused the token before this is asked.
   */
  async isLive(sid: string): Promise<boolean> {
    const known = this.sessions.get(sid);
    if (known !== undefined) return known;
    const r = await this.options.db.query('SELECT ended_at IS NULL AS live FROM idp_sessions WHERE id = $1', [
      sid,
    ]);
    const live = r.rows[0]?.live === true;
    // Only a session the database has is remembered (an unknown id is a forged or foreign token), and never
    // over what a logout recorded meanwhile.
    if (r.rows[0] && !this.sessions.has(sid)) this.sessions.set(sid, live);
    return live;
  }

  /**
   * When a session whose tokens are issued now lapses: when the last of them expires (a minute later, for
   * the request that issues them, whose clock reads on).
   */
  private expiryFromNow(): Date {
    const { accessTtl, refreshTtl, now } = this.options;
    return new Date(now().getTime() + (Math.max(accessTtl, refreshTtl) + SESSION_SLACK_S) * 1000);
  }

  /**
   * Starts a session (the password grant), and deletes up to LAPSED_BATCH lapsed ones (logged out, or past
   * their last token's expiry) in the same statement: each login clears more than it adds, so the table
   * holds the sessions in use rather than every login ever made.
   */
  async startSession(sid: string, realm: string, username: string, clientId: string): Promise<void> {
    await this.options.db.query(
      `WITH lapsed AS (
         DELETE FROM idp_sessions
          WHERE id IN (SELECT id FROM idp_sessions WHERE expires_at < $5 ORDER BY expires_at LIMIT ${LAPSED_BATCH})
       )
       INSERT INTO idp_sessions (id, realm, username, client_id, expires_at) VALUES ($1, $2, $3, $4, $6)`,
      [sid, realm, username, clientId, this.options.now(), this.expiryFromNow()],
    );
    this.sessions.set(sid, true);
  }

  /**
   * Renews a live session for the tokens a refresh grant issues; false when it was logged out or lapsed (a
   * lapsed session is not revived, as Keycloak's idle timeout does not).
   */
  async renewSession(sid: string): Promise<boolean> {
    if (this.sessions.get(sid) === false) return false;
    const r = await this.options.db.query(
      `UPDATE idp_sessions SET expires_at = $3
        WHERE id = $1 AND ended_at IS NULL AND expires_at > $2 RETURNING id`,
      [sid, this.options.now(), this.expiryFromNow()],
    );
    return r.rows.length > 0;
  }

  /** Ends a session (logout): its tokens and its refresh token stop working, and the row lapses at once. */
  async endSession(sid: string): Promise<void> {
    await this.options.db.query(
      'UPDATE idp_sessions SET ended_at = $2, expires_at = $2 WHERE id = $1 AND ended_at IS NULL',
      [sid, this.options.now()],
    );
    // Set even if a check remembered the session meanwhile (a check that read the row before the write).
    this.sessions.set(sid, false);
  }

  issue(realm: string, clientId: string, username: string, sid: string, issuerBase: string) {
    const now = Math.floor(this.options.now().getTime() / 1000);
    const iss = `${issuerBase}/auth/realms/${realm}`;
    const common = { iat: now, iss, sub: username, azp: clientId, session_state: sid, sid, realm };
    const access = this.signJwt({
      ...common,
      jti: randomUUID(),
      exp: now + this.options.accessTtl,
      aud: 'account',
      typ: 'Bearer',
      preferred_username: username,
      scope: 'profile email',
    });
    const refresh = this.signJwt({
      ...common,
      jti: randomUUID(),
      exp: now + this.options.refreshTtl,
      aud: iss,
      typ: 'Refresh',
    });
    return {
      access_token: access,
      expires_in: this.options.accessTtl,
      refresh_expires_in: this.options.refreshTtl,
      refresh_token: refresh,
      token_type: 'bearer',
      'not-before-policy': 0,
      session_state: sid,
      scope: 'profile email',
    };
  }
}

function oauthError(res: Response, status: number, error: string, description: string): void {
  res.status(status).set('Cache-Control', 'no-store').json({ error, error_description: description });
}

function formField(req: Request, name: string): string | undefined {
  const body = req.body as Record<string, unknown> | undefined;
  const v = body?.[name];
  return typeof v === 'string' ? v : undefined;
}

export function createIdpRouter(options: IdpOptions, tokens: TokenService): Router {
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  const { db } = options;

  router.post('/auth/realms/:realm/protocol/openid-connect/token', form, async (req, res) => {
    const realm = String(req.params.realm);
    const expectedClient = REALM_CLIENTS[realm];
    if (!expectedClient) return oauthError(res, 404, 'Realm does not exist', 'Realm does not exist');
    if (!req.is('application/x-www-form-urlencoded')) {
      return oauthError(res, 400, 'invalid_request', 'Missing form parameter: grant_type');
    }
    const clientId = formField(req, 'client_id');
    if (!clientId) return oauthError(res, 401, 'invalid_client', 'Invalid client credentials');
    if (clientId !== expectedClient)
      return oauthError(res, 401, 'invalid_client', 'Invalid client credentials');
    const grant = formField(req, 'grant_type');
    if (grant === 'password') {
      const username = formField(req, 'username')?.toLowerCase();
      const password = formField(req, 'password');
      if (!username || !password) return oauthError(res, 401, 'invalid_grant', 'Invalid user credentials');
      const found = await db.query<{ password_hash: string }>(
        'SELECT password_hash FROM idp_users WHERE realm = $1 AND username = $2',
        [realm, username],
      );
      const row = found.rows[0];
      if (!row) {
        if (!options.openMode) return oauthError(res, 401, 'invalid_grant', 'Invalid user credentials');
        // Open mode: the first password a developer uses becomes the user's password.
        await upsertUser(db, realm, username, password);
      } else if (!checkPassword(password, row.password_hash)) {
        return oauthError(res, 401, 'invalid_grant', 'Invalid user credentials');
      }
      const sid = randomUUID();
      await tokens.startSession(sid, realm, username, clientId);
      return void res
        .set('Cache-Control', 'no-store')
        .json(tokens.issue(realm, clientId, username, sid, publicBase(req, options.publicUrl)));
    }
    if (grant === 'refresh_token') {
      const raw = formField(req, 'refresh_token');
      if (!raw) return oauthError(res, 400, 'invalid_request', 'Missing parameter: refresh_token');
      const p = tokens.decode(raw);
      if (p?.typ !== 'Refresh' || p.realm !== realm) {
        return oauthError(res, 400, 'invalid_grant', 'Invalid refresh token');
      }
      if (p.azp !== clientId)
        return oauthError(
          res,
          400,
          'invalid_grant',
          "Invalid refresh token. Token client and authorized client don't match",
        );
      if (typeof p.sid !== 'string' || !(await tokens.renewSession(p.sid)))
        return oauthError(res, 400, 'invalid_grant', 'Session not active');
      return void res
        .set('Cache-Control', 'no-store')
        .json(
          tokens.issue(realm, clientId, String(p.sub), String(p.sid), publicBase(req, options.publicUrl)),
        );
    }
    if (!grant) return oauthError(res, 400, 'invalid_request', 'Missing form parameter: grant_type');
    return oauthError(res, 400, 'unsupported_grant_type', 'Unsupported grant_type');
  });

  router.post('/auth/realms/:realm/protocol/openid-connect/logout', form, async (req, res) => {
    const realm = String(req.params.realm);
    const expectedClient = REALM_CLIENTS[realm];
    if (!expectedClient) return oauthError(res, 404, 'Realm does not exist', 'Realm does not exist');
    const clientId = formField(req, 'client_id');
    if (clientId !== expectedClient)
      return oauthError(res, 401, 'invalid_client', 'Invalid client credentials');
    const raw = formField(req, 'refresh_token');
    if (!raw) return oauthError(res, 400, 'invalid_request', 'Missing parameter: refresh_token');
    const p = tokens.decode(raw);
    if (p?.typ !== 'Refresh' || p.realm !== realm)
      return oauthError(res, 400, 'invalid_grant', 'Invalid refresh token');
    if (typeof p.sid === 'string') await tokens.endSession(p.sid);
    res.status(204).end();
  });

  return router;
}
