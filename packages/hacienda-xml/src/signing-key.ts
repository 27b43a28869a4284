// Opens the issuer's PKCS#12 (.p12 "llave criptográfica") into a SigningKey the caller caches: node-forge
// parses it because Hacienda's files use legacy algorithms (3DES / RC2) that OpenSSL 3 no longer loads by
// default; the key is then handed to node:crypto for fast signing.
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import forge from 'node-forge';
import { HaciendaXmlError } from './errors';
import { p12OpeningProblem } from './p12-iterations';

/**
 * RSA modulus sizes accepted for a signing key. Hacienda's certificates (BCCR / ATV "llave criptográfica")
 * are RSA 2048; signing runs on the main thread and its cost grows with the cube of the size, so a self-made
 * RSA-16384 key would block every tenant for ~200 ms per document.
 */
export const MIN_RSA_BITS = 2048;
export const MAX_RSA_BITS = 4096;

export interface SigningKey {
  privateKey: KeyObject;
  /** DER bytes of the signing certificate. */
  certificateDer: Buffer;
  certificatePem: string;
  /** Subject as a single line, e.g. `serialNumber=CPJ-3-101-123456, C=CR, O=…, CN=…`. */
  subject: string;
  /** The subject's serialNumber attribute (the taxpayer id, e.g. `CPJ-3-101-123456`), when present. */
  subjectSerialNumber?: string;
  /** Issuer DN in the RFC 4514 order XMLDSig uses, e.g. `CN=CA PERSONA JURIDICA, OU=DGT, O=…, C=CR`. */
  issuerName: string;
  /** Certificate serial number in decimal, as X509SerialNumber writes it. */
  serialNumber: string;
  notBefore: Date;
  notAfter: Date;
  /** Base64 of the RSA modulus and exponent, for KeyInfo/KeyValue. */
  modulus: string;
  exponent: string;
}

/** node:crypto's multi-line DN (`C=CR\nO=…`) → RFC 4514 order (`CN=…, O=…, C=CR`). */
export function formatDistinguishedName(multiline: string): string {
  return multiline
    .split('\n')
    .filter((s) => s.length > 0)
    .reverse()
    .join(', ');
}

/** The subject's serialNumber attribute (`CPF-01-0234-0567`), where Hacienda's certificates name the holder. */
export function subjectSerialNumberOf(cert: X509Certificate): string | undefined {
  const line = cert.subject.split('\n').find((l) => l.startsWith('serialNumber='));
  return line?.slice('serialNumber='.length);
}

/** Describes an X.509 certificate (DER) the way SigningKey does, without a private key. */
export function describeCertificate(der: Buffer): Omit<SigningKey, 'privateKey'> {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(der);
  } catch (err) {
    throw new HaciendaXmlError('invalid_certificate', 'the certificate cannot be parsed', { cause: err });
  }
  const publicKey = cert.publicKey;
  if (publicKey.asymmetricKeyType !== 'rsa')
    throw new HaciendaXmlError('not_rsa', 'the certificate key is not RSA');
  const jwk = publicKey.export({ format: 'jwk' });
  const subjectSerialNumber = subjectSerialNumberOf(cert);
  return {
    certificateDer: Buffer.from(der),
    certificatePem: cert.toString(),
    subject: formatDistinguishedName(cert.subject),
    ...(subjectSerialNumber ? { subjectSerialNumber } : {}),
    issuerName: formatDistinguishedName(cert.issuer),
    serialNumber: BigInt(`0x${cert.serialNumber}`).toString(10),
    notBefore: new Date(cert.validFrom),
    notAfter: new Date(cert.validTo),
    modulus: Buffer.from(jwk.n!, 'base64url').toString('base64'),
    exponent: Buffer.from(jwk.e!, 'base64url').toString('base64'),
  };
}

/**
 * Opens a PKCS#12 with its PIN. Errors (HaciendaXmlError.code): `invalid_p12` (not a PKCS#12),
 * `p12_iterations` (an iteration count beyond MAX_P12_ITERATIONS, more than MAX_P12_KEY_BAGS key bags or
 * counts beyond MAX_P12_TOTAL_ITERATIONS, refused before any key derivation), `wrong_pin`, `no_private_key`,
 * `no_certificate`, `not_rsa`, `key_size` (modulus outside MIN_RSA_BITS…MAX_RSA_BITS), `key_mismatch` (no
 * certificate matches the key).
 */
export function openP12(p12: Buffer | Uint8Array, pin: string): SigningKey {
  // node-forge derives keys with whatever counts the file asks for, in pure JS: check them all first.
  const tooMany = p12OpeningProblem(p12, pin);
  if (tooMany) throw new HaciendaXmlError('p12_iterations', tooMany);
  let asn1: forge.asn1.Asn1;
  try {
    asn1 = forge.asn1.fromDer(forge.util.createBuffer(Buffer.from(p12).toString('binary')));
  } catch (err) {
    throw new HaciendaXmlError('invalid_p12', 'the file is not a PKCS#12 (.p12) archive', { cause: err });
  }
  let archive: forge.pkcs12.Pkcs12Pfx;
  try {
    archive = forge.pkcs12.pkcs12FromAsn1(asn1, false, pin);
  } catch (err) {
    const message = (err as Error).message ?? '';
    if (/mac|password|invalid/i.test(message)) {
      throw new HaciendaXmlError('wrong_pin', 'the PIN does not open this certificate', { cause: err });
    }
    throw new HaciendaXmlError('invalid_p12', `the PKCS#12 cannot be read: ${message}`, { cause: err });
  }
  const keyBags = [
    ...(archive.getBags({ bagType: forge.pki.oids.pkcs8ShroudedKeyBag! })[
      forge.pki.oids.pkcs8ShroudedKeyBag!
    ] ?? []),
    ...(archive.getBags({ bagType: forge.pki.oids.keyBag! })[forge.pki.oids.keyBag!] ?? []),
  ];
  const keyBag = keyBags.find((b) => b.key);
  if (!keyBag?.key) {
    if (keyBags.length > 0) throw new HaciendaXmlError('not_rsa', 'the private key is not an RSA key');
    throw new HaciendaXmlError('no_private_key', 'the PKCS#12 holds no private key');
  }
  const forgeKey = keyBag.key as forge.pki.rsa.PrivateKey;
  const certBags = archive.getBags({ bagType: forge.pki.oids.certBag! })[forge.pki.oids.certBag!] ?? [];
  if (certBags.length === 0) throw new HaciendaXmlError('no_certificate', 'the PKCS#12 holds no certificate');
  const privateKey = createPrivateKey(forge.pki.privateKeyToPem(forgeKey));
  if (privateKey.asymmetricKeyType !== 'rsa')
    throw new HaciendaXmlError('not_rsa', 'the private key is not an RSA key');
  const bits = privateKey.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < MIN_RSA_BITS || bits > MAX_RSA_BITS) {
    throw new HaciendaXmlError(
      'key_size',
      `RSA key of ${bits} bits is outside the ${MIN_RSA_BITS} to ${MAX_RSA_BITS} accepted (Hacienda's keys have 2048)`,
    );
  }
  const modulusHex = forgeKey.n.toString(16);
  const match = certBags.find((b) => {
    const pub = b.cert?.publicKey as forge.pki.rsa.PublicKey | undefined;
    return pub?.n !== undefined && pub.n.toString(16) === modulusHex;
  });
  if (!match?.cert)
    throw new HaciendaXmlError('key_mismatch', 'no certificate in the PKCS#12 matches its private key');
  const der = Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(match.cert)).getBytes(), 'binary');
  return { privateKey, ...describeCertificate(der) };
}
