// Use case of POST /api/hacienda/contribuyente: Hacienda's /fe/ae (REFERENCE §10.1) as
// {nombre, tipoIdentificacion, regimen, situacion, actividades[]}; and the id rules shared with the issuer
// registration check.
import type { ContribuyenteData } from '@cr/contracts';
import type { Taxpayer } from '@cr/hacienda-client';
import { AppError } from '@cr/service-kit';
import type { LookupDeps } from './lookup-deps';
import { lookUpForTenant } from './tenant-lookup-limit';

/** The id as /fe/ae takes it (digits, no hyphens), or the reason it cannot be one. */
export function readTaxpayerId(value: unknown): { id: string } | { reason: string } {
  if (value === undefined) return { reason: 'is required' };
  if (typeof value === 'number' && Number.isInteger(value) && value > 0) value = String(value);
  if (typeof value !== 'string') return { reason: 'must be a string or a number of 9 to 12 digits' };
  const id = value.trim();
  if (!/^[0-9]{9,12}$/.test(id)) {
    return { reason: 'must be 9 to 12 digits without hyphens or spaces (e.g. 3101123456)' };
  }
  return { id };
}

export function toContribuyenteData(t: Taxpayer): ContribuyenteData {
  return {
    nombre: t.nombre,
    tipoIdentificacion: t.tipoIdentificacion,
    ...(t.regimen ? { regimen: t.regimen } : {}),
    ...(t.situacion ? { situacion: t.situacion } : {}),
    actividades: t.actividades,
  };
}

export async function lookUpTaxpayer(
  deps: Pick<LookupDeps, 'db' | 'hacienda' | 'lookupLimiter'>,
  input: { tenantId: string; identificacion: string },
): Promise<ContribuyenteData> {
  // A cached answer costs Hacienda nothing: only a call that reaches it takes the tenant's slot.
  const r = await lookUpForTenant(deps, input.tenantId, (options) =>
    deps.hacienda.publicApi.taxpayer(input.identificacion, options),
  );
  if (r.kind === 'notFound') {
    throw new AppError(
      'not_found',
      `identificacion: ${input.identificacion} is not registered as a taxpayer with Hacienda`,
    );
  }
  if (r.kind === 'invalid') {
    throw new AppError('bad_request', `identificacion: Hacienda refuses ${input.identificacion} as invalid`, {
      details: [{ path: 'identificacion', reason: 'refused by Hacienda as invalid' }],
    });
  }
  return toContribuyenteData(r.value);
}
