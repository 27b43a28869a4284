// Revocations mirrored from the auth-server's `GET /revocations?since=<cursor>`, refreshed in the
// background: revoked token ids (logout, admin) and revoked subjects (a client disabled, deleted or whose
// password changed: every token of it with iat < notBefore). Paged by the server's own cursor (`asOf`), never
// by this machine's clock, so a clock skew between the two cannot skip a revocation. The list reports when
// it was last loaded; readiness refuses traffic until the first load and whenever the last one is stale, and
// until the first load the verifier refuses every token (fail closed: 503), whatever readiness gates.
import type { Logger } from '@cr/service-kit';

export interface RevokedToken {
  jti: string;
  /** Expiry of the revoked token, unix seconds. */
  exp: number;
}

export interface RevokedSubject {
  sub: string;
  /** Tokens of `sub` with iat before this (unix seconds) are revoked. */
  notBefore: number;
}

/** What the verifier asks about a token whose signature and claims already checked out. */
/** What a revocation can name in a token: its id, its subject (the client), and the API key it came from. */
export interface RevocableClaims {
  jti: string;
  sub: string;
  iat: number;
  akid?: string | undefined;
}

export interface RevocationSource {
  isRevoked(claims: RevocableClaims): boolean;
  /**
   * Whether the revocations are known: false until a list has been loaded once. Verification fails closed
   * on false (a process that started while the auth-server was down must not take revoked tokens).
   */
  loaded(): Promise<boolean>;
}

export interface ParsedRevocations {
  tokens: RevokedToken[];
  subjects: RevokedSubject[];
  asOf: number;
}

const TOKEN_LIFETIME_SECONDS = 28800;
const ON_DEMAND_INTERVAL_MS = 1_000;

/** The auth-server's list body; anything without a numeric `asOf` cursor is refused. */
export function parseRevocations(body: unknown): ParsedRevocations {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new Error('revocation list: unexpected body');
  const b = body as Record<string, unknown>;
  if (typeof b.asOf !== 'number' || !Number.isInteger(b.asOf) || b.asOf < 0)
    throw new Error('revocation list: no asOf cursor');
  if (!Array.isArray(b.revoked)) throw new Error('revocation list: no revoked array');
  const tokens = b.revoked.flatMap((item: unknown) => {
    if (!item || typeof item !== 'object') return [];
    const { jti, exp } = item as { jti?: unknown; exp?: unknown };
    if (typeof jti !== 'string' || !jti) return [];
    return [{ jti, exp: typeof exp === 'number' ? exp : Number.MAX_SAFE_INTEGER }];
  });
  const subjects = (Array.isArray(b.revokedSubjects) ? b.revokedSubjects : []).flatMap((item: unknown) => {
    if (!item || typeof item !== 'object') return [];
    const { sub, notBefore } = item as { sub?: unknown; notBefore?: unknown };
    if (typeof sub !== 'string' || !sub || typeof notBefore !== 'number') return [];
    return [{ sub, notBefore }];
  });
  return { tokens, subjects, asOf: b.asOf };
}

export interface RevocationListOptions {
  url: string;
  logger: Logger;
  intervalMs: number;
  /** A list not refreshed for longer than this makes the service not ready. Default 4 intervals. */
  maxStalenessMs?: number;
  now?: () => number;
  fetchImpl?: typeof fetch;
}

export class RevocationList implements RevocationSource {
  private readonly revoked = new Map<string, number>();
  private readonly subjects = new Map<string, number>();
  /** The server's cursor of the last successful poll; undefined until the first. */
  private cursor: number | undefined;
  /** When (this machine's clock, ms) the last poll succeeded: only for staleness, never for paging. */
  private lastSuccessAt: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<boolean> | undefined;
  /** When a request last started a poll because the list was never loaded (see loaded()). */
  private lastOnDemandAt: number | undefined;
  private readonly now: () => number;
  private readonly maxStalenessMs: number;

  constructor(private readonly options: RevocationListOptions) {
    this.now = options.now ?? Date.now;
    this.maxStalenessMs = options.maxStalenessMs ?? Math.max(4 * options.intervalMs, 60_000);
  }

  isRevoked(claims: RevocableClaims): boolean {
    if (this.revoked.has(claims.jti)) return true;
    const before = (subject: string) => {
      const notBefore = this.subjects.get(subject);
      return notBefore !== undefined && claims.iat < notBefore;
    };
    // A token issued for an API key also dies with the key (subject apikey:<id>, published on revocation).
    return before(claims.sub) || (claims.akid !== undefined && before(`apikey:${claims.akid}`));
  }

  /** Whether the list has been loaded at least once. */
  get synced(): boolean {
    return this.cursor !== undefined;
  }

  /**
   * True once the list has been loaded. Before that, a request asks the auth-server itself (joining a poll
   * already under way), but at most once per second: while the auth-server is down, requests are refused
   * at once instead of each waiting for a poll's timeout and adding to the load.
   */
  async loaded(): Promise<boolean> {
    if (this.synced) return true;
    if (!this.running) {
      const now = this.now();
      if (this.lastOnDemandAt !== undefined && now - this.lastOnDemandAt < ON_DEMAND_INTERVAL_MS)
        return false;
      this.lastOnDemandAt = now;
    }
    await this.sync();
    return this.synced;
  }

  /** Readiness: undefined when loaded and fresh, else the reason. */
  health(): string | undefined {
    if (this.lastSuccessAt === undefined) return 'revocation list not loaded yet';
    const age = this.now() - this.lastSuccessAt;
    if (age > this.maxStalenessMs)
      return `revocation list is stale (last refreshed ${Math.round(age / 1000)} s ago)`;
    return undefined;
  }

  /** Fetches what was revoked since the server's last cursor; one poll at a time. */
  sync(): Promise<boolean> {
    this.running ??= this.poll().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async poll(): Promise<boolean> {
    const url = new URL(this.options.url);
    url.searchParams.set('since', String(this.cursor ?? 0));
    try {
      const res = await (this.options.fetchImpl ?? fetch)(url, { signal: AbortSignal.timeout(5000) });
      if (!res.ok) throw new Error(`status ${res.status}`);
      const page = parseRevocations(await res.json());
      for (const r of page.tokens) this.revoked.set(r.jti, Math.max(r.exp, this.revoked.get(r.jti) ?? 0));
      for (const s of page.subjects)
        this.subjects.set(s.sub, Math.max(s.notBefore, this.subjects.get(s.sub) ?? 0));
      this.cursor = page.asOf;
      this.lastSuccessAt = this.now();
      // Entries no live token can match any more (the server's cursor is its clock, a few seconds back).
      for (const [jti, exp] of this.revoked) if (exp < page.asOf - 300) this.revoked.delete(jti);
      for (const [sub, nb] of this.subjects)
        if (nb + TOKEN_LIFETIME_SECONDS < page.asOf - 300) this.subjects.delete(sub);
      return true;
    } catch (err) {
      this.options.logger.warn('could not refresh the token revocation list', {
        url: this.options.url,
        reason: err instanceof Error ? err.message : String(err),
      });
      return false;
    }
  }

  /** Starts polling; resolves after the first attempt (success or not). */
  async start(): Promise<void> {
    if (this.timer) return;
    this.timer = setInterval(() => void this.sync(), this.options.intervalMs);
    this.timer.unref();
    await this.sync();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** For deployments with a local PEM and no auth-server to ask. */
export const noRevocations: RevocationSource = { isRevoked: () => false, loaded: async () => true };
