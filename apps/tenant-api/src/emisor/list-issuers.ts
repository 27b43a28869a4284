// Use case of GET /api/emisores: every issuer of the tenant with its public data and how many days its
// certificate has left, flagged within the same warning window the expiry watch logs about. Never a secret.
import type { EmisorListItem } from '@cr/contracts';
import { ONE_STATEMENT, withTenant } from '../db/with-tenant';
import { daysUntil } from './certificate-expiry';
import { toEmisorData } from './get-issuer';
import type { IssuerDeps } from './issuer-deps';
import { listIssuerRows } from './issuer-repository';

export async function listIssuers(
  deps: Pick<IssuerDeps, 'db' | 'now' | 'certificateWarningDays'>,
  input: { tenantId: string },
): Promise<EmisorListItem[]> {
  const rows = await withTenant(
    deps.db,
    input.tenantId,
    (tx) => listIssuerRows(tx, input.tenantId),
    ONE_STATEMENT,
  );
  const now = deps.now();
  return rows.map((row) => {
    const diasParaVencer = daysUntil(row.certificate_not_after, now);
    return { ...toEmisorData(row), diasParaVencer, porVencer: diasParaVencer < deps.certificateWarningDays };
  });
}
