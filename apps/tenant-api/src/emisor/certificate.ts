// Opens an issuer's PKCS#12 (.p12 "llave criptográfica") with its PIN through the engine's openP12 (node-forge,
// because Hacienda's files use legacy 3DES/RC2 PKCS#12 algorithms), and turns its errors into reasons the
// issuer's 400 can show next to the field.
import { HaciendaXmlError, type SigningKey, openP12 } from '@cr/hacienda-xml';

export type CertificateErrorCode =
  | 'invalid_p12'
  | 'wrong_pin'
  | 'no_private_key'
  | 'not_rsa'
  | 'key_size'
  | 'no_certificate'
  | 'too_many_iterations'
  | 'open_timeout';

export class CertificateError extends Error {
  constructor(
    readonly code: CertificateErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'CertificateError';
  }
}

export interface OpenedCertificate extends SigningKey {
  /** The subject's CN, without the literal " null" Hacienda appends. */
  commonName?: string;
}

const REASONS: Record<string, [CertificateErrorCode, string]> = {
  invalid_p12: ['invalid_p12', 'is not a PKCS#12 (.p12) file'],
  wrong_pin: ['wrong_pin', 'PIN does not open the certificate'],
  no_private_key: ['no_private_key', 'holds no private key'],
  not_rsa: ['not_rsa', 'holds a private key that is not RSA'],
  no_certificate: ['no_certificate', 'holds no certificate'],
  key_mismatch: ['no_certificate', 'holds no certificate for its private key'],
};

/**
 * Errors whose engine message is itself the reason: it says what was found and what is accepted (the
 * iteration count and its cap, the key's size and the accepted range).
 */
const MESSAGE_IS_REASON: Record<string, CertificateErrorCode> = {
  p12_iterations: 'too_many_iterations',
  key_size: 'key_size',
};

function commonNameOf(subject: string): string | undefined {
  const cn = subject
    .split(', ')
    .find((part) => part.startsWith('CN='))
    ?.slice(3);
  return cn?.replace(/\s+null$/, '').trim() || undefined;
}

export function openCertificate(p12: Buffer, pin: string): OpenedCertificate {
  let key: SigningKey;
  try {
    key = openP12(p12, pin);
  } catch (err) {
    if (err instanceof HaciendaXmlError) {
      const own = MESSAGE_IS_REASON[err.code];
      if (own) throw new CertificateError(own, err.message);
      const [code, reason] = REASONS[err.code] ?? ['invalid_p12', 'is not a readable PKCS#12 (.p12) file'];
      throw new CertificateError(code, reason);
    }
    throw new CertificateError('invalid_p12', 'is not a readable PKCS#12 (.p12) file');
  }
  const cn = commonNameOf(key.subject);
  return { ...key, ...(cn ? { commonName: cn } : {}) };
}
