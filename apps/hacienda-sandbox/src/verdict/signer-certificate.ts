// The signer's certificate as both verdicts judge it (a comprobante's and a MensajeReceptor's): issued by
// the sandbox CA, valid at the time of the verdict, and held by the taxpayer who must sign.
import { X509Certificate } from 'node:crypto';
import { subjectSerialNumberOf } from '@cr/hacienda-xml';
import { LRUCache } from 'lru-cache';
import { type KeyMaterial, identificationFromSubjectSerial, isIssuedByCa } from '../certificate-authority';
import { CODES, type Finding } from './findings';

export interface SignerCertificate {
  /** The subject's serialNumber (`CPJ-3-101-123456`), when it has one. */
  subjectSerialNumber?: string;
  notBefore: Date;
  notAfter: Date;
  issuedByCa: boolean;
}

/** Certificates already read, per CA, by their base64 text; the least recently used beyond 64 are dropped. */
const read = new WeakMap<KeyMaterial, LRUCache<string, SignerCertificate>>();

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
    kept = new LRUCache({ max: 64 });
    read.set(ca, kept);
  }
  const known = kept.get(base64);
  if (known) return known;
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(Buffer.from(base64, 'base64'));
  } catch {
    return undefined;
  }
  if (x509.publicKey.asymmetricKeyType !== 'rsa') return undefined;
  const serial = subjectSerialNumberOf(x509);
  const certificate: SignerCertificate = Object.freeze({
    ...(serial ? { subjectSerialNumber: serial } : {}),
    notBefore: new Date(x509.validFrom),
    notAfter: new Date(x509.validTo),
    issuedByCa: isIssuedByCa(ca, x509),
  });
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
    const holder = serial ?? 'sin identificación';
    findings.push({
      code: CODES.certificadoEmisor,
      text: `El certificado del firmante (${holder}) no corresponde al ${o.rol} ${o.expected ?? ''}`.trim(),
    });
  }
  return findings;
}
