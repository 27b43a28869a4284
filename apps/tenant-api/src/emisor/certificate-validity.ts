// Whether an issuer's stored certificate may sign now. Registration checks its dates once, but a
// certificate expires while it is stored (four years after issue), and Hacienda rejects a document signed
// outside the signer's validity (the sandbox's code -53): refusing before the document is numbered leaves
// the consecutivo free for the same document once a renewed .p12 is uploaded. The dates come with the
// signing material, opened once per issuer version, so the check costs two comparisons per document.
import { formatCostaRicaDateTime } from '@cr/hacienda-xml';
import { AppError } from '@cr/service-kit';

export interface CertificateValidity {
  notBefore: Date;
  notAfter: Date;
}

/** Who would sign: the request's field that names the issuer (for the message's path) and its number. */
export interface SignerRef {
  field: string;
  identificacion: string;
}

const RENEW = 'POST /api/actualizar/emisor';

/**
 * Throws 422 `unprocessable` unless `now` lies within [notBefore, notAfter], both ends included as X.509
 * (RFC 5280 §4.1.2.5) and Hacienda read them. The request is well-formed; the issuer it names cannot sign
 * now. The instants are written in Costa Rica time with their offset, as the issuer's ATV shows them.
 */
export function assertCertificateValidAt(
  certificate: CertificateValidity,
  now: Date,
  signer: SignerRef,
): void {
  const subject = `${signer.field}: the certificate of issuer ${signer.identificacion}`;
  if (now.getTime() > certificate.notAfter.getTime()) {
    throw new AppError(
      'unprocessable',
      `${subject} expired at ${formatCostaRicaDateTime(certificate.notAfter)}; upload a renewed .p12 with ${RENEW}`,
    );
  }
  if (now.getTime() < certificate.notBefore.getTime()) {
    throw new AppError(
      'unprocessable',
      `${subject} is not valid until ${formatCostaRicaDateTime(certificate.notBefore)}; send the document from then on, or upload a .p12 valid now with ${RENEW}`,
    );
  }
}
