import { makeP12 } from '../../test/support/certificates';
import { CertificateError, openCertificate } from './certificate';

describe('openCertificate', () => {
  it('when a Hacienda-shaped .p12 is opened with its PIN, then the key and subject are read', () => {
    const p12 = makeP12({
      identificacion: 3101123456,
      tipoIdentificacion: 2,
      pin: '1234',
      commonName: 'ACME SA',
    });
    const cert = openCertificate(p12, '1234');
    expect(cert.privateKey.asymmetricKeyType).toBe('rsa');
    expect(cert.subjectSerialNumber).toBe('CPJ-3-101-123456');
    expect(cert.commonName).toBe('ACME SA');
    expect(cert.subject).toContain('serialNumber=CPJ-3-101-123456');
    expect(cert.notAfter.getTime()).toBeGreaterThan(Date.now());
  });

  it.each([
    [
      'the PIN is wrong',
      () =>
        openCertificate(makeP12({ identificacion: 3101123456, tipoIdentificacion: 2, pin: '1234' }), '9999'),
      'wrong_pin',
    ],
    [
      'the bytes are not a PKCS#12',
      () => openCertificate(Buffer.from('not a p12 at all'), '1234'),
      'invalid_p12',
    ],
    [
      'there is no private key',
      () =>
        openCertificate(
          makeP12({ identificacion: 3101123456, tipoIdentificacion: 2, pin: '1', withoutKey: true }),
          '1',
        ),
      'no_private_key',
    ],
  ])('when %s, then the error says so', (_name, act, code) => {
    expect(act).toThrow(CertificateError);
    try {
      act();
    } catch (err) {
      expect((err as CertificateError).code).toBe(code);
    }
  });
});
