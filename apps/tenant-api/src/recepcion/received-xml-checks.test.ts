// The signer's certificate against a received document's SigningTime. REFERENCE §8: accepted documents exist
// whose date-times carry no offset, and such a value is Costa Rica time (−06:00), whatever the server's own
// zone (containers run in UTC). Such a SigningTime cannot be produced by our signer, so the test re-signs a
// document with one, as a supplier's software would have written it.
import { createHash, sign } from 'node:crypto';
import { type SigningKey, buildSignedDocument, openP12 } from '@cr/hacienda-xml';
import { ISSUER, invoice } from '@cr/hacienda-xml/src/testing/mothers';
import { makeTestP12 } from '@cr/hacienda-xml/src/testing/test-certificate';
import { AppError } from '@cr/service-kit';
import { checkReceivedXml } from './received-xml-checks';

const DS_NS = 'http://www.w3.org/2000/09/xmldsig#';
const XADES_NS = 'http://uri.etsi.org/01903/v1.3.2#';
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64');

/** The certificate's validity starts at 16:00Z on 30 June, 10:00 in Costa Rica. */
const key: SigningKey = (() => {
  const { p12, pin } = makeTestP12({
    notBefore: new Date('2026-06-30T16:00:00Z'),
    notAfter: new Date('2026-12-31T00:00:00Z'),
  });
  return openP12(p12, pin);
})();

/** A supplier's FE signed at `now`, for the invoice mother's receptor. */
function signedAt(now: Date) {
  return buildSignedDocument({
    document: invoice({ numeroReferencia: 33, fechaEmision: '2026-06-30T11:00:00-06:00' }),
    issuer: ISSUER,
    key,
    now,
  });
}

/**
 * `xml` with its SigningTime replaced and the signature made again over it: the SignedProperties digest and
 * the SignatureValue, in the canonical forms our signer writes (inclusive C14N renders the root's default
 * namespace and ds on each signed subtree's apex).
 */
function resignedWithSigningTime(xml: string, signingTime: string): string {
  const namespace = /^<\?xml[^>]*>\s*<[A-Za-z]+ xmlns="([^"]+)"/.exec(xml)![1]!;
  const apexNs = `xmlns="${namespace}" xmlns:ds="${DS_NS}"`;
  const edited = xml.replace(
    /<xades:SigningTime>[^<]*<\/xades:SigningTime>/,
    `<xades:SigningTime>${signingTime}</xades:SigningTime>`,
  );
  const props = /<xades:SignedProperties( Id="[^"]+">)(.*)<\/xades:SignedProperties>/.exec(edited)!;
  const propsDigest = sha256(
    `<xades:SignedProperties ${apexNs} xmlns:xades="${XADES_NS}"${props[1]}${props[2]}</xades:SignedProperties>`,
  );
  const withDigest = edited.replace(
    /(<ds:Reference Type="[^"]*SignedProperties" URI="#[^"]+">.*?<ds:DigestValue>)[^<]*(<\/ds:DigestValue>)/,
    `$1${propsDigest}$2`,
  );
  const signedInfo = /<ds:SignedInfo>(.*?)<\/ds:SignedInfo>/.exec(withDigest)![1]!;
  const value = sign(
    'sha256',
    Buffer.from(`<ds:SignedInfo ${apexNs}>${signedInfo}</ds:SignedInfo>`, 'utf8'),
    key.privateKey,
  ).toString('base64');
  return withDigest.replace(/(<ds:SignatureValue[^>]*>)[^<]*(<\/ds:SignatureValue>)/, `$1${value}$2`);
}

const receptor = () => {
  const r = invoice().receptor;
  if (!r) throw new Error('the invoice mother names a receptor');
  return r.identificacion.numero;
};

describe('checkReceivedXml: the certificate at the signing time', () => {
  const zone = process.env.TZ;
  beforeAll(() => {
    process.env.TZ = 'UTC';
  });
  afterAll(() => {
    process.env.TZ = zone;
  });

  it('when SigningTime has no offset, then it is read as Costa Rica time, not the server’s zone', () => {
    // 11:00 without an offset is 17:00Z in Costa Rica, an hour into the certificate's validity; read in the
    // server's UTC it would be 11:00Z, five hours before it.
    const fe = signedAt(new Date('2026-06-30T17:00:00Z'));
    const xml = resignedWithSigningTime(fe.xml, '2026-06-30T11:00:00');
    expect(xml).toContain('<xades:SigningTime>2026-06-30T11:00:00</xades:SigningTime>');

    const checked = checkReceivedXml({ xml, receptor: receptor() });

    expect(checked.findings.filter((f) => f.code === 'certificate' && f.severity === 'error')).toEqual([]);
    expect(checked.findings).toContainEqual(expect.objectContaining({ code: 'signature', severity: 'info' }));
  });

  it('when the certificate was not yet valid at the SigningTime, then the document is refused', () => {
    const fe = signedAt(new Date('2026-06-30T17:00:00Z'));
    const xml = resignedWithSigningTime(fe.xml, '2026-06-30T09:00:00-06:00');

    let refused: unknown;
    try {
      checkReceivedXml({ xml, receptor: receptor() });
    } catch (err) {
      refused = err;
    }

    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).message).toMatch(/certificate_not_valid/);
  });
});
