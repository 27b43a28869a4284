// The one way tenant data is read or written: a transaction that switches to the non-superuser
// tenant_api_tenant role and sets app.tenant_id, so PostgreSQL's row-level security hides and refuses every
// other tenant's rows even if a query forgets its `tenant_id = $1`. Both settings are transaction-local
// and vanish at COMMIT/ROLLBACK, so a pooled connection never carries one tenant into the next request.
import { jobsMigrations } from '@cr/jobs';
import { readMigrations } from '@cr/service-kit';
import type { Db, Migration, Queryable } from '@cr/service-kit';
import { MIGRATIONS_DIR } from '../package-root';

export const TENANT_ROLE = 'tenant_api_tenant';

const TENANT_ID = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * `oneStatement`: the callback's one statement is the whole transaction, committed with it (ADR 0047: one round
 * trip on PostgreSQL, one message on PGlite). For a read, or a write that is the last thing the callback does:
 * what it does after the statement has answered cannot undo it.
 */
export const ONE_STATEMENT = { oneStatement: true } as const;

export async function withTenant<T>(
  db: Db,
  tenantId: string,
  fn: (tx: Queryable) => Promise<T>,
  options: { oneStatement?: boolean } = {},
): Promise<T> {
  if (!TENANT_ID.test(tenantId)) throw new Error('withTenant: invalid tenant id');
  // Both settings as statements without parameters, sent with the BEGIN (on PostgreSQL with the callback's
  // first statement too, ADR 0046): every transaction of every request pays them, and on PGlite a
  // parameterised statement costs several times a simple one. The id is safe to inline because the pattern
  // above admits only [a-z0-9-].
  return db.transaction(fn, {
    begin: [`SELECT set_config('app.tenant_id', '${tenantId}', true)`, `SET LOCAL ROLE ${TENANT_ROLE}`],
    // Only the flag is taken from the caller: nothing it passes can replace the tenant's opening.
    ...(options.oneStatement ? { oneStatement: true } : {}),
  });
}

/**
 * Tenant work enqueues jobs inside its withTenant transaction (a document and its submission job commit
 * together), so the tenant role may add jobs and read back the id of one with the same key; payloads stay
 * hidden from it. Runs after the jobs table exists.
 */
export const tenantJobsGrants: Migration = {
  id: 'tenant_api_jobs_0001_grants',
  sql: `GRANT INSERT ON jobs TO ${TENANT_ROLE};
GRANT SELECT (id, key) ON jobs TO ${TENANT_ROLE};
GRANT USAGE ON SEQUENCE jobs_id_seq TO ${TENANT_ROLE};`,
};

/**
 * Since jobs carry a tenant (fair claims): enqueue adds the job's lane (queue, tenant) in the same statement,
 * and a pending-key enqueue reads whether such a job still waits.
 */
export const tenantJobLaneGrants: Migration = {
  id: 'tenant_api_jobs_0002_lanes',
  sql: `GRANT INSERT ON job_lanes TO ${TENANT_ROLE};
GRANT SELECT (pending_key, state) ON jobs TO ${TENANT_ROLE};`,
};

/**
 * A job's handler records its outcome in its own last transaction, a tenant one (JobContext.finishIn):
 * through @cr/jobs' fenced jobs_record function, which changes only the job whose claim token it is given.
 * The role still cannot read payloads nor update jobs itself.
 */
export const tenantJobRecordGrants: Migration = {
  id: 'tenant_api_jobs_0003_record',
  sql: `GRANT EXECUTE ON FUNCTION jobs_record(bigint, text, integer, text, text, timestamptz, timestamptz) TO ${TENANT_ROLE};`,
};

/** The app's migrations, then the jobs table of @cr/jobs, then the tenant role's grants on it. */
export function tenantApiMigrations(): Migration[] {
  return [
    ...readMigrations(MIGRATIONS_DIR),
    ...jobsMigrations,
    tenantJobsGrants,
    tenantJobLaneGrants,
    tenantJobRecordGrants,
  ];
}
