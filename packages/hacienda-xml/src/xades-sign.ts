// XAdES-EPES enveloped signature as accepted v4.4 documents carry it (REFERENCE §5): RSA-SHA256, SHA-256
// digests, inclusive C14N, three references (document, KeyInfo, SignedProperties), KeyInfo with the
// certificate and RSAKeyValue, SigningTime with offset, SigningCertificate (sha256), the v4.4 policy,
// ClaimedRole and DataObjectFormat text/xml.
//
// Speed: every byte being signed is generated here or by our builders in canonical form, so the canonical
// form of each signed piece is known without parsing (the in-scope namespace declarations are added to the
// apex element exactly as C14N does). Verification of any document, ours included, uses xml-crypto's real
// C14N (xades-verify.ts), and tests check every output with xmlsec1. See docs/decisions/0004-xml-signing.md.
import { createHash, randomUUID, sign as rsaSign } from 'node:crypto';
import { formatCostaRicaDateTime } from './cr-time';
import type { SigningKey } from './signing-key';
import { escapeAttr, escapeText } from './xml-text';

export const DS_NS = 'http://www.w3.org/2000/09/xmldsig#';
export const XADES_NS = 'http://uri.etsi.org/01903/v1.3.2#';
export const C14N = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';
export const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
export const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';
export const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';
export const SIGNED_PROPERTIES_TYPE = 'http://uri.etsi.org/01903#SignedProperties';
/** v4.4 policy (REFERENCE §5.1). */
export const POLICY_URL =
  'https://cdn.comprobanteselectronicos.go.cr/xml-schemas/Resoluci%C3%B3n_General_sobre_disposiciones_t%C3%A9cnicas_comprobantes_electr%C3%B3nicos_para_efectos_tributarios.pdf';
export const POLICY_HASH = 'DWxin1xWOeI8OuWQXazh4VjLWAaCLAA954em7DMh0h8=';

export interface SignOptions {
  /** SigningTime; default now. */
  now?: Date;
  /** xades:ClaimedRole; default `ObligadoTributario`; null leaves SignerRole out. */
  claimedRole?: string | null;
  /** Signature Id; default a random UUID-based id. */
  signatureId?: string;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('base64');

/** Per-certificate pieces that never change between documents, computed once per SigningKey. */
interface KeyParts {
  certB64: string;
  certDigest: string;
  keyInfoInner: string;
}
const keyPartsCache = new WeakMap<SigningKey, KeyParts>();

function keyParts(key: SigningKey): KeyParts {
  let parts = keyPartsCache.get(key);
  if (!parts) {
    const certB64 = key.certificateDer.toString('base64');
    parts = {
      certB64,
      certDigest: sha256(key.certificateDer),
      keyInfoInner:
        `<ds:X509Data><ds:X509Certificate>${certB64}</ds:X509Certificate></ds:X509Data>` +
        `<ds:KeyValue><ds:RSAKeyValue><ds:Modulus>${key.modulus}</ds:Modulus><ds:Exponent>${key.exponent}</ds:Exponent></ds:RSAKeyValue></ds:KeyValue>`,
    };
    keyPartsCache.set(key, parts);
  }
  return parts;
}

/**
 * Signs a document produced in canonical form by this package's builders: `open` is the root start tag
 * declaring only the default namespace, `body` the content. Returns the whole signed document (UTF-8
 * text with an XML declaration). Do not pass arbitrary XML here.
 */
export function signCanonicalDocument(
  parts: { open: string; body: string; close: string; namespace: string },
  key: SigningKey,
  options: SignOptions = {},
): string {
  const { certDigest, keyInfoInner } = keyParts(key);
  const id = options.signatureId ?? `Signature-${randomUUID()}`;
  const refId = `${id}-ref0`;
  const keyInfoId = `${id}-keyinfo`;
  const propsId = `${id}-signedprops`;
  const role = options.claimedRole === undefined ? 'ObligadoTributario' : options.claimedRole;
  // Inclusive C14N of a subtree renders every in-scope namespace on its apex, sorted (default first).
  const apexNs = `xmlns="${escapeAttr(parts.namespace)}" xmlns:ds="${DS_NS}"`;

  const docDigest = sha256(parts.open + parts.body + parts.close);

  const keyInfoAttrs = ` Id="${keyInfoId}">`;
  const keyInfoDigest = sha256(`<ds:KeyInfo ${apexNs}${keyInfoAttrs}${keyInfoInner}</ds:KeyInfo>`);

  const propsInner =
    '<xades:SignedSignatureProperties>' +
    `<xades:SigningTime>${formatCostaRicaDateTime(options.now ?? new Date())}</xades:SigningTime>` +
    '<xades:SigningCertificate><xades:Cert><xades:CertDigest>' +
    `<ds:DigestMethod Algorithm="${SHA256}"></ds:DigestMethod><ds:DigestValue>${certDigest}</ds:DigestValue>` +
    '</xades:CertDigest><xades:IssuerSerial>' +
    `<ds:X509IssuerName>${escapeText(key.issuerName)}</ds:X509IssuerName><ds:X509SerialNumber>${key.serialNumber}</ds:X509SerialNumber>` +
    '</xades:IssuerSerial></xades:Cert></xades:SigningCertificate>' +
    '<xades:SignaturePolicyIdentifier><xades:SignaturePolicyId><xades:SigPolicyId>' +
    `<xades:Identifier>${escapeText(POLICY_URL)}</xades:Identifier>` +
    '</xades:SigPolicyId><xades:SigPolicyHash>' +
    `<ds:DigestMethod Algorithm="${SHA256}"></ds:DigestMethod><ds:DigestValue>${POLICY_HASH}</ds:DigestValue>` +
    '</xades:SigPolicyHash></xades:SignaturePolicyId></xades:SignaturePolicyIdentifier>' +
    (role
      ? `<xades:SignerRole><xades:ClaimedRoles><xades:ClaimedRole>${escapeText(role)}</xades:ClaimedRole></xades:ClaimedRoles></xades:SignerRole>`
      : '') +
    '</xades:SignedSignatureProperties>' +
    '<xades:SignedDataObjectProperties>' +
    `<xades:DataObjectFormat ObjectReference="#${refId}"><xades:MimeType>text/xml</xades:MimeType><xades:Encoding>UTF-8</xades:Encoding></xades:DataObjectFormat>` +
    '</xades:SignedDataObjectProperties>';
  const propsAttrs = ` Id="${propsId}">`;
  const propsDigest = sha256(
    `<xades:SignedProperties ${apexNs} xmlns:xades="${XADES_NS}"${propsAttrs}${propsInner}</xades:SignedProperties>`,
  );

  const transformC14n = `<ds:Transforms><ds:Transform Algorithm="${C14N}"></ds:Transform></ds:Transforms>`;
  const digestMethod = `<ds:DigestMethod Algorithm="${SHA256}"></ds:DigestMethod>`;
  const signedInfoInner =
    `<ds:CanonicalizationMethod Algorithm="${C14N}"></ds:CanonicalizationMethod>` +
    `<ds:SignatureMethod Algorithm="${RSA_SHA256}"></ds:SignatureMethod>` +
    `<ds:Reference Id="${refId}" URI=""><ds:Transforms><ds:Transform Algorithm="${ENVELOPED}"></ds:Transform></ds:Transforms>${digestMethod}<ds:DigestValue>${docDigest}</ds:DigestValue></ds:Reference>` +
    `<ds:Reference URI="#${keyInfoId}">${transformC14n}${digestMethod}<ds:DigestValue>${keyInfoDigest}</ds:DigestValue></ds:Reference>` +
    `<ds:Reference Type="${SIGNED_PROPERTIES_TYPE}" URI="#${propsId}">${transformC14n}${digestMethod}<ds:DigestValue>${propsDigest}</ds:DigestValue></ds:Reference>`;
  const signatureValue = rsaSign(
    'sha256',
    Buffer.from(`<ds:SignedInfo ${apexNs}>${signedInfoInner}</ds:SignedInfo>`, 'utf8'),
    key.privateKey,
  ).toString('base64');

  const signature =
    `<ds:Signature xmlns:ds="${DS_NS}" Id="${id}">` +
    `<ds:SignedInfo>${signedInfoInner}</ds:SignedInfo>` +
    `<ds:SignatureValue Id="${id}-sigvalue">${signatureValue}</ds:SignatureValue>` +
    `<ds:KeyInfo${keyInfoAttrs}${keyInfoInner}</ds:KeyInfo>` +
    `<ds:Object><xades:QualifyingProperties xmlns:xades="${XADES_NS}" Target="#${id}">` +
    `<xades:SignedProperties${propsAttrs}${propsInner}</xades:SignedProperties>` +
    '</xades:QualifyingProperties></ds:Object></ds:Signature>';
  return `<?xml version="1.0" encoding="UTF-8"?>\n${parts.open}${parts.body}${signature}${parts.close}`;
}
