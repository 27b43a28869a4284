// Builds issuer registration bodies with a real .p12 whose subject names the issuer.
import type { EmisorRegistration } from '@cr/contracts';
import type { TipoIdentificacion } from '../../src/emisor/identification';
import { type P12Options, makeP12 } from './certificates';

export const PIN = '4821';

export function issuerBody(
  overrides: Partial<EmisorRegistration> = {},
  cert: Partial<P12Options> = {},
): EmisorRegistration {
  const identificacion = overrides.identificacion ?? 3101123456;
  const tipoIdentificacion = (overrides.tipoIdentificacion ?? 2) as TipoIdentificacion;
  const pin = overrides.pinCertificado ?? PIN;
  return {
    identificacion,
    tipoIdentificacion,
    codigoActividad: 6201.0,
    sucursal: 1,
    nombreComercial: 'Acme Soluciones',
    telefono: '22223333',
    correoElectronico: 'facturas@acme.cr',
    ubicacion: {
      provincia: '1',
      canton: '01',
      distrito: '01',
      barrio: '02',
      direccion: 'Avenida 1, calle 2, edificio azul',
    },
    ambiente: 2,
    usuarioHacienda: 'cpj-3-101-123456@stag.comprobanteselectronicos.go.cr',
    claveHacienda: Buffer.from('S3cr3t-Hacienda!').toString('base64'),
    pinCertificado: pin,
    certificadoHacienda: makeP12({ identificacion, tipoIdentificacion, pin, ...cert }).toString('base64'),
    ...overrides,
  };
}
