import { formatSubjectSerial, identificationFromSubjectSerial } from './certificate-authority';

describe('subject serialNumber', () => {
  it.each([
    ['02', '3101745822', 'CPJ-3-101-745822'],
    ['01', '109870456', 'CPF-01-0987-0456'],
    ['03', '155812345678', 'DIMEX-155812345678'],
    ['04', '4000123456', 'NITE-4000123456'],
  ] as const)('when tipo %s id %s, then %s, and back', (tipo, id, serial) => {
    expect(formatSubjectSerial(tipo, id)).toBe(serial);
    expect(identificationFromSubjectSerial(serial)).toBe(id);
  });

  it('when the serial is not a taxpayer id, then nothing is read from it', () => {
    expect(identificationFromSubjectSerial('ABC-123')).toBeUndefined();
  });
});
