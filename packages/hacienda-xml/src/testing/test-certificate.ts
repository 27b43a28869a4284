// Test-only: Hacienda-shaped certificates and legacy PKCS#12 files made with node-forge (never shipped).
import { generateKeyPairSync } from 'node:crypto';
import forge from 'node-forge';

export interface TestP12Options {
  pin?: string;
  subjectSerial?: string;
  commonName?: string;
  notBefore?: Date;
  notAfter?: Date;
  /** Leave the private key out of the archive. */
  withoutKey?: boolean;
}

let cachedKeys: { privateKey: forge.pki.rsa.PrivateKey; publicKey: forge.pki.rsa.PublicKey } | undefined;

function testKeys() {
  if (!cachedKeys) {
    // node:crypto generates the key (forge's pure-JS generation takes seconds); forge wraps it.
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const forgeKey = forge.pki.privateKeyFromPem(
      privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    );
    cachedKeys = { privateKey: forgeKey, publicKey: forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e) };
  }
  return cachedKeys;
}

export function makeTestP12(options: TestP12Options = {}): { p12: Buffer; pin: string } {
  const pin = options.pin ?? '1234';
  const keys = testKeys();
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = '019c0f75b67a';
  cert.validity.notBefore = options.notBefore ?? new Date('2025-01-01T00:00:00Z');
  cert.validity.notAfter = options.notAfter ?? new Date('2029-01-01T00:00:00Z');
  cert.setSubject([
    { type: '2.5.4.5', value: options.subjectSerial ?? 'CPJ-3-101-123456' },
    { name: 'countryName', value: 'CR' },
    { name: 'organizationName', value: 'PERSONA JURIDICA' },
    { shortName: 'OU', value: 'CPJ' },
    { name: 'commonName', value: options.commonName ?? 'EMPRESA DE PRUEBA SOCIEDAD ANONIMA null' },
  ]);
  cert.setIssuer([
    { name: 'countryName', value: 'CR' },
    { name: 'organizationName', value: 'MINISTERIO DE HACIENDA' },
    { shortName: 'OU', value: 'DGT' },
    { name: 'commonName', value: 'CA PERSONA JURIDICA' },
  ]);
  cert.setExtensions([
    { name: 'keyUsage', digitalSignature: true, nonRepudiation: true },
    { name: 'extKeyUsage', emailProtection: true },
  ]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  const asn1 = forge.pkcs12.toPkcs12Asn1(options.withoutKey ? null : keys.privateKey, [cert], pin, {
    algorithm: '3des',
  });
  return { p12: Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary'), pin };
}

export interface TestCa {
  certPem: string;
  key: forge.pki.rsa.PrivateKey;
  cert: forge.pki.Certificate;
}

function newForgeKey(): forge.pki.rsa.PrivateKey {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return forge.pki.privateKeyFromPem(
    privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
  ) as forge.pki.rsa.PrivateKey;
}

/** A self-signed CA named like Hacienda's (an attacker can name theirs the same: names prove nothing). */
export function makeTestCa(commonName = 'CA SANDBOX PERSONA JURIDICA'): TestCa {
  const key = newForgeKey();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date('2024-01-01T00:00:00Z');
  cert.validity.notAfter = new Date('2044-01-01T00:00:00Z');
  const name = [
    { shortName: 'CN', value: commonName },
    { shortName: 'OU', value: 'DGT' },
    { shortName: 'O', value: 'MINISTERIO DE HACIENDA - SANDBOX' },
    { shortName: 'C', value: 'CR' },
  ];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(key, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), key, cert };
}

/** A .p12 whose certificate `ca` issued (Hacienda's seal by default). */
export function issueTestP12(
  ca: TestCa,
  options: { subjectSerial?: string; commonName?: string; pin?: string } = {},
): { p12: Buffer; pin: string } {
  const pin = options.pin ?? '1234';
  const key = newForgeKey();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  cert.serialNumber = '019c0f75b67b';
  cert.validity.notBefore = new Date('2025-01-01T00:00:00Z');
  cert.validity.notAfter = new Date('2040-01-01T00:00:00Z');
  cert.setSubject([
    { type: '2.5.4.5', value: options.subjectSerial ?? 'CPJ-2-100-042005' },
    { name: 'countryName', value: 'CR' },
    { name: 'organizationName', value: 'PERSONA JURIDICA' },
    { shortName: 'OU', value: 'CPJ' },
    {
      name: 'commonName',
      value: options.commonName ?? 'ESTADO-MINISTERIO DE HACIENDA (SELLO ELECTRONICO) null',
    },
  ]);
  cert.setIssuer(ca.cert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, critical: true },
  ]);
  cert.sign(ca.key, forge.md.sha256.create());
  const asn1 = forge.pkcs12.toPkcs12Asn1(key, [cert], pin, { algorithm: '3des' });
  return { p12: Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary'), pin };
}
