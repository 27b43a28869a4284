import { HaciendaXmlError } from './errors';
import { openP12 } from './signing-key';
import { makeTestP12 } from './testing/test-certificate';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(HaciendaXmlError);
    return (err as HaciendaXmlError).code;
  }
  return undefined;
}

describe('openP12', () => {
  it('when a legacy 3DES PKCS#12 is opened with its PIN, then the key and Hacienda-shaped subject are read', () => {
    const { p12, pin } = makeTestP12({ pin: 'a-14-char-pin!' });
    const key = openP12(p12, pin);
    expect(key.privateKey.asymmetricKeyType).toBe('rsa');
    expect(key.subjectSerialNumber).toBe('CPJ-3-101-123456');
    expect(key.issuerName).toBe('CN=CA PERSONA JURIDICA, OU=DGT, O=MINISTERIO DE HACIENDA, C=CR');
    expect(key.serialNumber).toBe(BigInt('0x019c0f75b67a').toString());
    expect(key.notAfter.toISOString()).toBe('2029-01-01T00:00:00.000Z');
  });

  it('when the PIN is wrong, then the error says so', () => {
    const { p12 } = makeTestP12();
    expect(codeOf(() => openP12(p12, '9999'))).toBe('wrong_pin');
  });

  it('when the file is not a PKCS#12, then the error says so', () => {
    expect(codeOf(() => openP12(Buffer.from('not a p12'), '1234'))).toBe('invalid_p12');
  });

  it('when the archive holds no private key, then the error says so', () => {
    const { p12, pin } = makeTestP12({ withoutKey: true });
    expect(codeOf(() => openP12(p12, pin))).toBe('no_private_key');
  });
});
