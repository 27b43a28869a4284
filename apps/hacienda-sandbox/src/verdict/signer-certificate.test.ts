import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueCertificate, loadOrCreateKeys } from '../certificate-authority';
import { CODES } from './findings';
import { readSignerCertificate, signerCertificateFindings } from './signer-certificate';

const dir = mkdtempSync(join(tmpdir(), 'sandbox-signer-'));
const other = mkdtempSync(join(tmpdir(), 'sandbox-signer-other-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(other, { recursive: true, force: true });
});
const { ca } = loadOrCreateKeys(dir);
const { ca: otherCa } = loadOrCreateKeys(other);
const base64 = (pem: string) => pem.replace(/-----[^-]+-----|\s+/g, '');

const ISSUED_AT = new Date('2026-03-01T12:00:00Z');
const issued = issueCertificate(ca, {
  identificacion: '3101123456',
  tipoIdentificacion: '02',
  nombre: 'EMPRESA',
  now: ISSUED_AT,
});
const within = new Date('2027-01-01T00:00:00Z');
const codes = (
  cert: ReturnType<typeof readSignerCertificate>,
  o: Partial<Parameters<typeof signerCertificateFindings>[1]> = {},
) =>
  signerCertificateFindings(cert!, {
    expected: '3101123456',
    rol: 'emisor',
    now: within,
    trustAnyCa: false,
    ...o,
  }).map((f) => f.code);

describe('readSignerCertificate', () => {
  it('reads the holder, the validity and whether the CA issued it', () => {
    const cert = readSignerCertificate(ca, base64(issued.certPem));
    expect(cert).toEqual({
      subjectSerialNumber: 'CPJ-3-101-123456',
      notBefore: issued.notBefore,
      notAfter: issued.notAfter,
      issuedByCa: true,
    });
    expect(readSignerCertificate(otherCa, base64(issued.certPem))?.issuedByCa).toBe(false);
  });

  it('reads a certificate once per CA, and keeps the answers of different CAs apart', () => {
    const text = base64(issued.certPem);
    expect(readSignerCertificate(ca, text)).toBe(readSignerCertificate(ca, text));
    expect(readSignerCertificate(otherCa, text)).not.toBe(readSignerCertificate(ca, text));
  });

  it('answers undefined, every time, for text that is not a certificate', () => {
    expect(readSignerCertificate(ca, 'bm90IGEgY2VydGlmaWNhdGU=')).toBeUndefined();
    expect(readSignerCertificate(ca, 'bm90IGEgY2VydGlmaWNhdGU=')).toBeUndefined();
    expect(readSignerCertificate(ca, '')).toBeUndefined();
  });
});

describe('signerCertificateFindings', () => {
  const cert = readSignerCertificate(ca, base64(issued.certPem));

  it('finds nothing for the expected holder, within the validity, from the CA', () => {
    expect(codes(cert)).toEqual([]);
    // Leading zeros in the document's identification do not matter.
    expect(codes(cert, { expected: '003101123456' })).toEqual([]);
  });

  it('reports a certificate used before or after its validity', () => {
    expect(codes(cert, { now: new Date(issued.notBefore.getTime() - 1000) })).toEqual([
      CODES.certificadoVigencia,
    ]);
    expect(codes(cert, { now: new Date(issued.notAfter.getTime() + 1000) })).toEqual([
      CODES.certificadoVigencia,
    ]);
  });

  it('reports a signer who is not the taxpayer who must sign, naming both', () => {
    const findings = signerCertificateFindings(cert!, {
      expected: '3101999999',
      rol: 'receptor',
      now: within,
      trustAnyCa: false,
    });
    expect(findings).toEqual([
      {
        code: CODES.certificadoEmisor,
        text: 'El certificado del firmante (CPJ-3-101-123456) no corresponde al receptor 3101999999',
      },
    ]);
    expect(codes(cert, { expected: undefined })).toEqual([CODES.certificadoEmisor]);
  });

  it('reports a certificate from another CA unless any CA is trusted', () => {
    const foreign = readSignerCertificate(otherCa, base64(issued.certPem));
    expect(codes(foreign)).toEqual([CODES.certificadoNoConfiable]);
    expect(codes(foreign, { trustAnyCa: true })).toEqual([]);
  });
});
