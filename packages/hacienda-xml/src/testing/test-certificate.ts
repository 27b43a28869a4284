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
  /** RSA key size (default 2048, as Hacienda's); one key per size is generated and kept. */
  modulusLength?: number;
}

const cachedKeys = new Map<
  number,
  { privateKey: forge.pki.rsa.PrivateKey; publicKey: forge.pki.rsa.PublicKey }
>();

function testKeys(modulusLength = 2048) {
  let keys = cachedKeys.get(modulusLength);
  if (!keys) {
    // node:crypto generates the key (forge's pure-JS generation takes seconds); forge wraps it.
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength });
    const forgeKey = forge.pki.privateKeyFromPem(
      privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    );
    keys = { privateKey: forgeKey, publicKey: forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e) };
    cachedKeys.set(modulusLength, keys);
  }
  return keys;
}

export function makeTestP12(options: TestP12Options = {}): { p12: Buffer; pin: string } {
  const pin = options.pin ?? '1234';
  const keys = testKeys(options.modulusLength);
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

const asn1 = forge.asn1;

function integerDer(value: bigint): string {
  let hex = value.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  if (Number.parseInt(hex.slice(0, 2), 16) & 0x80) hex = `00${hex}`;
  return forge.util.hexToBytes(hex);
}

function integerNode(value: bigint): forge.asn1.Asn1 {
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.INTEGER, false, integerDer(value));
}

function oidNode(oid: string): forge.asn1.Asn1 {
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(oid).getBytes());
}

function octets(bytes: string): forge.asn1.Asn1 {
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OCTETSTRING, false, bytes);
}

function seq(...items: forge.asn1.Asn1[]): forge.asn1.Asn1 {
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, items);
}

function explicit0(item: forge.asn1.Asn1): forge.asn1.Asn1 {
  return asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, true, [item]);
}

const der = (node: forge.asn1.Asn1) => asn1.toDer(node).getBytes();
const DATA = '1.2.840.113549.1.7.1';
const PBE_3DES = '1.2.840.113549.1.12.1.3';
const SHROUDED_KEY_BAG = '1.2.840.113549.1.12.10.1.2';

/**
 * The attack of issue 11.1: a PKCS#12 of a few dozen bytes (an empty safe) whose MAC asks for `iterations`
 * key-derivation rounds; node-forge would run them all, in pure JS, before it ever checks the PIN.
 */
export function iterationBombP12(iterations: bigint = 2n ** 31n): Buffer {
  const authSafe = seq(oidNode(DATA), explicit0(octets(der(seq()))));
  const digestInfo = seq(seq(oidNode('1.3.14.3.2.26')), octets(''));
  const macData = seq(digestInfo, octets(''), integerNode(iterations));
  return Buffer.from(der(seq(integerNode(3n), authSafe, macData)), 'binary');
}

/** A shrouded key bag whose PBE asks for `iterations` rounds (its ciphertext is never reached). */
function shroudedKeyBag(iterations: bigint): forge.asn1.Asn1 {
  const algorithm = seq(oidNode(PBE_3DES), seq(octets('saltsalt'), integerNode(iterations)));
  return seq(oidNode(SHROUDED_KEY_BAG), explicit0(seq(algorithm, octets('x'.repeat(16)))));
}

/** MacData (SHA-1) asking for `iterations`; its digest is never checked before the counts are refused. */
function macData(iterations = 2048n): forge.asn1.Asn1 {
  return seq(
    seq(seq(oidNode('1.3.14.3.2.26')), octets('m'.repeat(20))),
    octets('s'.repeat(8)),
    integerNode(iterations),
  );
}

/** A genuine-looking .p12 (MAC at 2048) whose plain safe holds a key bag asking for `iterations`. */
export function keyBagBombP12(iterations: bigint): Buffer {
  const safes = seq(seq(oidNode(DATA), explicit0(octets(der(seq(shroudedKeyBag(iterations)))))));
  const authSafe = seq(oidNode(DATA), explicit0(octets(der(safes))));
  return Buffer.from(der(seq(integerNode(3n), authSafe, macData())), 'binary');
}

/**
 * Every count at or under the cap, but many of them: `keyBags` shrouded key bags in a plain safe and
 * `encryptedSafes` encrypted safes, each asking for `iterations` (node-forge would derive keys for every one).
 */
export function manyCountsP12(options: {
  keyBags?: number;
  encryptedSafes?: number;
  iterations: bigint;
  macIterations?: bigint;
}): Buffer {
  const bags = Array.from({ length: options.keyBags ?? 0 }, () => shroudedKeyBag(options.iterations));
  const encrypted = Array.from({ length: options.encryptedSafes ?? 0 }, () =>
    seq(
      oidNode('1.2.840.113549.1.7.6'),
      explicit0(
        seq(
          integerNode(0n),
          seq(
            oidNode(DATA),
            seq(oidNode(PBE_3DES), seq(octets('saltsalt'), integerNode(options.iterations))),
            asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, false, 'x'.repeat(16)),
          ),
        ),
      ),
    ),
  );
  const safes = seq(seq(oidNode(DATA), explicit0(octets(der(seq(...bags))))), ...encrypted);
  const authSafe = seq(oidNode(DATA), explicit0(octets(der(safes))));
  return Buffer.from(der(seq(integerNode(3n), authSafe, macData(options.macIterations))), 'binary');
}

/**
 * The hidden variant: `count` key bags asking for `iterations` sit inside a safe encrypted (3DES, one round)
 * with `pin`, where only decrypting the safe shows them.
 */
export function hiddenKeyBagBombP12(iterations: bigint, pin: string, count = 1): Buffer {
  const salt = 'pepper!!';
  const saltBuffer = () => forge.util.createBuffer(salt);
  const key = forge.pkcs12.generateKey(pin, saltBuffer(), 1, 1, 24);
  const iv = forge.pkcs12.generateKey(pin, saltBuffer(), 2, 1, 8);
  const cipher = forge.cipher.createCipher('3DES-CBC', key);
  cipher.start({ iv });
  const bags = Array.from({ length: count }, () => shroudedKeyBag(iterations));
  cipher.update(forge.util.createBuffer(der(seq(...bags))));
  cipher.finish();
  const encryptedContentInfo = seq(
    oidNode(DATA),
    seq(oidNode(PBE_3DES), seq(octets(salt), integerNode(1n))),
    asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, false, cipher.output.getBytes()),
  );
  const encryptedData = seq(integerNode(0n), encryptedContentInfo);
  const safes = seq(seq(oidNode('1.2.840.113549.1.7.6'), explicit0(encryptedData)));
  const authSafe = seq(oidNode(DATA), explicit0(octets(der(safes))));
  return Buffer.from(der(seq(integerNode(3n), authSafe, macData())), 'binary');
}
