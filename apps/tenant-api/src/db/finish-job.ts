// A job whose last writes and outcome are one statement (CteWrites into JobContext.finishIn, ADR 0034): that
// statement is its tenant transaction's whole, committed with it (ADR 0047).
import type { JobContext, JobResult } from '@cr/jobs';
import type { CteWrites, Db } from '@cr/service-kit';
import { ONE_STATEMENT, withTenant } from './with-tenant';

export async function finishWithWrites(
  db: Db,
  tenantId: string,
  context: Partial<Pick<JobContext, 'finishIn'>>,
  result: JobResult,
  writes: CteWrites,
): Promise<void> {
  await withTenant(
    db,
    tenantId,
    async (tx) => {
      await (context.finishIn ? context.finishIn(tx, result, writes) : writes.run(tx));
    },
    ONE_STATEMENT,
  );
}
