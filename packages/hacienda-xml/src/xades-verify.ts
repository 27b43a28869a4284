// Verifies a signed comprobante or MensajeHacienda of any origin with xml-crypto's real C14N: reference
// digests, the signature value, the certificate (digest, serial, validity, key) and the XAdES-EPES
// properties Hacienda requires (a policy must be present). Never throws; returns findings.
import { type KeyObject, createHash, createPublicKey } from 'node:crypto';
import type { Document, Element } from '@xmldom/xmldom';
import { LRUCache } from 'lru-cache';
import { SignedXml } from 'xml-crypto';
import { type TrustedSigner, untrustedReason } from './certificate-chain';
import { parseIsoDateTime } from './cr-time';
import { parseXml } from './parse-xml';
import {
  DIGEST_ALGORITHMS,
  ENVELOPED_XPATH,
  XPATH_FILTER_TRANSFORM,
  fastVerifySignature,
} from './xades-fast-verify';
import { type SigningKey, describeCertificate } from './signing-key';
import { DS_NS, ENVELOPED, POLICY_HASH, POLICY_URL, SIGNED_PROPERTIES_TYPE, XADES_NS } from './xades-sign';

export interface SignatureFinding {
  severity: 'error' | 'warning';
  code: string;
  message: string;
}

export interface VerificationResult {
  /** True when there is no finding of severity `error`. */
  valid: boolean;
  findings: SignatureFinding[];
  certificate?: Omit<SigningKey, 'privateKey' | 'modulus' | 'exponent' | 'certificateDer' | 'certificatePem'>;
  signingTime?: string;
  policyIdentifier?: string;
  claimedRole?: string;
}

export interface VerifyOptions {
  /** Require XAdES-EPES properties (policy); true for comprobantes, false for Hacienda's own messages. */
  requirePolicy?: boolean;
  /**
   * The CA bundle the signing certificate must chain to (and the signer it must name); without it only the
   * signature is checked against the certificate the document carries, which anyone can make.
   */
  trust?: TrustedSigner;
  /** When the chain is checked without a SigningTime; default now. */
  now?: Date;
  /**
   * The caller's own parseXml of this very `xml`, when it has one, so the text is not parsed twice. It is
   * only read, never changed (xml-crypto's path canonicalizes copies).
   */
  parsed?: Document;
}

function childNS(parent: Element | null | undefined, ns: string, name: string): Element | undefined {
  if (!parent) return undefined;
  for (let n = parent.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 1 && (n as Element).localName === name && (n as Element).namespaceURI === ns)
      return n as Element;
  }
  return undefined;
}

function descendant(
  parent: Element | Document | null | undefined,
  ns: string,
  name: string,
): Element | undefined {
  if (!parent) return undefined;
  return (parent.getElementsByTagNameNS(ns, name)[0] as Element | undefined) ?? undefined;
}

/**
 * Whether any element carries an attribute named `ID` or `id` (any prefix). xml-crypto looks a `#ref` up
 * under each of `Id`, `ID` and `id` with an XPath over the whole document; when the document has no
 * `ID`/`id` attribute at all, those two lookups cannot find anything (nor an ambiguity), so skipping them
 * gives the same verdict in a third of the lookups.
 */
function hasAlternateIdAttribute(root: Element): boolean {
  const stack: Element[] = [root];
  while (stack.length > 0) {
    const el = stack.pop()!;
    const attrs = el.attributes;
    for (let i = 0; i < attrs.length; i++) {
      const attr = attrs.item(i)!;
      const local = attr.localName ?? attr.name;
      if (local === 'ID' || local === 'id' || /(^|:)(ID|id)$/.test(attr.name)) return true;
    }
    for (let n = el.firstChild; n; n = n.nextSibling) if (n.nodeType === 1) stack.push(n as Element);
  }
  return false;
}

const text = (el: Element | undefined) => (el?.textContent ?? '').trim();

type Transform = new () => { process(node: unknown, options: { signatureNode?: unknown }): unknown };

/**
 * Hacienda's XPath filter as xml-crypto's enveloped-signature transform. xml-crypto points that transform at
 * its own copy of the signature only when it is listed under the enveloped-signature URI; under another name
 * it is handed the node of our parse, finds it outside the copy being canonicalized and removes nothing, so a
 * correct Hacienda signature failed its document digest. With no signature node, the transform removes the
 * referenced element's ds:Signature child: for URI="" the root's, the one the filter leaves out.
 */
function xpathFilterAsEnveloped(enveloped: unknown): Transform {
  const Enveloped = enveloped as Transform;
  return class extends Enveloped {
    override process(node: unknown, options: { signatureNode?: unknown }) {
      return super.process(node, { ...options, signatureNode: null });
    }
  };
}

/** References one signature may have before none is computed (Hacienda's XAdES-EPES has 3). */
export const MAX_REFERENCES = 8;

export interface SignatureValueCheck {
  /** Which path decided: the fast path only ever decides "valid"; every other verdict is xml-crypto's. */
  path: 'fast' | 'xml-crypto';
  findings: SignatureFinding[];
}

/**
 * Checks the reference digests and the SignatureValue of `signature` (a child of the root of a document
 * parsed by parseXml from `xml`) against the certificate, and that the references cover the document and
 * the SignedProperties. `fastPath: false` runs xml-crypto alone (tests compare the two).
 */
export function checkSignatureValue(
  xml: string,
  signature: Element,
  certificatePem: string,
  {
    fastPath = true,
    publicKey,
  }: {
    fastPath?: boolean;
    /** The certificate's key, already read (the fast path otherwise reads it from the PEM). */
    publicKey?: KeyObject;
  } = {},
): SignatureValueCheck {
  const findings: SignatureFinding[] = [];
  const error = (code: string, message: string) => findings.push({ severity: 'error', code, message });
  // Each reference is a digest over what it names, and URI="" names the whole document: a signature with
  // thousands of them (any key signs it) is thousands of canonicalizations of a 2 MB document. A XAdES-EPES
  // signature has three (the document, KeyInfo, SignedProperties).
  const references =
    descendant(signature, DS_NS, 'SignedInfo')?.getElementsByTagNameNS(DS_NS, 'Reference').length ?? 0;
  if (references > MAX_REFERENCES) {
    error(
      'too_many_references',
      `the signature has ${references} references; at most ${MAX_REFERENCES} are checked (XAdES uses 3)`,
    );
    return { path: 'xml-crypto', findings };
  }
  // Hacienda's own messages use the XPath filter not(ancestor-or-self::ds:Signature), which for an
  // enveloped signature selects exactly what the enveloped-signature transform does.
  const xpathExpr = text(descendant(signature, DS_NS, 'XPath'));
  const xpathIsEnveloped = xpathExpr === '' || ENVELOPED_XPATH.test(xpathExpr);
  const fast =
    fastPath &&
    fastVerifySignature(xml, signature, publicKey ?? certificatePem, xpathIsEnveloped) === 'valid';
  try {
    if (!fast) {
      const root = signature.ownerDocument!.documentElement!;
      const sig = new SignedXml({ publicCert: certificatePem });
      if (!hasAlternateIdAttribute(root)) sig.idAttributes = ['Id'];
      const algorithms = sig.CanonicalizationAlgorithms as Record<string, unknown>;
      if (xpathIsEnveloped)
        algorithms[XPATH_FILTER_TRANSFORM] = xpathFilterAsEnveloped(algorithms[ENVELOPED]);
      sig.loadSignature(signature as unknown as Parameters<SignedXml['loadSignature']>[0]);
      const ok = sig.checkSignature(xml);
      if (!ok) {
        const failed = sig.getReferences().find((r) => r.validationError);
        error('digest_mismatch', failed?.validationError?.message ?? 'a reference digest does not match');
      }
    }
    const refs = Array.from(
      descendant(signature, DS_NS, 'SignedInfo')?.getElementsByTagNameNS(DS_NS, 'Reference') ?? [],
    );
    if (!refs.some((r) => r.getAttribute('URI') === '')) {
      error('no_document_reference', 'no reference covers the whole document (URI="")');
    }
    if (!refs.some((r) => r.getAttribute('Type') === SIGNED_PROPERTIES_TYPE)) {
      error('no_signed_properties_reference', 'no reference covers the XAdES SignedProperties');
    }
  } catch (err) {
    const message = (err as Error).message ?? String(err);
    error(/signature value/.test(message) ? 'bad_signature_value' : 'signature_check_failed', message);
  }
  return { path: fast ? 'fast' : 'xml-crypto', findings };
}

type KeyInfoCertificate = Readonly<ReturnType<typeof describeCertificate> & { publicKey: KeyObject }>;

/** Certificates read from KeyInfo, by their base64 text; the least recently used beyond 64 are dropped. */
const keyInfoCertificates = new LRUCache<string, KeyInfoCertificate>({ max: 64 });

/**
 * The KeyInfo certificate, read once per distinct certificate: the signer repeats from one document to the
 * next (an issuer's certificate in the sandbox, Hacienda's seal in every MensajeHacienda the tenant-api
 * checks), and reading one (the X.509 parse, its PEM, the key) cost more than the RSA check it serves. What
 * is kept depends only on the certificate's bytes; one that cannot be read is not kept and throws each time.
 */
function readKeyInfoCertificate(base64: string): KeyInfoCertificate {
  const kept = keyInfoCertificates.get(base64);
  if (kept) return kept;
  const described = describeCertificate(Buffer.from(base64, 'base64'));
  const read = Object.freeze({ ...described, publicKey: createPublicKey(described.certificatePem) });
  keyInfoCertificates.set(base64, read);
  return read;
}

/** Verifies the (first) enveloped ds:Signature of the root element. */
export function verifySignedXml(xml: string, options: VerifyOptions = {}): VerificationResult {
  const findings: SignatureFinding[] = [];
  const error = (code: string, message: string) => findings.push({ severity: 'error', code, message });
  const warn = (code: string, message: string) => findings.push({ severity: 'warning', code, message });
  const result = (extra: Partial<VerificationResult> = {}): VerificationResult => ({
    valid: !findings.some((f) => f.severity === 'error'),
    findings,
    ...extra,
  });
  if (typeof xml !== 'string') {
    error('malformed_xml', 'the document is not a string');
    return result();
  }
  const parsed = options.parsed ? { doc: options.parsed } : parseXml(xml);
  if ('error' in parsed) {
    error('malformed_xml', `the document is not well-formed XML: ${parsed.error}`);
    return result();
  }
  const root = parsed.doc.documentElement!;
  const signature = childNS(root, DS_NS, 'Signature');
  if (!signature) {
    error('no_signature', 'the root element has no ds:Signature child');
    return result();
  }
  const extra: Partial<VerificationResult> = {};

  // Certificate.
  const certB64 = text(descendant(childNS(signature, DS_NS, 'KeyInfo'), DS_NS, 'X509Certificate')).replace(
    /\s+/g,
    '',
  );
  let certInfo: KeyInfoCertificate | undefined;
  if (!certB64) error('no_certificate', 'KeyInfo carries no X509Certificate');
  else {
    try {
      certInfo = readKeyInfoCertificate(certB64);
      const {
        modulus: _m,
        exponent: _e,
        certificateDer: _d,
        certificatePem: _p,
        publicKey: _k,
        ...pub
      } = certInfo;
      extra.certificate = pub;
    } catch (err) {
      error('invalid_certificate', `the X509Certificate cannot be read: ${(err as Error).message}`);
    }
  }

  // Digests and signature value: the fast path on the parsed document, else xml-crypto (ADR 0028).
  if (certInfo) {
    const { certificatePem, publicKey } = certInfo;
    findings.push(...checkSignatureValue(xml, signature, certificatePem, { publicKey }).findings);
  }

  // XAdES properties.
  const props = descendant(signature, XADES_NS, 'SignedProperties');
  if (!props) {
    if (options.requirePolicy !== false)
      error('no_signed_properties', 'the signature has no xades:SignedProperties');
  } else {
    const signingTime = text(descendant(props, XADES_NS, 'SigningTime'));
    if (signingTime) {
      extra.signingTime = signingTime;
      const at = parseIsoDateTime(signingTime);
      if (!at) warn('bad_signing_time', 'SigningTime is not a valid date-time');
      else if (certInfo && (at < certInfo.notBefore || at > certInfo.notAfter)) {
        error('certificate_not_valid', 'the certificate was not valid at SigningTime');
      }
    }
    const certDigest = descendant(props, XADES_NS, 'CertDigest');
    if (!certDigest) error('no_signing_certificate', 'SignedProperties has no SigningCertificate/CertDigest');
    else if (certInfo) {
      const alg =
        DIGEST_ALGORITHMS[descendant(certDigest, DS_NS, 'DigestMethod')?.getAttribute('Algorithm') ?? ''];
      const value = text(descendant(certDigest, DS_NS, 'DigestValue'));
      if (!alg) error('bad_cert_digest', 'SigningCertificate uses an unknown digest algorithm');
      else if (createHash(alg).update(certInfo.certificateDer).digest('base64') !== value) {
        error('bad_cert_digest', 'SigningCertificate digest does not match the KeyInfo certificate');
      }
      const serial = text(descendant(descendant(props, XADES_NS, 'IssuerSerial'), DS_NS, 'X509SerialNumber'));
      if (serial && serial !== certInfo.serialNumber)
        error('bad_cert_serial', 'IssuerSerial does not match the certificate');
    }
    const policy = descendant(props, XADES_NS, 'SignaturePolicyIdentifier');
    if (!policy) {
      if (options.requirePolicy !== false)
        error('no_policy', 'the signature has no SignaturePolicyIdentifier (XAdES-EPES)');
    } else {
      const identifier = text(descendant(policy, XADES_NS, 'Identifier'));
      extra.policyIdentifier = identifier;
      const hash = text(descendant(descendant(policy, XADES_NS, 'SigPolicyHash'), DS_NS, 'DigestValue'));
      if (identifier !== POLICY_URL || hash !== POLICY_HASH) {
        warn(
          'policy_not_v44',
          'the policy identifier or hash differs from the v4.4 values (Hacienda tolerates this)',
        );
      }
    }
    const role = text(descendant(props, XADES_NS, 'ClaimedRole'));
    if (role) extra.claimedRole = role;
  }

  if (options.trust) {
    if (!certInfo)
      error('untrusted_signer', 'there is no signing certificate to check against the CA bundle');
    else {
      const at =
        (extra.signingTime ? parseIsoDateTime(extra.signingTime) : undefined) ?? options.now ?? new Date();
      const why = untrustedReason(certInfo.certificateDer, options.trust, at);
      if (why) error('untrusted_signer', why);
    }
  }

  // KeyValue, when present, must be the certificate's key.
  const modulus = text(descendant(signature, DS_NS, 'Modulus')).replace(/\s+/g, '');
  if (modulus && certInfo && modulus !== certInfo.modulus) {
    error('key_value_mismatch', 'KeyInfo RSAKeyValue is not the certificate key');
  }
  return result(extra);
}
