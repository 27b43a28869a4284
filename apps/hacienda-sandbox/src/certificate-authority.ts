// The sandbox's test certificate authority and its own keys, persisted as PEM files in DATA_DIR so that
// certificates issued before a restart keep verifying: the CA that issues llaves criptográficas shaped like
// Hacienda's (REFERENCE §5.3), the "Hacienda" seal that signs MensajeHacienda, and the IdP's token key.
import { X509Certificate, generateKeyPairSync, randomInt } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import forge from 'node-forge';

export const CA_SUBJECT = {
  CN: 'CA SANDBOX PERSONA JURIDICA',
  OU: 'DGT',
  O: 'MINISTERIO DE HACIENDA - SANDBOX',
  C: 'CR',
};

/** What issued certificates look like when the sandbox checks a signer. */
export interface KeyMaterial {
  keyPem: string;
  certPem: string;
}

export interface SandboxKeys {
  ca: KeyMaterial;
  /** The seal that signs MensajeHacienda ("ESTADO-MINISTERIO DE HACIENDA (SELLO ELECTRONICO)"). */
  hacienda: KeyMaterial;
  /** RS256 key of the IdP's tokens. */
  idpKeyPem: string;
}

export type TipoIdentificacionPersona = '01' | '02' | '03' | '04';

function attrs(map: Record<string, string>): forge.pki.CertificateField[] {
  return Object.entries(map).map(([shortName, value]) =>
    shortName === 'serialNumber' ? { name: 'serialNumber', value } : { shortName, value },
  );
}

function newRsaKeyPem(): string {
  return generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
    type: 'pkcs8',
    format: 'pem',
  }) as string;
}

/** A positive 13-digit, millisecond-timestamp-like serial as Hacienda's certificates carry. */
function newSerialHex(): string {
  const hex = (Date.now() * 10 + randomInt(10)).toString(16);
  return hex.length % 2 ? `0${hex}` : hex;
}

function writeSecret(path: string, content: string): void {
  writeFileSync(path, content, { mode: 0o600 });
}

function createCa(): KeyMaterial {
  const keyPem = newRsaKeyPem();
  const key = forge.pki.privateKeyFromPem(keyPem) as forge.pki.rsa.PrivateKey;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  cert.serialNumber = newSerialHex();
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 20 * 365 * 86_400_000);
  cert.setSubject(attrs(CA_SUBJECT));
  cert.setIssuer(attrs(CA_SUBJECT));
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(key, forge.md.sha256.create());
  return { keyPem, certPem: forge.pki.certificateToPem(cert) };
}

/** `3101745822` → `CPJ-3-101-745822`; `109870456` → `CPF-01-0987-0456` (REFERENCE §5.3). */
export function formatSubjectSerial(tipo: TipoIdentificacionPersona, identificacion: string): string {
  if (tipo === '01') {
    const d = identificacion.padStart(10, '0').slice(-10);
    return `CPF-${d.slice(0, 2)}-${d.slice(2, 6)}-${d.slice(6)}`;
  }
  if (tipo === '02')
    return `CPJ-${identificacion.slice(0, 1)}-${identificacion.slice(1, 4)}-${identificacion.slice(4)}`;
  // DIMEX and NITE shapes are not documented; the sandbox keeps the digits recognisable.
  return `${tipo === '03' ? 'DIMEX' : 'NITE'}-${identificacion}`;
}

/** The digits of the identification a subject serialNumber carries (`CPF-01-0987-0456` → `109870456`). */
export function identificationFromSubjectSerial(serial: string): string | undefined {
  const m = /^(CPF|CPJ|DIMEX|NITE)-([0-9-]+)$/.exec(serial.trim());
  if (!m?.[2]) return undefined;
  const digits = m[2].replace(/-/g, '');
  return m[1] === 'CPF' ? digits.replace(/^0/, '') : digits;
}

export interface IssueOptions {
  identificacion: string;
  tipoIdentificacion: TipoIdentificacionPersona;
  nombre: string;
  now?: Date;
}

export interface IssuedCertificate extends KeyMaterial {
  subject: string;
  issuer: string;
  serialNumber: string;
  notBefore: Date;
  notAfter: Date;
}

function dnString(fields: forge.pki.CertificateField[]): string {
  return fields.map((f) => `${f.shortName ?? f.name}=${String(f.value)}`).join(', ');
}

/** Issues an RSA-2048, 4-year certificate for a taxpayer, signed by the CA. */
export function issueCertificate(ca: KeyMaterial, options: IssueOptions): IssuedCertificate {
  const caKey = forge.pki.privateKeyFromPem(ca.keyPem);
  const caCert = forge.pki.certificateFromPem(ca.certPem);
  const keyPem = newRsaKeyPem();
  const key = forge.pki.privateKeyFromPem(keyPem) as forge.pki.rsa.PrivateKey;
  const fisica = options.tipoIdentificacion === '01';
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  cert.serialNumber = newSerialHex();
  // Back-dated an hour so that clients with a slightly slow clock can sign at once.
  const now = new Date((options.now ?? new Date()).getTime() - 3600_000);
  cert.validity.notBefore = now;
  const notAfter = new Date(now);
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + 4);
  notAfter.setUTCDate(notAfter.getUTCDate() - 1);
  cert.validity.notAfter = notAfter;
  // Field order and the literal " null" after the name follow real Hacienda certificates.
  cert.setSubject(
    attrs({
      serialNumber: formatSubjectSerial(options.tipoIdentificacion, options.identificacion),
      C: 'CR',
      O: fisica ? 'PERSONA FISICA' : 'PERSONA JURIDICA',
      OU: fisica ? 'CPF' : 'CPJ',
      CN: `${options.nombre.toUpperCase()} null`,
    }),
  );
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, critical: true },
    { name: 'extKeyUsage', emailProtection: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(caKey, forge.md.sha256.create());
  return {
    keyPem,
    certPem: forge.pki.certificateToPem(cert),
    subject: dnString(cert.subject.attributes),
    issuer: dnString(cert.issuer.attributes),
    serialNumber: BigInt(`0x${cert.serialNumber}`).toString(10),
    notBefore: cert.validity.notBefore,
    notAfter: cert.validity.notAfter,
  };
}

/** Legacy PKCS#12 (3DES key bag, RC2-40 cert bag, SHA-1 MAC) as Hacienda's .p12 files use. */
export function toLegacyP12(issued: KeyMaterial, ca: KeyMaterial, pin: string, friendlyName: string): Buffer {
  const asn1 = forge.pkcs12.toPkcs12Asn1(
    forge.pki.privateKeyFromPem(issued.keyPem),
    [forge.pki.certificateFromPem(issued.certPem), forge.pki.certificateFromPem(ca.certPem)],
    pin,
    { algorithm: '3des', friendlyName, generateLocalKeyId: true },
  );
  return Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
}

/** Each CA's own certificate, read once. */
const caCertificates = new WeakMap<KeyMaterial, X509Certificate>();

/**
 * Whether the CA issued the certificate (DER, or one already read): its issuer names the CA (and the key
 * identifiers agree) and the CA's key made its signature. OpenSSL through node:crypto, with the CA's
 * certificate read once: every comprobante the sandbox judges asks, and node-forge's JavaScript RSA took
 * ~0.8 ms of it each time.
 */
export function isIssuedByCa(ca: KeyMaterial, certificate: Buffer | X509Certificate): boolean {
  let caCert = caCertificates.get(ca);
  if (!caCert) {
    caCert = new X509Certificate(ca.certPem);
    caCertificates.set(ca, caCert);
  }
  try {
    const cert = certificate instanceof X509Certificate ? certificate : new X509Certificate(certificate);
    return cert.checkIssued(caCert) && cert.verify(caCert.publicKey);
  } catch {
    return false;
  }
}

function loadOrCreate(dir: string, name: string, create: () => KeyMaterial): KeyMaterial {
  const keyPath = join(dir, `${name}-key.pem`);
  const certPath = join(dir, `${name}-cert.pem`);
  if (existsSync(keyPath) && existsSync(certPath)) {
    return { keyPem: readFileSync(keyPath, 'utf8'), certPem: readFileSync(certPath, 'utf8') };
  }
  const made = create();
  writeSecret(keyPath, made.keyPem);
  writeFileSync(certPath, made.certPem);
  return made;
}

/** Loads the keys from `dir`, creating (and persisting) whatever is missing. */
export function loadOrCreateKeys(dir: string): SandboxKeys {
  const keysDir = join(dir, 'keys');
  mkdirSync(keysDir, { recursive: true, mode: 0o700 });
  const ca = loadOrCreate(keysDir, 'ca', createCa);
  const hacienda = loadOrCreate(keysDir, 'hacienda', () =>
    issueCertificate(ca, {
      identificacion: '2100042005',
      tipoIdentificacion: '02',
      nombre: 'ESTADO-MINISTERIO DE HACIENDA (SELLO ELECTRONICO)',
    }),
  );
  const idpPath = join(keysDir, 'idp-key.pem');
  if (!existsSync(idpPath)) writeSecret(idpPath, newRsaKeyPem());
  return { ca, hacienda, idpKeyPem: readFileSync(idpPath, 'utf8') };
}
