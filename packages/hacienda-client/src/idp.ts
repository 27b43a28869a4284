// Hacienda's IdP (Keycloak OIDC, REFERENCE §3): the password and refresh grants and logout, and a token
// manager that caches one token per (issuer, ambiente) until shortly before it expires, refreshes it,
// shares one grant among concurrent callers, and keeps each issuer under 10 grants per minute.
// Credentials come in per call and are never logged nor put in an error.
import type { Logger } from '@cr/service-kit';
import type { AxiosInstance, AxiosResponse } from 'axios';
import { classifyTransportError, createHttp, parseRetryAfterMs } from './http';
import { type Clock, realClock, realSleep, type Sleep, SlidingWindowLimiter } from './limits';
import { type Ambiente, idpClientId } from './settings';

export interface IdpCredentials {
  username: string;
  password: string;
}

/** The credentials, or a function that decrypts them only when a grant is really needed. */
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
  clock?: Clock;
  sleep?: Sleep;
  logger?: Logger;
}

interface CachedTokens {
  accessToken: string;
  accessExpiresAt: number;
  refreshToken?: string;
  refreshExpiresAt: number;
}

function keyOf(key: TokenKey): string {
  return `${key.issuerId}\u0000${key.ambiente}`;
}

/**
 * Cached, single-flight access tokens per (issuer, ambiente).
 *
 * `getToken` throws `IdpError` (check `retryable`) or `RateLimitedError` (retry after `retryAfterMs`).
 * After a 401 from recepción call `invalidate(key)`: the next `getToken` refreshes.
 */
export class TokenManager {
  private readonly cache = new Map<string, CachedTokens>();
  private readonly inflight = new Map<string, Promise<string>>();
  private readonly limiter: SlidingWindowLimiter;
  private readonly clock: Clock;
  private readonly marginMs: number;
  private readonly maxWaitMs: number;

  constructor(private readonly options: TokenManagerOptions) {
    this.clock = options.clock ?? realClock;
    this.marginMs = options.marginMs ?? 30_000;
    this.maxWaitMs = options.maxWaitMs ?? 0;
    this.limiter = new SlidingWindowLimiter({
      limit: options.grantsPerMinute ?? 10,
      windowMs: 60_000,
      clock: this.clock,
      sleep: options.sleep ?? realSleep,
      name: 'Hacienda token grants',
    });
  }

  async getToken(key: TokenKey, credentials: CredentialsSource): Promise<string> {
    const id = keyOf(key);
    const cached = this.cache.get(id);
    if (cached && this.clock() < cached.accessExpiresAt - this.marginMs) return cached.accessToken;
    const running = this.inflight.get(id);
    if (running) return running;
    const flight = this.renew(key, id, credentials).finally(() => this.inflight.delete(id));
    this.inflight.set(id, flight);
    return flight;
  }

  /** Drops the access token (keeps the refresh token): call it when recepción answers 401. */
  invalidate(key: TokenKey): void {
    const cached = this.cache.get(keyOf(key));
    if (cached) cached.accessExpiresAt = 0;
  }

  /** Forgets everything about the key (e.g. the issuer's credentials changed). */
  forget(key: TokenKey): void {
    this.cache.delete(keyOf(key));
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

  private async renew(key: TokenKey, id: string, credentials: CredentialsSource): Promise<string> {
    const { idp, logger } = this.options;
    const cached = this.cache.get(id);
    if (cached?.refreshToken && this.clock() < cached.refreshExpiresAt - this.marginMs) {
      await this.limiter.acquire(key.issuerId, this.maxWaitMs);
      try {
        return this.store(id, await idp.refreshGrant(key.ambiente, cached.refreshToken));
      } catch (err) {
        if (!(err instanceof IdpError) || err.kind !== 'invalid_credentials') throw err;
        // The session ended on the IdP side (expired, logged out, restarted): start a new one.
        logger?.info('hacienda idp: refresh refused, using the password grant', {
          issuerId: key.issuerId,
          ambiente: key.ambiente,
        });
      }
    }
    this.cache.delete(id);
    await this.limiter.acquire(key.issuerId, this.maxWaitMs);
    const creds = typeof credentials === 'function' ? await credentials() : credentials;
    try {
      return this.store(id, await idp.passwordGrant(key.ambiente, creds));
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

  private store(id: string, tokens: IdpTokens): string {
    const now = this.clock();
    const refreshExpiresAt =
      tokens.refreshExpiresIn && tokens.refreshExpiresIn > 0
        ? now + tokens.refreshExpiresIn * 1000
        : Number.POSITIVE_INFINITY;
    this.cache.set(id, {
      accessToken: tokens.accessToken,
      accessExpiresAt: now + tokens.expiresIn * 1000,
      ...(tokens.refreshToken ? { refreshToken: tokens.refreshToken } : {}),
      refreshExpiresAt,
    });
    return tokens.accessToken;
  }
}
