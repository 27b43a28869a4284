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

/** Why `now` lies outside [notBefore, notAfter] (both ends included), or undefined when it lies within. */
export type CertificateDateProblem = { kind: 'expired'; at: Date } | { kind: 'not-yet-valid'; at: Date };

/**
 * The one reading of a certificate's dates, for registration and for signing alike: both ends included, as
 * X.509 (RFC 5280 §4.1.2.5) and Hacienda read them, so a certificate registered at an instant also signs then.
 */
export function certificateDateProblem(
  certificate: CertificateValidity,
  now: Date,
): CertificateDateProblem | undefined {
  if (now.getTime() > certificate.notAfter.getTime()) return { kind: 'expired', at: certificate.notAfter };
  if (now.getTime() < certificate.notBefore.getTime()) {
    return { kind: 'not-yet-valid', at: certificate.notBefore };
  }
  return undefined;
}

/**
 * Throws 422 `unprocessable` unless `now` lies within the certificate's validity. The request is
 * well-formed; the issuer it names cannot sign now. The instants are written in Costa Rica time with their
 * offset, as the issuer's ATV shows them.
 */
export function assertCertificateValidAt(
  certificate: CertificateValidity,
  now: Date,
  signer: SignerRef,
): void {
  const problem = certificateDateProblem(certificate, now);
  if (!problem) return;
  const subject = `${signer.field}: the certificate of issuer ${signer.identificacion}`;
  const at = formatCostaRicaDateTime(problem.at);
  throw new AppError(
    'unprocessable',
    problem.kind === 'expired'
      ? `${subject} expired at ${at}; upload a renewed .p12 with ${RENEW}`
      : `${subject} is not valid until ${at}; send the document from then on, or upload a .p12 valid now with ${RENEW}`,
  );
}
