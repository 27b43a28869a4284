// Use case of POST /api/enviar/emisor: validate, seal the secrets, insert. Registering the same issuer
// again with the same data is an idempotent success; with different data it is a conflict (use actualizar).
import type { Warning } from '@cr/contracts';
import { AppError } from '@cr/service-kit';
import { withTenant } from '../db/with-tenant';
import { warnIfExpiringSoon } from './certificate-expiry';
import { checkIssuerWithHacienda } from './check-with-hacienda';
import type { IssuerDeps } from './issuer-deps';
import { takeIssuerWriteSlot } from './issuer-write-limit';
import { findIssuer, insertIssuer, type IssuerRow } from './issuer-repository';
import { secretContext, toIssuerValues } from './issuer-secrets';
import { type ValidRegistration, parseRegistration, validateRegistration } from './validate-registration';

export interface RegisterIssuerResult {
  created: boolean;
  identificacion: string;
  /** Findings of the check against Hacienda's taxpayer registry; empty when all agrees. */
  warnings: Warning[];
}

/** Whether the stored issuer holds exactly what `valid` would store (secrets compared after opening). */
function sameRegistration(
  deps: IssuerDeps,
  tenantId: string,
  row: IssuerRow,
  valid: ValidRegistration,
): boolean {
  const { body } = valid;
  const id = row.identificacion;
  const plainSame =
    row.tipo_identificacion === body.tipoIdentificacion &&
    row.nombre === valid.nombre &&
    row.nombre_comercial === body.nombreComercial &&
    row.codigo_actividad === valid.codigoActividad &&
    row.sucursal === body.sucursal &&
    row.telefono === body.telefono &&
    row.correo_electronico === body.correoElectronico &&
    row.provincia === body.ubicacion.provincia &&
    row.canton === body.ubicacion.canton &&
    row.distrito === body.ubicacion.distrito &&
    row.barrio === body.ubicacion.barrio &&
    row.direccion === body.ubicacion.direccion &&
    row.ambiente === body.ambiente &&
    row.usuario_hacienda === body.usuarioHacienda;
  if (!plainSame) return false;
  const open = (sealed: string, field: 'clave_hacienda' | 'pin' | 'certificate') =>
    deps.secrets.open(sealed, secretContext(tenantId, id, field));
  return (
    open(row.clave_hacienda_sealed, 'clave_hacienda').equals(Buffer.from(body.claveHacienda, 'utf8')) &&
    open(row.pin_sealed, 'pin').equals(Buffer.from(body.pinCertificado, 'utf8')) &&
    open(row.certificate_sealed, 'certificate').equals(valid.p12)
  );
}

export async function registerIssuer(
  deps: IssuerDeps,
  input: { tenantId: string; body: unknown },
): Promise<RegisterIssuerResult> {
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
  const created = await withTenant(deps.db, input.tenantId, async (tx) => {
    if (await insertIssuer(tx, input.tenantId, values)) return true;
    const existing = await findIssuer(tx, input.tenantId, values.identificacion);
    if (existing && sameRegistration(deps, input.tenantId, existing, valid)) return false;
    throw new AppError(
      'conflict',
      `identificacion: issuer ${values.identificacion} is already registered; use /api/actualizar/emisor to change it`,
    );
  });
  if (created) {
    deps.logger.info('issuer registered', {
      tenantId: input.tenantId,
      identificacion: values.identificacion,
    });
    warnIfExpiringSoon(deps, input.tenantId, values.identificacion, valid.certificate.notAfter);
  }
  return { created, identificacion: values.identificacion, warnings };
}
