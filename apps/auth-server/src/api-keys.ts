// API keys of a client: `crk_<id>_<secret>`. The id (public, 12 random bytes) finds the row; the secret (32
// random bytes) is kept only as its SHA-256 digest and compared in constant time. A key is shown once, when
// created; lists never hold it. Revoking a key also revokes every token issued for it: the subject
// `apikey:<id>` goes on the revocation list that the tenant-api checks against the token's `akid`.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { API_SCOPES, type ApiKeyView, type ApiScope, type CreatedApiKey } from '@cr/contracts';
import { AppError, type Db } from '@cr/service-kit';

const KEY = /^crk_([A-Za-z0-9_-]{16})_([A-Za-z0-9_-]{43})$/;

export function apiKeySubject(id: string): string {
  return `apikey:${id}`;
}

export interface ApiKeyRecord {
  id: string;
  base: string;
  scopes: ApiScope[];
}

interface ApiKeyRow {
  id: string;
  base: string;
  name: string;
  scopes: string;
  secret_sha256: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

function sha256(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('base64url');
}

function iso(ms: string | null): string | null {
  return ms === null ? null : new Date(Number(ms)).toISOString();
}

function toView(r: ApiKeyRow): ApiKeyView {
  return {
    id: r.id,
    base: r.base,
    name: r.name,
    scopes: parseScopes(r.scopes),
    createdAt: new Date(Number(r.created_at)).toISOString(),
    revokedAt: iso(r.revoked_at),
    lastUsedAt: iso(r.last_used_at),
  };
}

function parseScopes(stored: string): ApiScope[] {
  return stored.split(' ').filter((s): s is ApiScope => (API_SCOPES as readonly string[]).includes(s));
}

const COLUMNS = 'id, base, name, scopes, secret_sha256, created_at, revoked_at, last_used_at';

export class ApiKeyStore {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  /** Makes a key for an existing client; the answer is the only place the key ever appears. */
  async create(base: string, name: string, scopes: ApiScope[]): Promise<CreatedApiKey> {
    const id = randomBytes(12).toString('base64url');
    const secret = randomBytes(32).toString('base64url');
    const ordered = API_SCOPES.filter((s) => scopes.includes(s));
    const { rows } = await this.db.query<ApiKeyRow>(
      `INSERT INTO api_keys (id, base, name, scopes, secret_sha256, created_at)
       SELECT $1, base, $3, $4, $5, $6 FROM clients WHERE base = $2
       RETURNING ${COLUMNS}`,
      [id, base, name, ordered.join(' '), sha256(secret), this.now()],
    );
    const row = rows[0];
    if (!row) throw new AppError('not_found', `client "${base}" does not exist`);
    return { ...toView(row), key: `crk_${id}_${secret}` };
  }

  async list(base: string): Promise<ApiKeyView[]> {
    const { rows } = await this.db.query<ApiKeyRow>(
      `SELECT ${COLUMNS} FROM api_keys WHERE base = $1 ORDER BY created_at, id`,
      [base],
    );
    return rows.map(toView);
  }

  /** Marks the key revoked (idempotent); 404 when the client has no such key. */
  async revoke(base: string, id: string): Promise<ApiKeyView> {
    const { rows } = await this.db.query<ApiKeyRow>(
      `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $3) WHERE base = $1 AND id = $2
       RETURNING ${COLUMNS}`,
      [base, id, this.now()],
    );
    const row = rows[0];
    if (!row) throw new AppError('not_found', `api key "${id}" of client "${base}" does not exist`);
    return toView(row);
  }

  /** Whether key `id` of `base` still exists and is not revoked (re-checked just before a token is signed). */
  async isLive(base: string, id: string): Promise<boolean> {
    const { rows } = await this.db.query(
      'SELECT 1 FROM api_keys WHERE id = $1 AND base = $2 AND revoked_at IS NULL',
      [id, base],
    );
    return rows.length > 0;
  }

  /**
   * The usable key of `base` that `presented` is, or undefined (malformed, unknown, another client's,
   * revoked, or a wrong secret: one answer for all). A match records its use.
   */
  async authenticate(base: string, presented: string): Promise<ApiKeyRecord | undefined> {
    const parts = KEY.exec(presented);
    // The digest is computed whatever happens, so a malformed key costs what a wrong one does.
    const digest = Buffer.from(sha256(parts?.[2] ?? presented));
    if (!parts) return undefined;
    const { rows } = await this.db.query<ApiKeyRow>(
      `SELECT ${COLUMNS} FROM api_keys WHERE id = $1 AND base = $2 AND revoked_at IS NULL`,
      [parts[1], base],
    );
    const row = rows[0];
    if (!row) return undefined;
    const stored = Buffer.from(row.secret_sha256);
    if (stored.length !== digest.length || !timingSafeEqual(stored, digest)) return undefined;
    await this.db.query('UPDATE api_keys SET last_used_at = $2 WHERE id = $1', [row.id, this.now()]);
    return { id: row.id, base: row.base, scopes: parseScopes(row.scopes) };
  }
}
