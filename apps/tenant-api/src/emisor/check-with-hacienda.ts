// At registration and update, the issuer is compared with Hacienda's taxpayer registry (/fe/ae): is the id
// registered, is codigoActividad one of its active activities, and what legal name does Hacienda hold. The
// findings are warnings in the response, never a refusal: Hacienda's public API may be down or slow, and the
// issuer must still be registrable. The lookup is bounded by a timeout for the same reason.
import type { Warning } from '@cr/contracts';
import type { HaciendaPublicApi, Taxpayer } from '@cr/hacienda-client';
import type { Logger } from '@cr/service-kit';
import type { ValidRegistration } from './validate-registration';

export interface TaxpayerRegistry {
  publicApi: Pick<HaciendaPublicApi, 'taxpayer'>;
}

/** Digits of an activity code without trailing zeros: 6201.0, "620100" and 6201 compare equal. */
function activityKey(code: string): string {
  return code.replace(/\D/g, '').replace(/0+$/, '');
}

const fold = (s: string) =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9]+/g, ' ')
    .trim()
    .toUpperCase();

function compare(valid: ValidRegistration, t: Taxpayer): Warning[] {
  const warnings: Warning[] = [];
  const active = t.actividades.filter((a) => a.estado === undefined || a.estado.toUpperCase() === 'A');
  const wanted = activityKey(valid.codigoActividad);
  if (!active.some((a) => a.codigo === valid.codigoActividad || activityKey(a.codigo) === wanted)) {
    const list = active.map((a) => (a.descripcion ? `${a.codigo} ${a.descripcion}` : a.codigo)).join('; ');
    warnings.push({
      path: 'codigoActividad',
      reason: `${valid.codigoActividad} is not an active activity of this taxpayer in Hacienda's registry (active: ${list || 'none'}); Hacienda rejects documents with it`,
    });
  }
  if (t.nombre && fold(t.nombre) !== fold(valid.nombre)) {
    warnings.push({
      path: 'nombre',
      reason: `Hacienda registers this taxpayer as "${t.nombre}"; documents carry "${valid.nombre}"`,
    });
  }
  return warnings;
}

export async function checkIssuerWithHacienda(
  deps: { taxpayerRegistry?: TaxpayerRegistry; logger: Logger; taxpayerCheckTimeoutMs?: number },
  valid: ValidRegistration,
): Promise<Warning[]> {
  if (!deps.taxpayerRegistry) return [];
  const id = String(valid.body.identificacion);
  const unreachable: Warning = {
    path: '(hacienda)',
    reason:
      "Hacienda's taxpayer registry could not be reached; identificacion, nombre and codigoActividad were not checked against it",
  };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), deps.taxpayerCheckTimeoutMs ?? 5_000);
  });
  try {
    const r = await Promise.race([deps.taxpayerRegistry.publicApi.taxpayer(id), timeout]);
    if (r === 'timeout') return [unreachable];
    if (r.kind === 'notFound' || r.kind === 'invalid') {
      return [
        {
          path: 'identificacion',
          reason: `${id} is not registered as a taxpayer in Hacienda's registry; Hacienda rejects documents of an unregistered issuer`,
        },
      ];
    }
    return compare(valid, r.value);
  } catch (err) {
    deps.logger.warn('issuer check against Hacienda failed', { identificacion: id, err });
    return [unreachable];
  } finally {
    clearTimeout(timer);
  }
}
