// The signer's certificate as both verdicts judge it (a comprobante's and a MensajeReceptor's): issued by
// the sandbox CA, valid at the time of the verdict, and held by the taxpayer who must sign.
import { describeCertificate } from '@cr/hacienda-xml';
import { type KeyMaterial, identificationFromSubjectSerial, isIssuedByCa } from '../certificate-authority';
import { CODES, type Finding } from './findings';

export interface SignerCertificate {
  /** The subject's serialNumber (`CPJ-3-101-123456`), when it has one. */
  subjectSerialNumber?: string;
  notBefore: Date;
  notAfter: Date;
  issuedByCa: boolean;
}

/** Certificates already read, per CA, by their base64 text; most recently used last. */
const read = new WeakMap<KeyMaterial, Map<string, SignerCertificate>>();
const MAX_KEPT = 64;

/**
 * Reads the KeyInfo certificate (base64 DER) once per distinct certificate and CA: an issuer signs document
 * after document with the same one, and the X.509 parse and the check of the CA's signature on it cost more
 * than the rest of this check. What is kept depends only on the certificate's bytes and the CA; the time
 * is judged on every call. `undefined` when it is not a readable RSA certificate (not kept: asked again,
 * it is read again).
 */
export function readSignerCertificate(ca: KeyMaterial, base64: string): SignerCertificate | undefined {
  let kept = read.get(ca);
  if (!kept) {
    kept = new Map();
    read.set(ca, kept);
  }
  const known = kept.get(base64);
  if (known) {
    kept.delete(base64);
    kept.set(base64, known);
    return known;
  }
  const der = Buffer.from(base64, 'base64');
  let described: ReturnType<typeof describeCertificate>;
  try {
    described = describeCertificate(der);
  } catch {
    return undefined;
  }
  const certificate: SignerCertificate = Object.freeze({
    ...(described.subjectSerialNumber ? { subjectSerialNumber: described.subjectSerialNumber } : {}),
    notBefore: described.notBefore,
    notAfter: described.notAfter,
    issuedByCa: isIssuedByCa(ca, der),
  });
  if (kept.size >= MAX_KEPT) {
    const oldest = kept.keys().next();
    if (!oldest.done) kept.delete(oldest.value);
  }
  kept.set(base64, certificate);
  return certificate;
}

export interface SignerExpectation {
  /** The identification the signer must hold; undefined when the document names none. */
  expected: string | undefined;
  /** Who that is, for the finding's text: `emisor` or `receptor`. */
  rol: string;
  now: Date;
  trustAnyCa: boolean;
}

const stripZeros = (id: string) => id.replace(/^0+/, '');

export function signerCertificateFindings(cert: SignerCertificate, o: SignerExpectation): Finding[] {
  const findings: Finding[] = [];
  if (!o.trustAnyCa && !cert.issuedByCa) {
    findings.push({
      code: CODES.certificadoNoConfiable,
      text: 'El certificado del firmante no fue emitido por la autoridad certificadora del ambiente de pruebas',
    });
  }
  if (o.now < cert.notBefore || o.now > cert.notAfter) {
    findings.push({ code: CODES.certificadoVigencia, text: 'El certificado del firmante no está vigente' });
  }
  const serial = cert.subjectSerialNumber;
  const signer = serial ? identificationFromSubjectSerial(serial) : undefined;
  if (!signer || !o.expected || stripZeros(signer) !== stripZeros(o.expected)) {
    findings.push({
      code: CODES.certificadoEmisor,
      text: `El certificado del firmante (${serial ?? 'sin identificación'}) no corresponde al ${o.rol} ${o.expected ?? ''}`.trim(),
    });
  }
  return findings;
}
