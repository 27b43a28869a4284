// Use case of POST /api/consultar/emisor: the spec's public fields of one issuer of this tenant, plus the
// certificate's subject and expiry. Never a secret.
import type { EmisorData } from '@cr/contracts';
import { AppError } from '@cr/service-kit';
import { ONE_STATEMENT, withTenant } from '../db/with-tenant';
import type { IssuerDeps } from './issuer-deps';
import { type PublicIssuerRow, findIssuer } from './issuer-repository';

export async function getIssuer(
  deps: Pick<IssuerDeps, 'db'>,
  input: { tenantId: string; identificacion: number },
): Promise<EmisorData> {
  const id = String(input.identificacion);
  const row = await withTenant(
    deps.db,
    input.tenantId,
    (tx) => findIssuer(tx, input.tenantId, id),
    ONE_STATEMENT,
  );
  // Another tenant's issuer is invisible here: the same 404 as an unknown one.
  if (!row) throw new AppError('not_found', `identificacion: issuer ${id} is not registered`);
  return toEmisorData(row);
}

/** An issuer's public fields; the sealed secrets never leave the row. */
export function toEmisorData(row: PublicIssuerRow): EmisorData {
  return {
    identificacion: Number(row.identificacion),
    tipoIdentificacion: row.tipo_identificacion,
    nombreComercial: row.nombre_comercial,
    correoElectronico: row.correo_electronico,
    telefono: row.telefono,
    ambiente: row.ambiente,
    certificado: { sujeto: row.certificate_subject, vence: row.certificate_not_after.toISOString() },
  };
}
