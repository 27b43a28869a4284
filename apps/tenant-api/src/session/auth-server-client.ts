// The two auth-server calls the dashboard's session makes on the browser's behalf: POST /login with the
// tenant's base and password, and POST /logout with the token (which revokes it). The password passes
// through and is never logged or kept. The sign-in names the browser's address in X-Forwarded-For: the
// auth-server throttles failures per (base, address), and without it every browser of a tenant would share
// this service's address, so anyone failing a few times against a base would hold its dashboard sign-in for
// everybody. The auth-server believes the header only from a peer its TRUST_PROXY trusts (deployed: one hop).
// Both calls carry the browser request's X-Request-Id and traceparent, so the two services' log lines and
// spans of one sign-in link up.
import { AppError, currentRequestId, injectTraceHeaders } from '@cr/service-kit';

export interface AuthServerClient {
  /**
   * The token, or undefined when the auth-server refused the credentials (401). `clientAddress` is the
   * browser's address as this service sees it (`req.ip`), sent on for the auth-server's throttle.
   */
  login(base: string, password: string, clientAddress?: string): Promise<string | undefined>;
  /** Revokes the token at the auth-server. */
  logout(token: string): Promise<void>;
}

export function createAuthServerClient(options: {
  url: string;
  timeoutMs?: number;
  fetchImpl?: typeof fetch;
}): AuthServerClient {
  const base = options.url.replace(/\/$/, '');
  const doFetch = options.fetchImpl ?? fetch;
  const timeout = () => AbortSignal.timeout(options.timeoutMs ?? 10_000);
  async function send(
    path: string,
    init: RequestInit & { headers: Record<string, string> },
    what: string,
  ): Promise<Response> {
    const headers: Record<string, string> = { ...init.headers };
    const requestId = currentRequestId();
    if (requestId) headers['x-request-id'] = requestId;
    injectTraceHeaders(headers);
    try {
      return await doFetch(`${base}${path}`, { ...init, headers, signal: timeout() });
    } catch (err) {
      // The cause (refused, timed out, DNS) goes to the log line of the 502, never into the answer's message.
      throw new AppError('upstream_error', `the auth-server did not answer the ${what}`, { cause: err });
    }
  }
  return {
    async login(login, password, clientAddress) {
      const res = await send(
        '/login',
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(clientAddress ? { 'x-forwarded-for': clientAddress } : {}),
          },
          body: JSON.stringify({ base: login, password }),
        },
        'sign-in',
      );
      if (res.status === 401) return undefined;
      if (res.status === 429) {
        const retry = res.headers.get('retry-after');
        throw new AppError('too_many_requests', 'too many failed logins; retry later', {
          ...(retry ? { headers: { 'Retry-After': retry } } : {}),
        });
      }
      const body = (await res.json().catch(() => undefined)) as { token?: unknown } | undefined;
      if (res.status !== 200 || typeof body?.token !== 'string') {
        throw new AppError('upstream_error', `the auth-server answered the sign-in with ${res.status}`);
      }
      return body.token;
    },
    async logout(token) {
      const res = await send(
        '/logout',
        { method: 'POST', headers: { authorization: `Bearer ${token}` } },
        'sign-out',
      );
      if (res.status === 429) {
        // The password's logouts this minute are spent (the auth-server's LOGOUTS_PER_MINUTE): nothing was
        // revoked. An upstream_error like any sign-out the auth-server did not confirm, which the dashboard
        // shows as a token still valid until it expires; a 429 would read as its own sign-out held back.
        const retry = res.headers.get('retry-after');
        throw new AppError(
          'upstream_error',
          `the auth-server refused the sign-out (too many this minute), so the token is not revoked; retry ${retry ? `in ${retry} s` : 'later'}`,
          retry ? { headers: { 'Retry-After': retry } } : {},
        );
      }
      // 401: the token was already revoked or expired, which is what signing out wants.
      if (res.status !== 200 && res.status !== 401) {
        throw new AppError('upstream_error', `the auth-server answered the sign-out with ${res.status}`);
      }
    },
  };
}
