// Whether a signing certificate chains to a pinned set of CA certificates, and names the expected signer.
// The certificate inside a MensajeHacienda proves nothing by itself: anyone can sign with a self-made one.
// Hacienda's seal is issued by the BCCR's "CA SINPE - PERSONA JURIDICA v2", which issues certificates to every
// legal entity in Costa Rica, so the chain alone is not enough either: the seal's subject serialNumber (the
// Ministerio de Hacienda's cédula jurídica) must match too. Pure: the caller reads the PEM bundle.
import { X509Certificate } from 'node:crypto';
import { HaciendaXmlError } from './errors';

/** The subject serialNumber of the seal that signs MensajeHacienda (Ministerio de Hacienda, 2-100-042005). */
export const HACIENDA_SIGNER_SERIAL = 'CPJ-2-100-042005';

/** A pinned CA bundle and the signer it must vouch for. */
export interface TrustedSigner {
  /** Every certificate of the bundle is trusted as an anchor (the operator pinned it). */
  anchors: X509Certificate[];
  /** The leaf's subject serialNumber, e.g. `CPJ-2-100-042005`; undefined accepts any leaf the CAs issued. */
  signerId?: string;
}

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Reads the certificates of a PEM bundle; throws HaciendaXmlError('invalid_ca_bundle') naming the problem. */
export function parseCaBundle(pem: string): X509Certificate[] {
  const blocks = pem.match(PEM_BLOCK) ?? [];
  if (blocks.length === 0)
    throw new HaciendaXmlError('invalid_ca_bundle', 'the CA bundle holds no certificate');
  return blocks.map((block, i) => {
    let cert: X509Certificate;
    try {
      cert = new X509Certificate(block);
    } catch (err) {
      throw new HaciendaXmlError(
        'invalid_ca_bundle',
        `certificate ${i + 1} of the CA bundle cannot be read`,
        {
          cause: err,
        },
      );
    }
    if (!cert.ca) {
      throw new HaciendaXmlError(
        'invalid_ca_bundle',
        `certificate ${i + 1} of the CA bundle (${oneLine(cert.subject)}) is not a CA certificate`,
      );
    }
    return cert;
  });
}

export function trustedSigner(bundlePem: string, signerId?: string): TrustedSigner {
  return { anchors: parseCaBundle(bundlePem), ...(signerId ? { signerId } : {}) };
}

function oneLine(dn: string): string {
  return dn.split('\n').filter(Boolean).reverse().join(', ');
}

function validAt(cert: X509Certificate, at: Date): boolean {
  return at >= new Date(cert.validFrom) && at <= new Date(cert.validTo);
}

const MAX_DEPTH = 6;

/**
 * Returns why `leafDer` is not trusted by `trust` at `at`, or undefined when it is: each link's issuer must be
 * a CA of the bundle whose name and key issued it (signature checked) and that was valid at `at`; reaching a
 * certificate of the bundle ends the chain. The leaf's own validity is the signature verifier's concern.
 */
export function untrustedReason(leafDer: Buffer, trust: TrustedSigner, at: Date): string | undefined {
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(leafDer);
  } catch {
    return 'the signing certificate cannot be read';
  }
  if (trust.signerId !== undefined) {
    const serial = leaf.subject
      .split('\n')
      .find((l) => l.startsWith('serialNumber='))
      ?.slice('serialNumber='.length);
    if (serial !== trust.signerId) {
      return `the signing certificate belongs to ${serial ?? oneLine(leaf.subject)}, not to ${trust.signerId}`;
    }
  }
  const pinned = (c: X509Certificate) => trust.anchors.some((a) => a.fingerprint256 === c.fingerprint256);
  let current = leaf;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    if (pinned(current)) return undefined;
    const issuer = trust.anchors.find((a) => current.checkIssued(a) && current.verify(a.publicKey));
    if (!issuer) {
      return `${depth === 0 ? 'the signing certificate' : oneLine(current.subject)} (issued by ${oneLine(current.issuer)}) does not chain to the pinned CA bundle`;
    }
    if (!validAt(issuer, at)) return `the CA ${oneLine(issuer.subject)} was not valid at ${at.toISOString()}`;
    current = issuer;
  }
  return 'the certificate chain is too long';
}
