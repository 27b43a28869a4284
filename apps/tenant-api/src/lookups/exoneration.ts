// Use case of POST /api/hacienda/exoneracion (spec endpoint 7): Hacienda's /fe/ex answer mapped to the spec's
// data. `estado` is `vigente` while now (Costa Rica time, UTC-06:00 all year) is before fechaVencimiento,
// read as Costa Rica wall-clock time as Hacienda writes it; from that instant on it is `vencida`.
import type { ExoneracionData } from '@cr/contracts';
import type { Exoneration } from '@cr/hacienda-client';
import { costaRicaDate, parseIsoDateTime } from '@cr/hacienda-xml';
import { AppError } from '@cr/service-kit';
import type { LookupDeps } from './lookup-deps';
import { lookUpForTenant } from './tenant-lookup-limit';

/** Hacienda's authorization numbers (REFERENCE §10.2): two letters, 8 digits, 2 digits; case-insensitive. */
export const EXONERATION_NUMBER = /^[A-Za-z]{2}-[0-9]{8}-[0-9]{2}$/;

/** The form Hacienda is asked with, or undefined when it cannot be an authorization number. */
export function normaliseExonerationNumber(value: string): string | undefined {
  const v = value.trim().toUpperCase();
  return EXONERATION_NUMBER.test(v) ? v : undefined;
}

/** `2030-12-31T00:00:00`, the fractional part and any offset dropped (the values are Costa Rica time). */
function withoutOffset(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?))?/.exec(value.trim());
  if (!m) return undefined;
  const time = m[2] ?? '00:00:00';
  return `${m[1]}T${time.length === 5 ? `${time}:00` : time}`;
}

/** The instant an exoneration stops being in force, or undefined when Hacienda gave no readable date. */
export function expiryOf(ex: Pick<Exoneration, 'fechaVencimiento'>): Date | undefined {
  const local = withoutOffset(ex.fechaVencimiento);
  return local ? parseIsoDateTime(local) : undefined;
}

/** The Costa Rica day an exoneration was issued (`2024-01-15`), or undefined when Hacienda gave no readable date. */
export function issueDayOf(ex: Pick<Exoneration, 'fechaEmision'>): string | undefined {
  const local = withoutOffset(ex.fechaEmision);
  const issued = local ? parseIsoDateTime(local) : undefined;
  return issued ? costaRicaDate(issued) : undefined;
}

export function isInForce(ex: Pick<Exoneration, 'fechaVencimiento'>, at: Date): boolean {
  const expiry = expiryOf(ex);
  return expiry !== undefined && at.getTime() < expiry.getTime();
}

export function toExoneracionData(ex: Exoneration, now: Date): ExoneracionData {
  const fechaVencimiento = withoutOffset(ex.fechaVencimiento);
  if (!fechaVencimiento || ex.porcentajeExoneracion === undefined) {
    throw new AppError(
      'upstream_error',
      'Hacienda public API answered an exoneration without expiry or percentage',
    );
  }
  const fechaEmision = withoutOffset(ex.fechaEmision);
  return {
    numeroDocumento: ex.numeroDocumento,
    estado: isInForce(ex, now) ? 'vigente' : 'vencida',
    porcentajeExoneracion: ex.porcentajeExoneracion,
    fechaVencimiento,
    ...(fechaEmision ? { fechaEmision } : {}),
    ...(ex.identificacion ? { identificacion: ex.identificacion } : {}),
    ...(ex.tipoDocumento ? { tipoDocumento: ex.tipoDocumento } : {}),
    ...(ex.nombreInstitucion ? { nombreInstitucion: ex.nombreInstitucion } : {}),
    ...(ex.poseeCabys || ex.cabys.length ? { cabys: ex.cabys } : {}),
  };
}

export async function lookUpExoneration(
  deps: Pick<LookupDeps, 'db' | 'hacienda' | 'lookupLimiter' | 'now'>,
  input: { tenantId: string; exoneracion: string },
): Promise<ExoneracionData> {
  const numero = normaliseExonerationNumber(input.exoneracion);
  if (!numero) {
    throw new AppError(
      'bad_request',
      'exoneracion: must be an authorization number as Hacienda issues it, two letters, 8 digits and 2 digits (e.g. AL-00020402-24)',
      { details: [{ path: 'exoneracion', reason: 'must look like AL-00020402-24' }] },
    );
  }
  // A cached answer costs Hacienda nothing: only a call that reaches it takes the tenant's slot.
  const r = await lookUpForTenant(deps, input.tenantId, (options) =>
    deps.hacienda.publicApi.exoneration(numero, options),
  );
  if (r.kind === 'notFound') {
    throw new AppError('not_found', `exoneracion: ${numero} does not exist in Hacienda's records`);
  }
  if (r.kind === 'invalid') {
    throw new AppError('bad_request', `exoneracion: Hacienda refuses ${numero} as malformed`, {
      details: [{ path: 'exoneracion', reason: 'refused by Hacienda as malformed' }],
    });
  }
  return toExoneracionData(r.value, deps.now());
}
