// The Idempotency-Key header (IETF draft-ietf-httpapi-idempotency-key-header), per tenant, for 24 h: the
// first request with a key runs and its response is kept; a repeat with the same body gets that response
// again; the same key with another body is 422; a repeat while the first still runs is 409 with
// Retry-After: 1. A request that fails frees its key (the client may correct and retry). A claim left by a
// crashed process lapses after a minute.
import type { Queryable } from '@cr/service-kit';
import { AppError } from '@cr/service-kit';
import { withTenant } from '../db/with-tenant';
import type { IssuerDeps } from '../emisor/issuer-deps';

const KEY = /^[\x21-\x7e]{1,255}$/;
const KEEP_MS = 24 * 3_600_000;
const CLAIM_MS = 60_000;

export interface StoredResponse {
  status: number;
  body: unknown;
}

interface KeyRow {
  request_hash: string;
  state: 'in_flight' | 'done';
  response_status: number | null;
  response_body: unknown;
}

/** Validates the header value; undefined when absent. */
export function readIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const key = header.trim();
  if (!KEY.test(key)) {
    throw new AppError('bad_request', 'Idempotency-Key: must be 1 to 255 visible ASCII characters');
  }
  return key;
}

async function claim(
  tx: Queryable,
  tenantId: string,
  key: string,
  requestHash: string,
  now: Date,
): Promise<boolean> {
  const r = await tx.query(
    `INSERT INTO idempotency_keys (tenant_id, key, request_hash, state, locked_until, expires_at)
     VALUES ($1, $2, $3, 'in_flight', $4, $5)
     ON CONFLICT (tenant_id, key) DO UPDATE SET
       request_hash = EXCLUDED.request_hash, state = 'in_flight', response_status = NULL,
       response_body = NULL, locked_until = EXCLUDED.locked_until, expires_at = EXCLUDED.expires_at,
       created_at = now()
     WHERE idempotency_keys.expires_at <= $6
        OR (idempotency_keys.state = 'in_flight' AND idempotency_keys.locked_until <= $6
            AND idempotency_keys.request_hash = EXCLUDED.request_hash)`,
    [tenantId, key, requestHash, new Date(now.getTime() + CLAIM_MS), new Date(now.getTime() + KEEP_MS), now],
  );
  return r.rowCount === 1;
}

/** Runs `execute` at most once per (tenant, key, body) within 24 h and answers repeats from storage. */
export async function withIdempotencyKey(
  deps: Pick<IssuerDeps, 'db' | 'now'>,
  input: { tenantId: string; key: string; requestHash: string },
  execute: () => Promise<StoredResponse>,
): Promise<StoredResponse> {
  const { tenantId, key, requestHash } = input;
  const owned = await withTenant(deps.db, tenantId, async (tx) => {
    if (await claim(tx, tenantId, key, requestHash, deps.now())) return undefined;
    const r = await tx.query<KeyRow>(
      'SELECT request_hash, state, response_status, response_body FROM idempotency_keys WHERE tenant_id = $1 AND key = $2',
      [tenantId, key],
    );
    return r.rows[0];
  });
  if (owned) {
    if (owned.request_hash !== requestHash) {
      throw new AppError(
        'unprocessable',
        'Idempotency-Key: this key was already used with a different request body',
      );
    }
    if (owned.state === 'in_flight') {
      // Retry-After marks this 409 as "wait", unlike a real conflict: the SDK keeps asking each second
      // while the first request runs (up to CLAIM_MS), then gets its stored answer.
      throw new AppError('conflict', 'Idempotency-Key: a request with this key is still being processed', {
        headers: { 'Retry-After': '1' },
      });
    }
    return { status: Number(owned.response_status), body: owned.response_body };
  }
  let response: StoredResponse;
  try {
    response = await execute();
  } catch (err) {
    await withTenant(deps.db, tenantId, (tx) =>
      tx.query(
        "DELETE FROM idempotency_keys WHERE tenant_id = $1 AND key = $2 AND state = 'in_flight' AND request_hash = $3",
        [tenantId, key, requestHash],
      ),
    );
    throw err;
  }
  await withTenant(deps.db, tenantId, (tx) =>
    tx.query(
      `UPDATE idempotency_keys SET state = 'done', response_status = $4, response_body = $5::jsonb
       WHERE tenant_id = $1 AND key = $2 AND request_hash = $3`,
      [tenantId, key, requestHash, response.status, JSON.stringify(response.body)],
    ),
  );
  return response;
}

/**
 * unsafe: crosses tenants on purpose (the service's hourly housekeeping, as the owning role): deletes up to
 * `limit` keys whose 24 h had passed by `now`, the oldest first; returns how many. A key claimed again in the
 * meantime (its expiry moved on) stays: the DELETE checks the expiry of the row version it finds.
 */
export async function unsafeDeleteExpiredIdempotencyKeys(
  db: Queryable,
  now: Date,
  limit: number,
): Promise<number> {
  const r = await db.query(
    `DELETE FROM idempotency_keys k
     USING (SELECT tenant_id, key FROM idempotency_keys WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2) lapsed
     WHERE k.tenant_id = lapsed.tenant_id AND k.key = lapsed.key AND k.expires_at <= $1`,
    [now, limit],
  );
  return r.rowCount;
}
