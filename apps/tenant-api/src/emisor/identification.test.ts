import {
  certificateSerialNumberFor,
  checkCertificateOwner,
  checkIdentificationShape,
} from './identification';

describe('checkIdentificationShape', () => {
  it.each([
    [102340567, 1],
    [3101123456, 2],
    [15501234567, 3],
    [155012345678, 3],
    [1234567890, 4],
  ] as const)('when %i is given for type %i, then it fits', (id, tipo) => {
    expect(checkIdentificationShape(id, tipo)).toBeUndefined();
  });

  it.each([
    [12345678, 1, /cédula física .* 9 digits/],
    [310112345, 2, /cédula jurídica .* 10 digits/],
    [1234567890, 3, /DIMEX .* 11 to 12 digits/],
    [123456789, 4, /NITE .* 10 digits/],
  ] as const)('when %i is given for type %i, then the reason says the expected length', (id, tipo, re) => {
    expect(checkIdentificationShape(id, tipo)).toMatch(re);
  });
});

describe('checkCertificateOwner', () => {
  it('when the serialNumber encodes the same id, then it belongs to the issuer', () => {
    expect(checkCertificateOwner('CPJ-3-101-123456', 3101123456, 2)).toBeUndefined();
    expect(checkCertificateOwner('CPF-01-0234-0567', 102340567, 1)).toBeUndefined();
    expect(certificateSerialNumberFor(102340567, 1)).toBe('CPF-01-0234-0567');
    expect(certificateSerialNumberFor(3101123456, 2)).toBe('CPJ-3-101-123456');
  });

  it('when the id or the person kind differs, then the reason names the owner', () => {
    expect(checkCertificateOwner('CPJ-3-101-999999', 3101123456, 2)).toMatch(/belongs to CPJ-3-101-999999/);
    expect(checkCertificateOwner('CPJ-1-023-40567', 102340567, 1)).toMatch(/belongs to/);
    expect(checkCertificateOwner(undefined, 102340567, 1)).toMatch(/no serialNumber/);
  });
});
