// Builds real PKCS#12 files shaped like Hacienda's "llave criptográfica": RSA 2048, a subject with the
// taxpayer id in serialNumber, issued by a "CA PERSONA JURIDICA/FISICA" test CA, encrypted with the legacy
// 3DES PBE and a SHA-1 MAC exactly as the real files are.
import { generateKeyPairSync } from 'node:crypto';
import forge from 'node-forge';
import { type TipoIdentificacion, certificateSerialNumberFor } from '../../src/emisor/identification';

/** Generated key pairs by size, then by index. */
const cachedKeys = new Map<number, forge.pki.rsa.KeyPair[]>();

function rsaKeyPair(index: number, modulusLength = 2048): forge.pki.rsa.KeyPair {
  const cached = cachedKeys.get(modulusLength) ?? [];
  cachedKeys.set(modulusLength, cached);
  while (cached.length <= index) {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength });
    const priv = forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs1', format: 'pem' }).toString());
    const rsaPriv = priv as forge.pki.rsa.PrivateKey;
    cached.push({ privateKey: rsaPriv, publicKey: forge.pki.setRsaPublicKey(rsaPriv.n, rsaPriv.e) });
  }
  return cached[index]!;
}

export interface P12Options {
  identificacion: number;
  tipoIdentificacion: TipoIdentificacion;
  pin: string;
  /** Default: valid from yesterday for 4 years. */
  notBefore?: Date;
  notAfter?: Date;
  commonName?: string;
  /** Override the subject serialNumber (e.g. another taxpayer's). */
  subjectSerialNumber?: string;
  /** Omit the private key from the archive. */
  withoutKey?: boolean;
  /** Which cached key pair to use (0 is the usual one). */
  keyIndex?: number;
  /** The issuer key's size (default 2048, as Hacienda's); the CA's stays 2048. */
  modulusLength?: number;
  /** The PKCS#12 key derivations' iteration count (forge's default 2048): what an open costs. */
  iterations?: number;
}

const DAY = 86_400_000;

export function makeP12(options: P12Options): Buffer {
  const keys = rsaKeyPair(options.keyIndex ?? 0, options.modulusLength);
  const ca = rsaKeyPair(9);
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = `0${Date.now().toString(16)}`;
  cert.validity.notBefore = options.notBefore ?? new Date(Date.now() - DAY);
  cert.validity.notAfter = options.notAfter ?? new Date(Date.now() + 4 * 365 * DAY);
  const juridica = options.tipoIdentificacion === 2;
  cert.setSubject([
    { shortName: 'CN', value: `${options.commonName ?? 'EMPRESA DE PRUEBA SOCIEDAD ANONIMA'} null` },
    { shortName: 'OU', value: juridica ? 'CPJ' : 'CPF' },
    { shortName: 'O', value: juridica ? 'PERSONA JURIDICA' : 'PERSONA FISICA' },
    { shortName: 'C', value: 'CR' },
    {
      type: '2.5.4.5',
      value:
        options.subjectSerialNumber ??
        certificateSerialNumberFor(options.identificacion, options.tipoIdentificacion),
    },
  ]);
  cert.setIssuer([
    { shortName: 'C', value: 'CR' },
    { shortName: 'O', value: 'MINISTERIO DE HACIENDA' },
    { shortName: 'OU', value: 'DGT' },
    { shortName: 'CN', value: juridica ? 'CA PERSONA JURIDICA' : 'CA PERSONA FISICA' },
  ]);
  cert.setExtensions([
    { name: 'keyUsage', digitalSignature: true, nonRepudiation: true },
    { name: 'extKeyUsage', emailProtection: true },
  ]);
  cert.sign(ca.privateKey, forge.md.sha256.create());
  const asn1 = forge.pkcs12.toPkcs12Asn1(options.withoutKey ? null : keys.privateKey, [cert], options.pin, {
    algorithm: '3des',
    ...(options.iterations ? { count: options.iterations } : {}),
  });
  return Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
}
