import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  formatSubjectSerial,
  identificationFromSubjectSerial,
  isIssuedByCa,
  issueCertificate,
  loadOrCreateKeys,
} from './certificate-authority';

describe('subject serialNumber', () => {
  it.each([
    ['02', '3101745822', 'CPJ-3-101-745822'],
    ['01', '109870456', 'CPF-01-0987-0456'],
    ['03', '155812345678', 'DIMEX-155812345678'],
    ['04', '4000123456', 'NITE-4000123456'],
  ] as const)('when tipo %s id %s, then %s, and back', (tipo, id, serial) => {
    expect(formatSubjectSerial(tipo, id)).toBe(serial);
    expect(identificationFromSubjectSerial(serial)).toBe(id);
  });

  it('when the serial is not a taxpayer id, then nothing is read from it', () => {
    expect(identificationFromSubjectSerial('ABC-123')).toBeUndefined();
  });
});

describe('isIssuedByCa', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-ca-'));
  const other = mkdtempSync(join(tmpdir(), 'sandbox-other-ca-'));
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(other, { recursive: true, force: true });
  });
  const { ca } = loadOrCreateKeys(dir);
  // Another sandbox's CA: the same subject name, another key.
  const { ca: impostor } = loadOrCreateKeys(other);
  const der = (pem: string) => Buffer.from(pem.replace(/-----[^-]+-----|\s+/g, ''), 'base64');
  const taxpayer = { identificacion: '3101123456', tipoIdentificacion: '02', nombre: 'EMPRESA' } as const;

  it('accepts a certificate the CA issued', () => {
    expect(isIssuedByCa(ca, der(issueCertificate(ca, taxpayer).certPem))).toBe(true);
  });

  it('refuses one that names the CA as its issuer but was signed by another key', () => {
    const forged = issueCertificate(impostor, taxpayer);
    expect(forged.issuer).toBe(issueCertificate(ca, taxpayer).issuer);
    expect(isIssuedByCa(ca, der(forged.certPem))).toBe(false);
  });

  it('refuses the CA of another sandbox and bytes that are not a certificate', () => {
    expect(isIssuedByCa(ca, der(impostor.certPem))).toBe(false);
    expect(isIssuedByCa(ca, Buffer.from('not a certificate'))).toBe(false);
    expect(isIssuedByCa(ca, Buffer.alloc(0))).toBe(false);
  });
});
