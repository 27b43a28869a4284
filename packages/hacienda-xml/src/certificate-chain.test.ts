// Issue 11.9: a MensajeHacienda is Hacienda's only if its seal chains to the pinned CA bundle and names
// Hacienda; a forged answer signed under a self-made CA with the same names is refused.
import { HACIENDA_SIGNER_SERIAL, parseCaBundle, trustedSigner } from './certificate-chain';
import { buildMensajeHacienda, readMensajeHacienda } from './mensaje-hacienda';
import { openP12 } from './signing-key';
import { issueTestP12, makeTestCa, makeTestP12 } from './testing/test-certificate';

const CLAVE = '50631082600310181576400100001030000001522114249307';
const sandboxCa = makeTestCa();
const forgerCa = makeTestCa(); // same subject, different key
const genuine = issueTestP12(sandboxCa);
const forged = issueTestP12(forgerCa);
const otherCompany = issueTestP12(sandboxCa, { subjectSerial: 'CPJ-3-101-123456', commonName: 'ACME null' });

function answer(p12: { p12: Buffer; pin: string }, mensaje: 1 | 3 = 1): string {
  return buildMensajeHacienda({
    clave: CLAVE,
    nombreEmisor: 'ACME SOCIEDAD ANONIMA',
    tipoIdentificacionEmisor: '02',
    numeroCedulaEmisor: '3101123456',
    mensaje,
    totalFactura: '1130',
    key: openP12(p12.p12, p12.pin),
  });
}

const trust = trustedSigner(sandboxCa.certPem, HACIENDA_SIGNER_SERIAL);
const codes = (xml: string) =>
  readMensajeHacienda(xml, { trust })
    .verification.findings.filter((f) => f.severity === 'error')
    .map((f) => f.code);

describe('MensajeHacienda against a pinned CA bundle', () => {
  it('when the seal was issued by the pinned CA and names Hacienda, then it verifies', () => {
    const { verification } = readMensajeHacienda(answer(genuine), { trust });
    expect(verification.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(verification.valid).toBe(true);
  });

  it('when a forger signs with a self-made CA of the same name, then untrusted_signer (its own signature is fine)', () => {
    const xml = answer(forged);
    // Without the bundle the forgery is indistinguishable: that was the hole.
    expect(readMensajeHacienda(xml).verification.valid).toBe(true);
    expect(codes(xml)).toEqual(['untrusted_signer']);
    expect(readMensajeHacienda(xml, { trust }).verification.findings[0]!.message).toMatch(
      /does not chain to the pinned CA bundle/,
    );
  });

  it('when another taxpayer of the same CA signs, then untrusted_signer naming who signed', () => {
    const { verification } = readMensajeHacienda(answer(otherCompany), { trust });
    expect(verification.valid).toBe(false);
    expect(verification.findings.find((f) => f.code === 'untrusted_signer')!.message).toContain(
      'CPJ-3-101-123456, not to CPJ-2-100-042005',
    );
  });

  it('when the seal is self-signed (no issuer in the bundle), then untrusted_signer', () => {
    expect(codes(answer(makeTestP12({ subjectSerial: HACIENDA_SIGNER_SERIAL })))).toEqual([
      'untrusted_signer',
    ]);
  });

  it('when the bundle holds the forger CA beside the pinned one, then both verify (the operator pinned it)', () => {
    const both = trustedSigner(`${sandboxCa.certPem}\n${forgerCa.certPem}`, HACIENDA_SIGNER_SERIAL);
    expect(readMensajeHacienda(answer(forged), { trust: both }).verification.valid).toBe(true);
  });

  it('when the bundle is empty or holds a non-CA certificate, then it is refused with the reason', () => {
    expect(() => parseCaBundle('nothing here')).toThrow(/holds no certificate/);
    const leafPem = openP12(genuine.p12, genuine.pin).certificatePem;
    expect(() => parseCaBundle(leafPem)).toThrow(/is not a CA certificate/);
  });
});
