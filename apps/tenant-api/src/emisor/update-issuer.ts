// Use case of POST /api/actualizar/emisor: the same body as the registration, fully re-validated
// (certificate included), replacing the stored issuer; 404 when this tenant has no such issuer. The issuer's
// IdP sessions in this process end at once: they were opened with the credentials just replaced.
import type { Warning } from '@cr/contracts';
import { AppError } from '@cr/service-kit';
import { withTenant } from '../db/with-tenant';
import { issuerTokenKeys } from '../hacienda/hacienda-access';
import { warnIfExpiringSoon } from './certificate-expiry';
import { checkIssuerWithHacienda } from './check-with-hacienda';
import type { IssuerDeps } from './issuer-deps';
import { takeIssuerWriteSlot } from './issuer-write-limit';
import { updateIssuer as updateIssuerRow } from './issuer-repository';
import { toIssuerValues } from './issuer-secrets';
import { parseRegistration, validateRegistration } from './validate-registration';

export async function updateIssuer(
  deps: IssuerDeps,
  input: { tenantId: string; body: unknown },
): Promise<{ identificacion: string; warnings: Warning[] }> {
  // A body of the wrong shape is refused before the slot: the slot pays for opening a .p12.
  const body = parseRegistration(input.body);
  await takeIssuerWriteSlot(deps, input.tenantId);
  const valid = await validateRegistration(body, {
    territory: deps.territory,
    now: deps.now(),
    certificates: deps.certificates,
  });
  const values = toIssuerValues(deps.secrets, input.tenantId, valid);
  const warnings = await checkIssuerWithHacienda(deps, valid);
  const found = await withTenant(deps.db, input.tenantId, (tx) =>
    updateIssuerRow(tx, input.tenantId, values),
  );
  if (!found) {
    throw new AppError('not_found', `identificacion: issuer ${values.identificacion} is not registered`);
  }
  deps.logger.info('issuer updated', { tenantId: input.tenantId, identificacion: values.identificacion });
  // Not awaited: the cache entry goes now, the logout at the IdP is best effort and never rejects.
  for (const key of issuerTokenKeys(input.tenantId, values.identificacion)) {
    void deps.hacienda?.tokens.retire(key, 'issuer updated');
  }
  warnIfExpiringSoon(deps, input.tenantId, values.identificacion, valid.certificate.notAfter);
  return { identificacion: values.identificacion, warnings };
}
