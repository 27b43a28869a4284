// Test-only: signed documents in shapes other than ours (xml-crypto's own SignedXml, Hacienda's XPath
// filter) and re-signing after an edit, for the differential tests of the verification fast path.
import { createHash, sign as rsaSign } from 'node:crypto';
import { DOMParser, type Element } from '@xmldom/xmldom';
import {
  C14nCanonicalization,
  C14nCanonicalizationWithComments,
  ExclusiveCanonicalization,
  ExclusiveCanonicalizationWithComments,
  SignedXml,
} from 'xml-crypto';
import { buildSignedDocument } from '../build-document';
import { buildMensajeHacienda } from '../mensaje-hacienda';
import { buildMensajeReceptor, planMensajeReceptor } from '../mensaje-receptor';
import type { SigningKey } from '../signing-key';
import {
  FE_REFERENCE,
  ISSUER,
  NC_REFERENCE,
  debitNote,
  exportInvoice,
  invoice,
  paymentReceipt,
  purchaseInvoice,
} from './mothers';
import { ancestorNamespaces } from '../xades-fast-verify';
import { C14N, DS_NS, ENVELOPED, RSA_SHA256, SHA256 } from '../xades-sign';

export const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
export const C14N_COMMENTS = `${C14N}#WithComments`;
export const EXC_C14N_COMMENTS = `${EXC_C14N}WithComments`;
export const XPATH_FILTER = 'http://www.w3.org/TR/1999/REC-xpath-19991116';
export const RSA_SHA1 = 'http://www.w3.org/2000/09/xmldsig#rsa-sha1';
export const RSA_SHA512 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512';
export const SHA1 = 'http://www.w3.org/2000/09/xmldsig#sha1';
export const SHA512 = 'http://www.w3.org/2001/04/xmlenc#sha512';

export interface XmlCryptoSignOptions {
  canonicalization?: string;
  signature?: string;
  digest?: string;
  /** Transforms of the document reference (URI=""). */
  transforms?: string[];
  /** Also sign, by Id, the first element of this local name (xml-crypto adds `Id` when it has none). */
  idReference?: { localName: string; transforms: string[] };
  prefix?: string;
  inclusiveNamespacesPrefixList?: string[];
}

/** Signs `xml` with xml-crypto's SignedXml, the Signature appended to the root, KeyInfo with the certificate. */
export function signWithXmlCrypto(xml: string, key: SigningKey, options: XmlCryptoSignOptions = {}): string {
  const sig = new SignedXml({
    privateKey: key.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicCert: key.certificatePem,
    canonicalizationAlgorithm: options.canonicalization ?? EXC_C14N,
    signatureAlgorithm: options.signature ?? RSA_SHA256,
    inclusiveNamespacesPrefixList: options.inclusiveNamespacesPrefixList,
  });
  const digestAlgorithm = options.digest ?? SHA256;
  sig.addReference({
    xpath: '/*',
    transforms: options.transforms ?? [ENVELOPED, EXC_C14N],
    digestAlgorithm,
    isEmptyUri: true,
  });
  if (options.idReference) {
    sig.addReference({
      xpath: `//*[local-name(.)='${options.idReference.localName}']`,
      transforms: options.idReference.transforms,
      digestAlgorithm,
    });
  }
  sig.computeSignature(xml, {
    prefix: options.prefix ?? 'ds',
    location: { reference: '/*', action: 'append' },
  });
  return sig.getSignedXml();
}

const CANONICALIZERS: Record<string, new () => { process(node: unknown, options: object): unknown }> = {
  [C14N]: C14nCanonicalization,
  [C14N_COMMENTS]: C14nCanonicalizationWithComments,
  [EXC_C14N]: ExclusiveCanonicalization,
  [EXC_C14N_COMMENTS]: ExclusiveCanonicalizationWithComments,
};
/** A same-document reference is canonicalized without comments whatever its transform says. */
const SAME_DOCUMENT: Record<string, string> = {
  [C14N]: C14N,
  [C14N_COMMENTS]: C14N,
  [EXC_C14N]: EXC_C14N,
  [EXC_C14N_COMMENTS]: EXC_C14N,
};
const DIGEST_NAMES: Record<string, string> = { [SHA1]: 'sha1', [SHA256]: 'sha256', [SHA512]: 'sha512' };
const SIGNATURE_NAMES: Record<string, string> = {
  [RSA_SHA1]: 'sha1',
  [RSA_SHA256]: 'sha256',
  [RSA_SHA512]: 'sha512',
};

const byLocalName = (el: Element, name: string) => Array.from(el.getElementsByTagNameNS(DS_NS, name));

function elementWithId(root: Element, id: string): Element {
  const all = [root, ...Array.from(root.getElementsByTagName('*'))];
  const found = all.find((el) => ['Id', 'ID', 'id'].some((a) => el.getAttribute(a) === id));
  if (!found) throw new Error(`no element with id ${id}`);
  return found;
}

/**
 * Recomputes every reference digest and the SignatureValue of the (only) signature of `xml` as they read in
 * this package's parse (xmldom 0.9), and writes them into the text. Only the base64 values change, so an edit
 * made before (a transform, a character) is signed as that parse sees it, whatever xml-crypto sees.
 */
export function resign(xml: string, key: SigningKey): string {
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const root = doc.documentElement!;
  const signature = byLocalName(root, 'Signature')[0]!;
  const signedInfo = byLocalName(signature, 'SignedInfo')[0]!;
  const digestValues: string[] = [];
  for (const ref of byLocalName(signedInfo, 'Reference')) {
    const uri = ref.getAttribute('URI') ?? '';
    const target = uri === '' ? root : elementWithId(root, uri.slice(1));
    const algorithms = byLocalName(ref, 'Transform').map((t) => t.getAttribute('Algorithm')!);
    const c14n = [...algorithms].reverse().find((a) => CANONICALIZERS[a]) ?? C14N;
    const enveloped = algorithms.some((a) => a === ENVELOPED || a === XPATH_FILTER);
    const next = signature.nextSibling;
    if (enveloped && target === root) root.removeChild(signature);
    const canonical = new CANONICALIZERS[SAME_DOCUMENT[c14n]!]!().process(target, {
      ancestorNamespaces: uri === '' ? [] : ancestorNamespaces(target),
    }) as string;
    if (enveloped && target === root) root.insertBefore(signature, next);
    const digest = createHash(DIGEST_NAMES[byLocalName(ref, 'DigestMethod')[0]!.getAttribute('Algorithm')!]!)
      .update(canonical, 'utf8')
      .digest('base64');
    digestValues.push(digest);
    (byLocalName(ref, 'DigestValue')[0]!.firstChild as unknown as { data: string }).data = digest;
  }
  const method = byLocalName(signedInfo, 'CanonicalizationMethod')[0]!.getAttribute('Algorithm')!;
  const canonicalSignedInfo = new CANONICALIZERS[method]!().process(signedInfo, {
    ancestorNamespaces: ancestorNamespaces(signedInfo),
  }) as string;
  const hash = SIGNATURE_NAMES[byLocalName(signedInfo, 'SignatureMethod')[0]!.getAttribute('Algorithm')!]!;
  const value = rsaSign(hash, Buffer.from(canonicalSignedInfo, 'utf8'), key.privateKey).toString('base64');
  let i = 0;
  const withDigests = xml.replace(
    /(<(?:\w+:)?DigestValue[^>]*>)[^<]*(<\/(?:\w+:)?DigestValue>)/g,
    (whole, open: string, close: string) =>
      i < digestValues.length ? `${open}${digestValues[i++]}${close}` : whole,
  );
  // Every SignatureValue: a copy of the signature carries the same value.
  return withDigests.replace(
    /(<(?:\w+:)?SignatureValue[^>]*>)[^<]*(<\/(?:\w+:)?SignatureValue>)/g,
    (_whole, open: string, close: string) => `${open}${value}${close}`,
  );
}

/** Hacienda's own shape (REFERENCE §5.1): exclusive C14N, the XPath filter and exc-c14n on URI="". */
export function haciendaShaped(xml: string, key: SigningKey): string {
  const edited = xml
    .replace(
      `<ds:CanonicalizationMethod Algorithm="${C14N}">`,
      `<ds:CanonicalizationMethod Algorithm="${EXC_C14N}">`,
    )
    .replace(
      `<ds:Transform Algorithm="${ENVELOPED}"></ds:Transform>`,
      `<ds:Transform Algorithm="${XPATH_FILTER}"><ds:XPath>not(ancestor-or-self::ds:Signature)</ds:XPath></ds:Transform><ds:Transform Algorithm="${EXC_C14N}"></ds:Transform>`,
    );
  return resign(edited, key);
}

export const HACIENDA_SHAPED = 'MensajeHacienda in Hacienda’s shape (XPath filter, exclusive C14N)';

const PAYLOAD =
  '<?xml version="1.0" encoding="UTF-8"?>\n<doc xmlns="urn:doc" xmlns:x="urn:x"><!-- lead -->\n' +
  '  <x:item n="1" x:k="v &amp; w">Uno &lt;1&gt;</x:item>\n  <Payload><x:v>dos</x:v><!-- inner --></Payload>\n</doc>';

type Named = Array<[string, () => string]>;

/**
 * A signed MensajeReceptor: an acceptance (Mensaje 1, condición 01) of a supplier's invoice with tax,
 * answered by 3-101-779527 under consecutivo 00100001050000000001.
 */
export function signedMensajeReceptor(key: SigningKey, now?: Date): string {
  const plan = planMensajeReceptor(
    {
      clave: '50626052600310295087500100001010000000033159073080',
      emisorNumero: '3102950875',
      totalComprobante: '11300',
      totalImpuesto: '1300',
    },
    { mensaje: 1, condicionImpuesto: '01', codigoActividad: '620100' },
    now,
  );
  if (!plan.ok) throw new Error('the MensajeReceptor plan was refused');
  return buildMensajeReceptor(
    { ...plan.value, numeroCedulaReceptor: '3101779527', numeroConsecutivoReceptor: '00100001050000000001' },
    key,
    now ? { now } : undefined,
  );
}

/**
 * Valid signed documents: `decided`, the shapes the fast path decides (every kind our engine signs, our
 * MensajeHacienda and MensajeReceptor, Hacienda's shape, xml-crypto's own signatures); `leftToXmlCrypto`,
 * valid for xml-crypto in shapes the fast path leaves to it.
 */
export function signatureCorpus(key: SigningKey, now: Date) {
  const signed = (document: unknown) => () => buildSignedDocument({ document, issuer: ISSUER, key, now }).xml;
  const mensajeHacienda = () =>
    buildMensajeHacienda({
      clave: '50631082600310181576400100001030000001522114249307',
      nombreEmisor: 'ONVO COSTA RICA SOCIEDAD ANONIMA',
      tipoIdentificacionEmisor: '02',
      numeroCedulaEmisor: '3101815764',
      mensaje: 3,
      detalles: [{ codigo: -37, mensaje: 'La ubicación <RUT> & "x"', fila: 0, columna: 0 }],
      totalFactura: '31337.54',
      key,
      sign: { now },
    });
  const mensajeReceptor = () => signedMensajeReceptor(key, now);
  const decided: Named = [
    ['FE', signed(invoice())],
    ['NC', signed(invoice({ tipoDoc: '3', informacionReferencia: NC_REFERENCE }))],
    ['TE', signed(invoice({ tipoDoc: '4', receptor: '' }))],
    ['ND', signed(debitNote({ informacionReferencia: FE_REFERENCE }))],
    ['FEC', signed(purchaseInvoice())],
    ['FEE', signed(exportInvoice())],
    ['REP', signed(paymentReceipt())],
    ['MensajeHacienda', mensajeHacienda],
    ['MensajeReceptor', mensajeReceptor],
    [HACIENDA_SHAPED, () => haciendaShaped(mensajeHacienda(), key)],
    ['xml-crypto: exclusive C14N', () => signWithXmlCrypto(PAYLOAD, key)],
    [
      'xml-crypto: with comments',
      () =>
        signWithXmlCrypto(PAYLOAD, key, {
          canonicalization: EXC_C14N_COMMENTS,
          transforms: [ENVELOPED, C14N_COMMENTS],
        }),
    ],
    [
      'xml-crypto: inclusive, Id reference, rsa-sha1',
      () =>
        signWithXmlCrypto(PAYLOAD, key, {
          canonicalization: C14N,
          signature: RSA_SHA1,
          digest: SHA1,
          transforms: [ENVELOPED],
          idReference: { localName: 'Payload', transforms: [C14N] },
        }),
    ],
    [
      'xml-crypto: sha512, exclusive Id reference, unprefixed Signature',
      () =>
        signWithXmlCrypto(PAYLOAD, key, {
          signature: RSA_SHA512,
          digest: SHA512,
          prefix: '',
          idReference: { localName: 'item', transforms: [EXC_C14N_COMMENTS] },
        }),
    ],
    ['xml-crypto: no namespace', () => signWithXmlCrypto('<library><book id="b1">X</book></library>', key)],
  ];
  const leftToXmlCrypto: Named = [
    [
      'InclusiveNamespaces PrefixList',
      () =>
        signWithXmlCrypto(PAYLOAD, key, {
          transforms: [ENVELOPED, EXC_C14N],
          inclusiveNamespacesPrefixList: ['x'],
        }),
    ],
    [
      'exclusive C14N over a no-namespace element below a namespaced one',
      () => signWithXmlCrypto('<a xmlns="urn:a"><b xmlns=""><c/></b></a>', key),
    ],
    ['a U+2029 in the text', () => signWithXmlCrypto('<a xmlns="urn:a">x\u2029y</a>', key)],
    ['a DOCTYPE', () => signWithXmlCrypto('<!DOCTYPE a>\n<a xmlns="urn:a">x</a>', key)],
    [
      'a transform after the C14N one',
      () => signWithXmlCrypto(PAYLOAD, key, { transforms: [EXC_C14N, ENVELOPED] }),
    ],
  ];
  return { decided, leftToXmlCrypto, mensajeHacienda };
}
