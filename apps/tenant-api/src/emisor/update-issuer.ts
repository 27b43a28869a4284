// Use case of POST /api/actualizar/emisor: the same body as the registration, fully re-validated
// (certificate included), replacing the stored issuer; 404 when this tenant has no such issuer.
import type { Warning } from '@cr/contracts';
import { AppError } from '@cr/service-kit';
import { withTenant } from '../db/with-tenant';
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
  warnIfExpiringSoon(deps, input.tenantId, values.identificacion, valid.certificate.notAfter);
  return { identificacion: values.identificacion, warnings };
}
