// The engine's view of an issuer (names written into the XML) and its signing key, from the tenant's
// decrypted signing material.
import type { Issuer, SigningKey } from '@cr/hacienda-xml';
import type { SigningMaterial } from '../emisor/load-signing-material';

/** `proveedorSistemas`: the cédula of the software provider (us); unset → the issuer's own (in-house). */
export function toEngineIssuer(m: SigningMaterial, proveedorSistemas?: string): Issuer {
  const barrio = m.ubicacion.nombres?.barrioNombre;
  return {
    ...(proveedorSistemas ? { proveedorSistemas } : {}),
    nombre: m.nombre,
    tipoIdentificacion: String(m.tipoIdentificacion).padStart(2, '0') as Issuer['tipoIdentificacion'],
    numeroIdentificacion: m.identificacion,
    nombreComercial: m.nombreComercial,
    sucursal: m.sucursal,
    ubicacion: {
      provincia: m.ubicacion.provincia,
      canton: m.ubicacion.canton,
      distrito: m.ubicacion.distrito,
      ...(barrio ? { barrio } : {}),
      otrasSenas: m.ubicacion.direccion,
    },
    telefono: m.telefono,
    correoElectronico: m.correoElectronico,
  };
}

export function toSigningKey(m: SigningMaterial): SigningKey {
  return { ...m.certificate, privateKey: m.privateKey };
}
