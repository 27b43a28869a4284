// Rules of an issuer's identification (REFERENCE §7.1) and how a Hacienda certificate names its owner in the
// subject serialNumber (§5.3: `CPJ-3-101-123456`, `CPF-01-0234-0567`).

export type TipoIdentificacion = 1 | 2 | 3 | 4;

const SHAPES: Record<TipoIdentificacion, { name: string; min: number; max: number; prefix?: string }> = {
  1: { name: 'a cédula física', min: 9, max: 9, prefix: 'CPF' },
  2: { name: 'a cédula jurídica', min: 10, max: 10, prefix: 'CPJ' },
  3: { name: 'a DIMEX', min: 11, max: 12 },
  4: { name: 'a NITE', min: 10, max: 10 },
};

/** Why `identificacion` does not fit its type, or undefined when it does. */
export function checkIdentificationShape(
  identificacion: number,
  tipo: TipoIdentificacion,
): string | undefined {
  const digits = String(identificacion);
  const shape = SHAPES[tipo];
  if (digits.length >= shape.min && digits.length <= shape.max) return undefined;
  const expected = shape.min === shape.max ? `${shape.min}` : `${shape.min} to ${shape.max}`;
  return `${shape.name} (tipoIdentificacion ${tipo}) has ${expected} digits without leading zeros; got ${digits.length}`;
}

/**
 * Why a certificate whose subject serialNumber is `serialNumber` does not belong to the issuer, or
 * undefined when it does. The digits are compared without hyphens and leading zeros (the physical-person
 * form pads the province: CPF-01-0234-0567 is 102340567).
 */
export function checkCertificateOwner(
  serialNumber: string | undefined,
  identificacion: number,
  tipo: TipoIdentificacion,
): string | undefined {
  if (!serialNumber) return 'the certificate subject has no serialNumber naming its owner';
  const match = /^([A-Z]+)-([0-9-]+)$/i.exec(serialNumber.trim());
  if (!match) return `the certificate subject serialNumber ${serialNumber} is not a taxpayer id`;
  const prefix = match[1]!.toUpperCase();
  const digits = match[2]!.replace(/-/g, '').replace(/^0+/, '');
  const expectedPrefix = SHAPES[tipo].prefix;
  if (digits !== String(identificacion) || (expectedPrefix && prefix !== expectedPrefix)) {
    return `the certificate belongs to ${serialNumber}, not to identificacion ${identificacion} (tipoIdentificacion ${tipo})`;
  }
  return undefined;
}

/** The serialNumber Hacienda writes for an id, e.g. 3101123456 → CPJ-3-101-123456 (used by test builders). */
export function certificateSerialNumberFor(identificacion: number, tipo: TipoIdentificacion): string {
  const d = String(identificacion);
  if (tipo === 1) return `CPF-0${d.slice(0, 1)}-${d.slice(1, 5)}-${d.slice(5)}`;
  if (tipo === 2) return `CPJ-${d.slice(0, 1)}-${d.slice(1, 4)}-${d.slice(4)}`;
  return `${tipo === 3 ? 'DIMEX' : 'NITE'}-${d}`;
}
