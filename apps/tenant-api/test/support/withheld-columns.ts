// Proof that a path does not read some columns, from the database itself: the tenant role (which every
// withTenant statement runs as) keeps SELECT on every column of `table` but `withheld`, so any read of those
// is "permission denied" (a 500), while `run` goes through the path. The table's SELECT comes back after.
import type { Db } from '@cr/service-kit';
import { TENANT_ROLE } from '../../src/db/with-tenant';

export async function withColumnsWithheld<T>(
  db: Db,
  table: string,
  withheld: readonly string[],
  run: () => Promise<T>,
): Promise<T> {
  const r = await db.query<{ column_name: string }>(
    'SELECT DISTINCT column_name FROM information_schema.columns WHERE table_name = $1',
    [table],
  );
  const all = r.rows.map((c) => c.column_name);
  const missing = withheld.filter((c) => !all.includes(c));
  if (missing.length > 0) throw new Error(`${table} has no column ${missing.join(', ')}`);
  const kept = all.filter((c) => !withheld.includes(c));
  await db.query(`REVOKE SELECT ON ${table} FROM ${TENANT_ROLE}`);
  try {
    await db.query(`GRANT SELECT (${kept.join(', ')}) ON ${table} TO ${TENANT_ROLE}`);
    return await run();
  } finally {
    await db.query(`GRANT SELECT ON ${table} TO ${TENANT_ROLE}`);
  }
}
