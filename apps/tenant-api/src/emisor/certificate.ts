// Opens an issuer's PKCS#12 (.p12 "llave criptográfica") with its PIN and describes the certificate.
// node-forge parses it because Hacienda's files use legacy PKCS#12 algorithms (3DES / RC2) that OpenSSL 3
// refuses by default; the key is handed to node:crypto for signing. Errors say precisely what is wrong
// with the file so the issuer's 400 can name it.
import { type KeyObject, X509Certificate, createPrivateKey } from 'node:crypto';
import forge from 'node-forge';

export type CertificateErrorCode =
  | 'invalid_p12'
  | 'wrong_pin'
  | 'no_private_key'
  | 'not_rsa'
  | 'no_certificate';

export class CertificateError extends Error {
  constructor(
    readonly code: CertificateErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'CertificateError';
  }
}

export interface OpenedCertificate {
  privateKey: KeyObject;
  certificatePem: string;
  /** RFC 4514 order, e.g. `CN=ACME SA null, OU=CPJ, O=PERSONA JURIDICA, C=CR, serialNumber=CPJ-3-101-123456`. */
  subject: string;
  /** The subject's serialNumber attribute: the taxpayer id, e.g. `CPJ-3-101-123456`. */
  subjectSerialNumber?: string;
  /** The subject's CN, without the literal " null" Hacienda appends. */
  commonName?: string;
  /** Certificate serial number, decimal. */
  serialNumber: string;
  notBefore: Date;
  notAfter: Date;
}

function attribute(lines: string[], name: string): string | undefined {
  const line = lines.find((l) => l.startsWith(`${name}=`));
  return line?.slice(name.length + 1);
}

export function openCertificate(p12: Buffer, pin: string): OpenedCertificate {
  let asn1: forge.asn1.Asn1;
  try {
    asn1 = forge.asn1.fromDer(forge.util.createBuffer(p12.toString('binary')));
  } catch {
    throw new CertificateError('invalid_p12', 'is not a PKCS#12 (.p12) file');
  }
  let archive: forge.pkcs12.Pkcs12Pfx;
  try {
    archive = forge.pkcs12.pkcs12FromAsn1(asn1, false, pin);
  } catch (err) {
    const message = err instanceof Error ? err.message : '';
    if (/MAC could not be verified|Invalid password|decrypt/i.test(message)) {
      throw new CertificateError('wrong_pin', 'PIN does not open the certificate');
    }
    throw new CertificateError('invalid_p12', 'is not a readable PKCS#12 (.p12) file');
  }
  const shrouded = forge.pki.oids.pkcs8ShroudedKeyBag!;
  const plain = forge.pki.oids.keyBag!;
  const keyBags = [
    ...(archive.getBags({ bagType: shrouded })[shrouded] ?? []),
    ...(archive.getBags({ bagType: plain })[plain] ?? []),
  ];
  if (keyBags.length === 0) throw new CertificateError('no_private_key', 'holds no private key');
  // forge decodes only RSA keys; a key bag it could not decode holds another kind of key.
  const forgeKey = keyBags.find((b) => b.key)?.key as forge.pki.rsa.PrivateKey | undefined;
  if (!forgeKey) throw new CertificateError('not_rsa', 'holds a private key that is not RSA');
  const privateKey = createPrivateKey(forge.pki.privateKeyToPem(forgeKey));
  if (privateKey.asymmetricKeyType !== 'rsa')
    throw new CertificateError('not_rsa', 'holds a private key that is not RSA');
  const certOid = forge.pki.oids.certBag!;
  const certBags = archive.getBags({ bagType: certOid })[certOid] ?? [];
  const modulus = forgeKey.n.toString(16);
  const match = certBags.find(
    (b) => (b.cert?.publicKey as forge.pki.rsa.PublicKey | undefined)?.n?.toString(16) === modulus,
  );
  if (!match?.cert) throw new CertificateError('no_certificate', 'holds no certificate for its private key');
  const pem = forge.pki.certificateToPem(match.cert);
  const x509 = new X509Certificate(pem);
  const lines = x509.subject.split('\n').filter(Boolean);
  const cn = attribute(lines, 'CN')
    ?.replace(/\s+null$/, '')
    .trim();
  const serial = attribute(lines, 'serialNumber');
  return {
    privateKey,
    certificatePem: pem,
    subject: [...lines].reverse().join(', '),
    ...(serial ? { subjectSerialNumber: serial } : {}),
    ...(cn ? { commonName: cn } : {}),
    serialNumber: BigInt(`0x${x509.serialNumber}`).toString(10),
    notBefore: new Date(x509.validFrom),
    notAfter: new Date(x509.validTo),
  };
}
