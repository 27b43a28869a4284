import { HaciendaXmlError } from './errors';
import { MAX_RSA_BITS, MIN_RSA_BITS, openP12 } from './signing-key';
import { makeTestP12 } from './testing/test-certificate';

function refusal(fn: () => unknown): HaciendaXmlError {
  try {
    fn();
  } catch (err) {
    if (err instanceof HaciendaXmlError) return err;
    throw err;
  }
  throw new Error('not refused');
}

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

  // Signing runs on the main thread: a self-made RSA-16384 key blocked every tenant ~200 ms per document.
  it('when the RSA key is smaller than 2048 or larger than 4096 bits, then the error says so with its size', () => {
    const small = makeTestP12({ modulusLength: 1024 });
    const smallErr = refusal(() => openP12(small.p12, small.pin));
    expect(smallErr.code).toBe('key_size');
    expect(smallErr.message).toBe(
      `RSA key of 1024 bits is outside the ${MIN_RSA_BITS} to ${MAX_RSA_BITS} accepted (Hacienda's keys have 2048)`,
    );
    // Just past the bound (generating an 8192-bit or larger key would take seconds).
    const large = makeTestP12({ modulusLength: MAX_RSA_BITS + 64 });
    expect(refusal(() => openP12(large.p12, large.pin)).message).toMatch(/^RSA key of 4160 bits is outside/);
  });
});
