// Holds the access token: logs in when there is none, logs in again shortly before `exp` (read from the
// token itself) so a long-running process never sends an expired one, and shares one login between
// concurrent calls. With a bare token and no credentials it cannot renew, and says so before sending.
import { AuthenticationError, TokenExpiredError } from './errors';

/**
 * How the client logs in: its password (every scope), or an API key (`crk_…`, created by the operator) for a
 * machine client, whose token carries only the key's scopes.
 */
export type Credentials = { base: string; password: string } | { base: string; apiKey: string };

export interface AccessToken {
  token: string;
  /** Expiry, Unix seconds. */
  exp: number;
}

export interface TokenManagerOptions {
  credentials?: Credentials | undefined;
  token?: string | undefined;
  /** Renew this many seconds before `exp`. */
  refreshBeforeSeconds: number;
  login: (credentials: Credentials) => Promise<{ token: string; expires_in: number }>;
  onToken?: ((token: AccessToken) => void) | undefined;
  now?: () => number;
}

/** The `exp` claim of a JWT, without verifying it (the service does); undefined when unreadable. */
export function tokenExpiry(token: string): number | undefined {
  const payload = token.split('.')[1];
  if (!payload) return undefined;
  try {
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
    const exp = (JSON.parse(json) as { exp?: unknown }).exp;
    return typeof exp === 'number' ? exp : undefined;
  } catch {
    return undefined;
  }
}

export class TokenManager {
  private current: AccessToken | undefined;
  private pending: Promise<AccessToken> | undefined;
  private readonly now: () => number;

  constructor(private readonly options: TokenManagerOptions) {
    this.now = options.now ?? (() => Date.now() / 1000);
    if (options.token) this.current = { token: options.token, exp: tokenExpiry(options.token) ?? Infinity };
  }

  get canLogin(): boolean {
    return this.options.credentials !== undefined;
  }

  /** The token in hand, if any (for callers that store it). */
  peek(): AccessToken | undefined {
    return this.current;
  }

  /** A token valid for at least `refreshBeforeSeconds` more, logging in when needed. */
  async bearer(): Promise<string> {
    const c = this.current;
    if (c && c.exp - this.now() > this.options.refreshBeforeSeconds) return c.token;
    if (!this.options.credentials) {
      if (!c) throw new AuthenticationError('unauthorized', 'no token and no credentials: log in first');
      if (c.exp <= this.now())
        throw new TokenExpiredError(
          'token_expired',
          `the access token expired at ${new Date(c.exp * 1000).toISOString()}; log in again`,
        );
      return c.token;
    }
    return (await this.login()).token;
  }

  /** Logs in now (single flight: concurrent callers share one request). */
  login(): Promise<AccessToken> {
    const credentials = this.options.credentials;
    if (!credentials)
      return Promise.reject(new AuthenticationError('unauthorized', 'no credentials to log in with'));
    this.pending ??= this.options
      .login(credentials)
      .then((r) => {
        const token = { token: r.token, exp: tokenExpiry(r.token) ?? Math.floor(this.now()) + r.expires_in };
        this.current = token;
        this.options.onToken?.(token);
        return token;
      })
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }

  /** Forgets `token` after the service refused it (revoked, keys rotated), so the next call logs in. */
  invalidate(token: string): void {
    if (this.current?.token === token) this.current = undefined;
  }

  clear(): void {
    this.current = undefined;
  }
}
