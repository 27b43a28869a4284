// Sealing of an issuer's secrets. Each ciphertext is bound (as AES-GCM associated data) to its tenant,
// issuer and field, so a sealed value copied into another row or column does not open.
import type { SecretBox } from '@cr/service-kit';
import type { IssuerValues } from './issuer-repository';
import type { ValidRegistration } from './validate-registration';

export type SecretField = 'clave_hacienda' | 'pin' | 'certificate';

export function secretContext(tenantId: string, identificacion: string, field: SecretField): string {
  return `tenant-api:issuer:${tenantId}:${identificacion}:${field}`;
}

/** The row for a validated registration, secrets sealed. */
export function toIssuerValues(secrets: SecretBox, tenantId: string, valid: ValidRegistration): IssuerValues {
  const { body, certificate } = valid;
  const id = String(body.identificacion);
  return {
    identificacion: id,
    tipo_identificacion: body.tipoIdentificacion,
    nombre: valid.nombre,
    nombre_comercial: body.nombreComercial,
    codigo_actividad: valid.codigoActividad,
    sucursal: body.sucursal,
    telefono: body.telefono,
    correo_electronico: body.correoElectronico,
    provincia: body.ubicacion.provincia,
    canton: body.ubicacion.canton,
    distrito: body.ubicacion.distrito,
    barrio: body.ubicacion.barrio,
    direccion: body.ubicacion.direccion,
    ambiente: body.ambiente,
    usuario_hacienda: body.usuarioHacienda,
    clave_hacienda_sealed: secrets.seal(body.claveHacienda, secretContext(tenantId, id, 'clave_hacienda')),
    pin_sealed: secrets.seal(body.pinCertificado, secretContext(tenantId, id, 'pin')),
    certificate_sealed: secrets.seal(valid.p12, secretContext(tenantId, id, 'certificate')),
    secrets_key_id: secrets.currentKeyId,
    certificate_subject: certificate.subject,
    certificate_serial: certificate.serialNumber,
    certificate_not_before: certificate.notBefore,
    certificate_not_after: certificate.notAfter,
  };
}
