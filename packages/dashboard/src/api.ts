// Calls from the page to the tenant-api of its own host. The session is the httpOnly cookie the browser
// sends by itself; every state-changing call also carries X-CSRF-Token (the session's value, read from
// GET /app/session), which the server checks for cookie-authenticated requests.
let csrf: string | undefined;
let sessionEnded: (() => void) | undefined;

export function setCsrf(value: string | undefined): void {
  csrf = value;
}

/**
 * `handler` runs when an /api call answers 401: the session ended while the page was open (the cookie
 * reached its Max-Age, or the token expired or was revoked). Every later call would fail the same way, so
 * the app goes back to its sign-in form rather than staying signed in with only an error line to show.
 */
export function onSessionEnded(handler: (() => void) | undefined): void {
  sessionEnded = handler;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The call never had an answer: fetch itself failed (offline, the server down, the connection cut). */
export class NetworkError extends Error {}

export async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrf) headers['x-csrf-token'] = csrf;
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch (err) {
    // A TypeError whose message is only the browser's ("Failed to fetch"): named, so the page can say so.
    throw new NetworkError(err instanceof Error ? err.message : String(err), { cause: err });
  }
  const data = (await res.json().catch(() => ({}))) as { error?: string; message?: string };
  // Only /api: the 401s of /app/session (a wrong password, no session yet, a sign-out of a dead token) are
  // answers its callers handle themselves.
  if (res.status === 401 && path.startsWith('/api/')) {
    csrf = undefined;
    sessionEnded?.();
  }
  if (!res.ok) throw new ApiError(res.status, data.error ?? 'error', data.message ?? `HTTP ${res.status}`);
  return data as T;
}

export function query(params: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : '';
}
