// Hacienda's IdP (Keycloak OIDC, REFERENCE §3): the password and refresh grants and logout, and a token
// manager that caches one token per (issuer, ambiente) and credentials until shortly before it expires,
// refreshes it (for a bounded time), shares one grant among concurrent callers, and keeps each issuer
// under 10 grants per minute.
// Credentials come in per call and are never logged nor put in an error.
import { createHmac, randomBytes } from 'node:crypto';
import type { Logger } from '@cr/service-kit';
import type { AxiosInstance, AxiosResponse } from 'axios';
import { classifyTransportError, createHttp, parseRetryAfterMs } from './http';
import { type Clock, realClock, realSleep, type Sleep, SlidingWindowLimiter } from './limits';
import { type Ambiente, idpClientId } from './settings';

export interface IdpCredentials {
  username: string;
  password: string;
}

/**
 * The credentials, or a function that reads them: called on every getToken, so a session opened with other
 * credentials is dropped (the caller keeps the read cheap, e.g. decrypting only when they changed).
 */
export type CredentialsSource = IdpCredentials | (() => IdpCredentials | Promise<IdpCredentials>);

export interface IdpTokens {
  accessToken: string;
  /** Seconds. */
  expiresIn: number;
  refreshToken?: string;
  /** Seconds; 0 or absent when the IdP did not say. */
  refreshExpiresIn?: number;
}

export type IdpErrorKind =
  /** The IdP refused the username/password (or the refresh token): fix the issuer's credentials. */
  | 'invalid_credentials'
  /** The IdP throttled us. */
  | 'rate_limited'
  /** 5xx, timeout or connection failure: try again later. */
  | 'unavailable'
  /** Any other answer. */
  | 'unexpected';

export class IdpError extends Error {
  readonly retryable: boolean;
  constructor(
    readonly kind: IdpErrorKind,
    message: string,
    readonly status?: number,
    readonly oauthError?: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'IdpError';
    this.retryable = kind === 'unavailable' || kind === 'rate_limited';
  }
}

export interface IdpClientOptions {
  /** Full token endpoint URL for ambiente 2 (sandbox) and 1 (production). */
  tokenUrlTest: string;
  tokenUrlProd: string;
  /** The whole request, connection to last byte of the answer (`createHttp`). */
  timeoutMs?: number;
  clock?: Clock;
}

/** The bare protocol: one HTTP call per method. */
export class IdpClient {
  private readonly http: AxiosInstance;
  private readonly clock: Clock;

  constructor(private readonly options: IdpClientOptions) {
    this.http = createHttp(undefined, options.timeoutMs ?? 15_000, 'idp');
    this.clock = options.clock ?? realClock;
  }

  tokenUrl(ambiente: Ambiente): string {
    return ambiente === 1 ? this.options.tokenUrlProd : this.options.tokenUrlTest;
  }

  /** Keycloak's logout endpoint sits beside the token endpoint. */
  logoutUrl(ambiente: Ambiente): string {
    return this.tokenUrl(ambiente).replace(/\/token\/?$/, '/logout');
  }

  /** `grant_type=password`, with `client_secret` and `scope` empty as Anexo 3 asks. */
  passwordGrant(ambiente: Ambiente, credentials: IdpCredentials): Promise<IdpTokens> {
    return this.grant(ambiente, {
      grant_type: 'password',
      client_id: idpClientId(ambiente),
      username: credentials.username,
      password: credentials.password,
      client_secret: '',
      scope: '',
    });
  }

  refreshGrant(ambiente: Ambiente, refreshToken: string): Promise<IdpTokens> {
    return this.grant(ambiente, {
      grant_type: 'refresh_token',
      client_id: idpClientId(ambiente),
      refresh_token: refreshToken,
    });
  }

  /** Ends the IdP session; Keycloak answers 204. */
  async logout(ambiente: Ambiente, refreshToken: string): Promise<void> {
    const res = await this.post(this.logoutUrl(ambiente), {
      client_id: idpClientId(ambiente),
      refresh_token: refreshToken,
    });
    if (res.status >= 200 && res.status < 300) return;
    throw this.toError(res);
  }

  private async post(url: string, form: Record<string, string>): Promise<AxiosResponse> {
    try {
      // URLSearchParams form-encodes every character that needs it: ATV passwords carry symbols (§3.1).
      return await this.http.post(url, new URLSearchParams(form).toString(), {
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      });
    } catch (err) {
      const failure = classifyTransportError(err);
      throw new IdpError('unavailable', `Hacienda IdP: ${failure.message}`);
    }
  }

  private async grant(ambiente: Ambiente, form: Record<string, string>): Promise<IdpTokens> {
    const res = await this.post(this.tokenUrl(ambiente), form);
    if (res.status !== 200) throw this.toError(res);
    const body = res.data as Record<string, unknown>;
    if (typeof body?.access_token !== 'string' || body.access_token === '') {
      throw new IdpError('unexpected', 'Hacienda IdP: the token response has no access_token', res.status);
    }
    const expiresIn = Number(body.expires_in);
    const refreshExpiresIn = Number(body.refresh_expires_in);
    return {
      accessToken: body.access_token,
      expiresIn: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : 300,
      ...(typeof body.refresh_token === 'string' && body.refresh_token !== ''
        ? { refreshToken: body.refresh_token }
        : {}),
      ...(Number.isFinite(refreshExpiresIn) ? { refreshExpiresIn } : {}),
    };
  }

  private toError(res: AxiosResponse): IdpError {
    const body = (res.data ?? {}) as { error?: unknown; error_description?: unknown };
    const oauthError = typeof body.error === 'string' ? body.error : undefined;
    // Keycloak's descriptions ("Invalid user credentials", "Token is not active") carry no secret.
    const description = typeof body.error_description === 'string' ? `: ${body.error_description}` : '';
    const what = `Hacienda IdP answered ${res.status}${oauthError ? ` ${oauthError}` : ''}${description}`;
    if (res.status === 429) {
      return new IdpError('rate_limited', what, 429, oauthError, parseRetryAfterMs(res, this.clock()));
    }
    if (res.status >= 500) return new IdpError('unavailable', what, res.status, oauthError);
    if (res.status === 400 || res.status === 401) {
      return new IdpError('invalid_credentials', what, res.status, oauthError);
    }
    return new IdpError('unexpected', what, res.status, oauthError);
  }
}

export interface TokenKey {
  /** Our issuer id (one set of ATV credentials per issuer and ambiente). */
  issuerId: string;
  ambiente: Ambiente;
}

export interface TokenManagerOptions {
  idp: IdpClient;
  /** Renew this long before the access token expires; default 30 s (tokens last 5 min). */
  marginMs?: number;
  /** Token grants (password or refresh) per issuer per minute; default 10. */
  grantsPerMinute?: number;
  /** How long `getToken` may wait for a grant slot before throwing `RateLimitedError`; default 0. */
  maxWaitMs?: number;
  /**
   * Longest a session started by a password grant is kept alive by refresh grants; default 1 h
   * (`MAX_SESSION_MS`). Past it the next renewal signs in again with the password.
   */
  maxSessionMs?: number;
  clock?: Clock;
  sleep?: Sleep;
  logger?: Logger;
}

/**
 * How long a refresh token is taken to last when the IdP does not say (no `refresh_expires_in`): 20 min,
 * the shortest lifetime seen from Hacienda's IdP (REFERENCE §3.2: 10 h, 30 min and 20 min reported).
 * Guessing short costs at most an early password grant; guessing long, a refused refresh and a fallback.
 */
export const DEFAULT_REFRESH_LIFETIME_MS = 20 * 60_000;

/**
 * However long the IdP lets a session live, refresh grants chain it on for at most an hour; then the
 * password is presented again. A credential withdrawn at ATV (not through us) stops working for us within
 * the hour even if Hacienda's IdP keeps old sessions alive, at the cost of one password grant per issuer
 * and ambiente an hour (the limit is 10 a minute).
 */
export const MAX_SESSION_MS = 60 * 60_000;

interface CachedTokens {
  accessToken: string;
  accessExpiresAt: number;
  refreshToken?: string;
  refreshExpiresAt: number;
  /** When the password grant that started this session ends its refresh chain. */
  sessionEndsAt: number;
  /** HMAC of the credentials the session was opened with: other credentials drop it. */
  credentials: string;
}

interface Flight {
  credentials: string;
  promise: Promise<string>;
}

function keyOf(key: TokenKey): string {
  return `${key.issuerId}\u0000${key.ambiente}`;
}

/**
 * Cached, single-flight access tokens per (issuer, ambiente), each bound to the credentials it was got with.
 *
 * `getToken` reads the credentials on every call (a function is called each time: make it cheap, e.g. a
 * cache keyed by the issuer's version) and compares their keyed digest with the cached session's: new
 * credentials drop the old session (logged out at the IdP, best effort) and sign in with the new ones, so
 * every process notices a change on its next call.
 *
 * `getToken` throws `IdpError` (check `retryable`) or `RateLimitedError` (retry after `retryAfterMs`).
 * After a 401 from recepción call `invalidate(key)`: the next `getToken` refreshes.
 */
export class TokenManager {
  private readonly cache = new Map<string, CachedTokens>();
  private readonly inflight = new Map<string, Flight>();
  private readonly limiter: SlidingWindowLimiter;
  private readonly clock: Clock;
  private readonly marginMs: number;
  private readonly maxWaitMs: number;
  private readonly maxSessionMs: number;
  /**
   * Keys the credentials' digest. Random per process and never stored: the digest only has to tell this
   * process's sessions apart, and a heap dump then holds nothing to test password guesses against.
   */
  private readonly digestKey = randomBytes(32);

  constructor(private readonly options: TokenManagerOptions) {
    this.clock = options.clock ?? realClock;
    this.marginMs = options.marginMs ?? 30_000;
    this.maxWaitMs = options.maxWaitMs ?? 0;
    this.maxSessionMs = options.maxSessionMs ?? MAX_SESSION_MS;
    this.limiter = new SlidingWindowLimiter({
      limit: options.grantsPerMinute ?? 10,
      windowMs: 60_000,
      clock: this.clock,
      sleep: options.sleep ?? realSleep,
      name: 'Hacienda token grants',
    });
  }

  async getToken(key: TokenKey, source: CredentialsSource): Promise<string> {
    const id = keyOf(key);
    const credentials = typeof source === 'function' ? await source() : source;
    const digest = this.digestOf(credentials);
    const cached = this.sessionFor(key, id, digest);
    if (cached && this.clock() < cached.accessExpiresAt - this.marginMs) return cached.accessToken;
    const running = this.inflight.get(id);
    if (running?.credentials === digest) return running.promise;
    // A grant with other credentials is under way: let it settle first, so its answer cannot land after
    // (and over) ours; the digest then drops it.
    const before = running ? running.promise.catch(() => undefined) : Promise.resolve(undefined);
    const promise: Promise<string> = before
      .then(() => this.renew(key, id, credentials, digest))
      .finally(() => {
        if (this.inflight.get(id)?.promise === promise) this.inflight.delete(id);
      });
    this.inflight.set(id, { credentials: digest, promise });
    return promise;
  }

  /** Drops the access token (keeps the refresh token): call it when recepción answers 401. */
  invalidate(key: TokenKey): void {
    const cached = this.cache.get(keyOf(key));
    if (cached) cached.accessExpiresAt = 0;
  }

  /** Forgets everything about the key, without telling the IdP. */
  forget(key: TokenKey): void {
    this.cache.delete(keyOf(key));
  }

  /**
   * Forgets the key at once and ends its IdP session in the background (e.g. the issuer's credentials
   * changed). Never rejects: a failed logout is logged (no secret) and the session dies on its own.
   */
  retire(key: TokenKey, reason = 'retired'): Promise<void> {
    const id = keyOf(key);
    const cached = this.cache.get(id);
    this.cache.delete(id);
    return cached ? this.endSession(key, cached, reason) : Promise.resolve();
  }

  /** Ends the IdP session, as Hacienda recommends when done, and forgets the key. */
  async logout(key: TokenKey): Promise<void> {
    const id = keyOf(key);
    const cached = this.cache.get(id);
    this.cache.delete(id);
    if (cached?.refreshToken) await this.options.idp.logout(key.ambiente, cached.refreshToken);
  }

  /** Grants used for the issuer in the last minute (observability, tests). */
  grantsInWindow(issuerId: string): number {
    return this.limiter.count(issuerId);
  }

  private digestOf(credentials: IdpCredentials): string {
    // Length-prefixed, so no username/password split can collide with another.
    return createHmac('sha256', this.digestKey)
      .update(`${credentials.username.length}:${credentials.username}\u0000${credentials.password}`)
      .digest('base64url');
  }

  /** The cached session if it was opened with these credentials; one opened with others is retired. */
  private sessionFor(key: TokenKey, id: string, digest: string): CachedTokens | undefined {
    const cached = this.cache.get(id);
    if (!cached || cached.credentials === digest) return cached;
    this.cache.delete(id);
    void this.endSession(key, cached, 'credentials changed');
    return undefined;
  }

  private async endSession(key: TokenKey, cached: CachedTokens, reason: string): Promise<void> {
    const { idp, logger } = this.options;
    const fields = { issuerId: key.issuerId, ambiente: key.ambiente, reason };
    logger?.info('hacienda idp: session dropped', fields);
    if (!cached.refreshToken || this.clock() >= cached.refreshExpiresAt) return;
    try {
      await idp.logout(key.ambiente, cached.refreshToken);
    } catch (err) {
      const detail = err instanceof IdpError ? { kind: err.kind, status: err.status } : {};
      logger?.info('hacienda idp: logout of a dropped session failed', { ...fields, ...detail });
    }
  }

  private async renew(
    key: TokenKey,
    id: string,
    credentials: IdpCredentials,
    digest: string,
  ): Promise<string> {
    const { idp, logger } = this.options;
    const cached = this.sessionFor(key, id, digest);
    const now = this.clock();
    if (cached?.refreshToken && now < cached.refreshExpiresAt - this.marginMs) {
      if (now < cached.sessionEndsAt) {
        await this.limiter.acquire(key.issuerId, this.maxWaitMs);
        try {
          const tokens = await idp.refreshGrant(key.ambiente, cached.refreshToken);
          return this.store(id, tokens, digest, cached.sessionEndsAt);
        } catch (err) {
          if (!(err instanceof IdpError) || err.kind !== 'invalid_credentials') throw err;
          // The session ended on the IdP side (expired, logged out, restarted): start a new one.
          logger?.info('hacienda idp: refresh refused, using the password grant', {
            issuerId: key.issuerId,
            ambiente: key.ambiente,
          });
        }
      } else {
        // The refresh chain reached its bound: present the password again, and close the old session.
        this.cache.delete(id);
        void this.endSession(key, cached, 'session reached its maximum age');
      }
    }
    this.cache.delete(id);
    await this.limiter.acquire(key.issuerId, this.maxWaitMs);
    try {
      const tokens = await idp.passwordGrant(key.ambiente, credentials);
      return this.store(id, tokens, digest, this.clock() + this.maxSessionMs);
    } catch (err) {
      if (err instanceof IdpError) {
        logger?.warn('hacienda idp: password grant failed', {
          issuerId: key.issuerId,
          ambiente: key.ambiente,
          kind: err.kind,
          status: err.status,
        });
      }
      throw err;
    }
  }

  private store(id: string, tokens: IdpTokens, digest: string, sessionEndsAt: number): string {
    const now = this.clock();
    const refreshLifetimeMs =
      tokens.refreshExpiresIn && tokens.refreshExpiresIn > 0
        ? tokens.refreshExpiresIn * 1000
        : DEFAULT_REFRESH_LIFETIME_MS;
    this.cache.set(id, {
      accessToken: tokens.accessToken,
      accessExpiresAt: now + tokens.expiresIn * 1000,
      ...(tokens.refreshToken ? { refreshToken: tokens.refreshToken } : {}),
      refreshExpiresAt: now + refreshLifetimeMs,
      sessionEndsAt,
      credentials: digest,
    });
    return tokens.accessToken;
  }
}
