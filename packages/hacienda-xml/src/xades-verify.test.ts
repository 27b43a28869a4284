import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { buildSignedDocument } from './build-document';
import { openP12 } from './signing-key';
import { ISSUER, invoice } from './testing/mothers';
import { makeTestP12 } from './testing/test-certificate';
import { SAMPLES_DIR, checkTools } from './testing/tools';
import { MAX_REFERENCES, verifySignedXml } from './xades-verify';
import { parseComprobante } from './comprobante-parse';

const samples = checkTools([], true).ok ? readdirSync(SAMPLES_DIR).filter((f) => f.endsWith('.xml')) : [];
const { p12, pin } = makeTestP12();
const key = openP12(p12, pin);

describe('verifySignedXml', () => {
  it.each(samples.map((f) => [f]))(
    'when the real accepted sample %s is verified, then it is valid and parses',
    (file) => {
      const xml = readFileSync(path.join(SAMPLES_DIR, file), 'utf8');
      const result = verifySignedXml(xml);
      expect(result.findings.filter((f) => f.severity === 'error')).toEqual([]);
      expect(result.valid).toBe(true);
      expect(result.certificate?.issuerName).toBe(
        'CN=CA PERSONA JURIDICA, OU=DGT, O=MINISTERIO DE HACIENDA, C=CR',
      );
      const parsed = parseComprobante(xml);
      expect(parsed.clave).toMatch(/^\d{50}$/);
      expect(file).toContain(parsed.clave);
      expect(Number(parsed.totalComprobante)).toBeGreaterThan(0);
    },
  );

  it('when one character of a signed document changes, then verification fails', () => {
    const { xml } = buildSignedDocument({ document: invoice(), issuer: ISSUER, key });
    expect(verifySignedXml(xml).valid).toBe(true);
    const tampered = xml.replace('<NumeroLinea>1</NumeroLinea>', '<NumeroLinea>2</NumeroLinea>');
    const result = verifySignedXml(tampered);
    expect(result.valid).toBe(false);
    expect(result.findings.map((f) => f.code)).toContain('digest_mismatch');
  });

  it('when a signature names more references than XAdES uses, then none is computed and it is invalid', () => {
    const { xml } = buildSignedDocument({ document: invoice(), issuer: ISSUER, key });
    const reference = /<ds:Reference[\s\S]*?<\/ds:Reference>/.exec(xml)![0];
    expect(reference).toContain('URI=""');
    // Each copy would be a canonicalization of the whole document; any key could sign such a SignedInfo.
    const padded = xml.replace(reference, reference.repeat(MAX_REFERENCES + 1));
    const result = verifySignedXml(padded);
    expect(result.valid).toBe(false);
    expect(result.findings.map((f) => f.code)).toContain('too_many_references');
    expect(result.findings.map((f) => f.code)).not.toContain('digest_mismatch');
    expect(result.findings.find((f) => f.code === 'too_many_references')?.message).toBe(
      `the signature has ${MAX_REFERENCES + 3} references; at most ${MAX_REFERENCES} are checked (XAdES uses 3)`,
    );
  });

  it('when the signing time or signed properties change, then verification fails', () => {
    const { xml } = buildSignedDocument({ document: invoice(), issuer: ISSUER, key });
    expect(verifySignedXml(xml.replace('ObligadoTributario', 'ObligadoTributarix')).valid).toBe(false);
    const sv = /<ds:SignatureValue[^>]*>([^<]+)</.exec(xml)![1]!;
    const flipped = sv.startsWith('A') ? `B${sv.slice(1)}` : `A${sv.slice(1)}`;
    const result = verifySignedXml(xml.replace(sv, flipped));
    expect(result.valid).toBe(false);
  });

  it('when an unsigned element repeats a referenced id under an ID or id attribute, then verification fails', () => {
    const { xml } = buildSignedDocument({ document: invoice(), issuer: ISSUER, key });
    const propsId = /<xades:SignedProperties Id="([^"]+)"/.exec(xml)![1]!;
    // ds:SignatureValue's attributes are covered by no digest: an extra attribute there alone keeps the
    // signature valid, so only the duplicated id can be what makes the checks below fail.
    const inject = (attr: string) => xml.replace('<ds:SignatureValue ', `<ds:SignatureValue ${attr} `);
    expect(verifySignedXml(inject('Foo="x"')).valid).toBe(true);
    for (const attr of [`ID="${propsId}"`, `id="${propsId}"`, `xmlns:x="urn:x" x:id="${propsId}"`])
      expect(verifySignedXml(inject(attr)).valid).toBe(false);
  });

  it('when documents share a certificate, then each is still judged by its own certificate and bytes', () => {
    const other = openP12(makeTestP12({ subjectSerial: 'CPJ-3-101-654321' }).p12, '1234');
    const first = buildSignedDocument({ document: invoice(), issuer: ISSUER, key }).xml;
    const second = buildSignedDocument({ document: invoice(), issuer: ISSUER, key: other }).xml;
    const certOf = (xml: string) => /<ds:X509Certificate>([^<]+)</.exec(xml)![1]!;
    for (let round = 0; round < 2; round += 1) {
      const a = verifySignedXml(first);
      const b = verifySignedXml(second);
      expect([a.valid, b.valid]).toEqual([true, true]);
      expect(a.certificate?.subjectSerialNumber).toBe('CPJ-3-101-123456');
      expect(b.certificate?.subjectSerialNumber).toBe('CPJ-3-101-654321');
      // What the result carries about the certificate, and nothing read for the check (no key object).
      expect(Object.keys(a.certificate ?? {}).sort()).toEqual(
        ['issuerName', 'notAfter', 'notBefore', 'serialNumber', 'subject', 'subjectSerialNumber'].sort(),
      );
    }
    // The same key, another certificate in KeyInfo: the signature still matches the key, but the signed
    // properties name the first certificate.
    const swapped = verifySignedXml(first.replace(certOf(first), certOf(second)));
    expect(swapped.valid).toBe(false);
    expect(swapped.findings.map((f) => f.code)).toContain('bad_cert_digest');
    expect(swapped.certificate?.subjectSerialNumber).toBe('CPJ-3-101-654321');
    const unreadable = first.replace(certOf(first), 'AAAA');
    for (let round = 0; round < 2; round += 1) {
      expect(verifySignedXml(unreadable).findings.map((f) => f.code)).toContain('invalid_certificate');
    }
  });

  it('when the input is not XML or unsigned, then it reports instead of throwing', () => {
    expect(verifySignedXml('<a><b></a>').findings[0]?.code).toBe('malformed_xml');
    expect(verifySignedXml('<a/>').findings[0]?.code).toBe('no_signature');
    expect(verifySignedXml(42 as unknown as string).valid).toBe(false);
  });
});
