// Revoked token ids, mirrored from the auth-server's `GET /revocations?since=<unix seconds>` and refreshed
// in the background. Entries are dropped once their token would have expired anyway.
import type { Logger } from '@cr/service-kit';

export interface RevokedToken {
  jti: string;
  /** Expiry of the revoked token, unix seconds. */
  exp: number;
}

export interface RevocationSource {
  isRevoked(jti: string): boolean;
}

/** Accepts the auth-server's list body: an array, or an object holding it. */
export function parseRevocations(body: unknown): RevokedToken[] {
  const list = Array.isArray(body)
    ? body
    : body && typeof body === 'object'
      ? ((body as Record<string, unknown>).revocations ??
        (body as Record<string, unknown>).revoked ??
        (body as Record<string, unknown>).data)
      : undefined;
  if (!Array.isArray(list)) throw new Error('revocation list: unexpected body');
  return list.flatMap((item) => {
    if (!item || typeof item !== 'object') return [];
    const { jti, exp } = item as { jti?: unknown; exp?: unknown };
    if (typeof jti !== 'string' || !jti) return [];
    return [{ jti, exp: typeof exp === 'number' ? exp : Number.MAX_SAFE_INTEGER }];
  });
}

export interface RevocationListOptions {
  url: string;
  logger: Logger;
  intervalMs: number;
  now?: () => number;
  fetchImpl?: typeof fetch;
}

export class RevocationList implements RevocationSource {
  private readonly revoked = new Map<string, number>();
  private lastSync: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  constructor(private readonly options: RevocationListOptions) {
    this.now = options.now ?? Date.now;
  }

  isRevoked(jti: string): boolean {
    return this.revoked.has(jti);
  }

  /** Whether the list has been loaded at least once. */
  get synced(): boolean {
    return this.lastSync !== undefined;
  }

  /** Fetches what was revoked since the last sync (a small overlap covers clock skew). */
  async sync(): Promise<boolean> {
    const startedAt = Math.floor(this.now() / 1000);
    const since = this.lastSync === undefined ? 0 : Math.max(0, this.lastSync - 60);
    const url = new URL(this.options.url);
    url.searchParams.set('since', String(since));
    try {
      const res = await (this.options.fetchImpl ?? fetch)(url, { signal: AbortSignal.timeout(5000) });
      if (!res.ok) throw new Error(`status ${res.status}`);
      for (const r of parseRevocations(await res.json())) this.revoked.set(r.jti, r.exp);
      this.lastSync = startedAt;
      for (const [jti, exp] of this.revoked) if (exp < startedAt - 300) this.revoked.delete(jti);
      return true;
    } catch (err) {
      this.options.logger.warn('could not refresh the token revocation list', {
        url: this.options.url,
        reason: err instanceof Error ? err.message : String(err),
      });
      return false;
    }
  }

  start(): void {
    if (this.timer) return;
    void this.sync();
    this.timer = setInterval(() => void this.sync(), this.options.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** For deployments with a local PEM and no auth-server to ask. */
export const noRevocations: RevocationSource = { isRevoked: () => false };
