// Fast verdict on a ds:Signature's references and SignatureValue, worked on the document verifySignedXml
// has already parsed. xml-crypto's checkSignature parses the text again and finds every node with
// whole-document XPath queries, which is most of the CPU a verification costs; this walks the DOM once and
// canonicalizes with xml-crypto's own canonicalizers. It only ever answers 'valid' (every digest and the
// signature value checked) or 'unsure': for any shape it does not mirror exactly, any mismatch and any
// exception the caller runs xml-crypto unchanged, so findings for bad documents stay xml-crypto's and
// nothing xml-crypto would reject is accepted here. Why each rule holds:
// docs/decisions/0028-signature-verification-fast-path.md.
import { type KeyObject, createHash, createVerify } from 'node:crypto';
import type { Element, Node } from '@xmldom/xmldom';
import {
  C14nCanonicalization,
  C14nCanonicalizationWithComments,
  ExclusiveCanonicalization,
  ExclusiveCanonicalizationWithComments,
  type NamespacePrefix,
  SignedXml,
} from 'xml-crypto';
import { DS_NS, ENVELOPED } from './xades-sign';

export type FastVerdict = 'valid' | 'unsure';

export const XPATH_FILTER_TRANSFORM = 'http://www.w3.org/TR/1999/REC-xpath-19991116';
/** Hacienda's XPath filter, which for an enveloped signature selects what the enveloped transform does. */
export const ENVELOPED_XPATH = /^not\(ancestor-or-self::\w+:Signature\)$/;

export const DIGEST_ALGORITHMS: Record<string, string> = {
  'http://www.w3.org/2000/09/xmldsig#sha1': 'sha1',
  'http://www.w3.org/2001/04/xmlenc#sha256': 'sha256',
  'http://www.w3.org/2001/04/xmlenc#sha512': 'sha512',
};

/** The names xml-crypto's RsaSha1/RsaSha256/RsaSha512 hand to createVerify (RSA-PSS is left to it). */
const SIGNATURE_ALGORITHMS: Record<string, string> = {
  'http://www.w3.org/2000/09/xmldsig#rsa-sha1': 'RSA-SHA1',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256': 'RSA-SHA256',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512': 'RSA-SHA512',
};

type Canonicalizer = new () => {
  process(node: unknown, options: { ancestorNamespaces?: NamespacePrefix[] }): unknown;
};
interface C14nMethod {
  exclusive: boolean;
  withComments: Canonicalizer;
  /** What a same-document reference gets: xml-crypto removes every comment first, the same output. */
  withoutComments: Canonicalizer;
}
const INCLUSIVE: C14nMethod = {
  exclusive: false,
  withComments: C14nCanonicalization,
  withoutComments: C14nCanonicalization,
};
const EXCLUSIVE: C14nMethod = {
  exclusive: true,
  withComments: ExclusiveCanonicalization,
  withoutComments: ExclusiveCanonicalization,
};
const C14N_METHODS: Record<string, C14nMethod> = {
  'http://www.w3.org/TR/2001/REC-xml-c14n-20010315': INCLUSIVE,
  'http://www.w3.org/TR/2001/REC-xml-c14n-20010315#WithComments': {
    ...INCLUSIVE,
    withComments: C14nCanonicalizationWithComments,
  },
  'http://www.w3.org/2001/10/xml-exc-c14n#': EXCLUSIVE,
  'http://www.w3.org/2001/10/xml-exc-c14n#WithComments': {
    ...EXCLUSIVE,
    withComments: ExclusiveCanonicalizationWithComments,
  },
};

/** Thrown inside this module for "not a shape mirrored here"; caught, it becomes 'unsure'. */
class Unsure extends Error {}
function need(condition: unknown): asserts condition {
  if (!condition) throw new Unsure();
}

function elementChildren(el: Element): Element[] {
  const out: Element[] = [];
  for (let n = el.firstChild; n; n = n.nextSibling) if (n.nodeType === 1) out.push(n as Element);
  return out;
}

const isDs = (el: Element | undefined, name: string): el is Element =>
  el !== undefined && el.localName === name && el.namespaceURI === DS_NS;

/** The one unprefixed Algorithm attribute (xml-crypto matches any attribute of that local name). */
function algorithmOf(el: Element): string {
  let value: string | undefined;
  let count = 0;
  for (let i = 0; i < el.attributes.length; i++) {
    const attr = el.attributes.item(i)!;
    if (attr.localName === 'Algorithm') {
      count++;
      if (attr.name === 'Algorithm') value = attr.value;
    }
  }
  need(count === 1 && value !== undefined);
  return value;
}

/** The element's content when it is exactly one text node (no comment, CDATA or child to read around). */
function onlyText(el: Element): string {
  const first = el.firstChild;
  need(first && first.nodeType === 3 && !first.nextSibling);
  return (first as unknown as { data: string }).data;
}

function noElementChildren(el: Element): void {
  need(elementChildren(el).length === 0);
}

interface DocumentScan {
  signatures: number;
  firstSignedInfo?: Element;
  /** Elements per id value, once per attribute name among Id/ID/id, as xml-crypto's per-name XPath counts. */
  ids: Map<string, Element[]>;
  /** Id values also carried by an `xmlns:Id`-like declaration, which XPath's attribute axis may not see. */
  declaredIds: Set<string>;
}

const ID_NAMES = new Set(['Id', 'ID', 'id']);

/** One walk over every element in document order. */
function scanDocument(root: Element): DocumentScan {
  const scan: DocumentScan = { signatures: 0, ids: new Map(), declaredIds: new Set() };
  const stack: Element[] = [root];
  while (stack.length > 0) {
    const el = stack.pop()!;
    if (el.localName === 'Signature' && el.namespaceURI === DS_NS) scan.signatures++;
    if (el.localName === 'SignedInfo' && !scan.firstSignedInfo) scan.firstSignedInfo = el;
    const seen = new Set<string>();
    for (let i = 0; i < el.attributes.length; i++) {
      const attr = el.attributes.item(i)!;
      if (!ID_NAMES.has(attr.localName ?? '')) continue;
      if (attr.prefix === 'xmlns') {
        scan.declaredIds.add(attr.value);
        continue;
      }
      const key = `${attr.localName}\u0000${attr.value}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const list = scan.ids.get(attr.value);
      if (list) list.push(el);
      else scan.ids.set(attr.value, [el]);
    }
    const children = elementChildren(el);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return scan;
}

/**
 * The namespaces in scope from the ancestors that inclusive C14N renders on a subtree's apex, as xml-crypto's
 * findAncestorNs does: nearest declaration of each prefix wins, undeclarations and the apex's own
 * declarations and prefix are left out.
 */
export function ancestorNamespaces(el: Element): NamespacePrefix[] {
  const own = new Set<string>([el.prefix ?? '']);
  for (let i = 0; i < el.attributes.length; i++) {
    const name = el.attributes.item(i)!.nodeName;
    if (name === 'xmlns' || name.startsWith('xmlns:')) own.add(name.replace(/^xmlns:?/, ''));
  }
  const seen = new Set<string>();
  const out: NamespacePrefix[] = [];
  for (let p = el.parentNode; p && p.nodeType === 1; p = p.parentNode) {
    const attrs = (p as Element).attributes;
    for (let i = 0; i < attrs.length; i++) {
      const attr = attrs.item(i)!;
      if (attr.nodeName.search(/^xmlns:?/) === -1) continue;
      const prefix = attr.nodeName.replace(/^xmlns:?/, '');
      if (seen.has(prefix)) continue;
      seen.add(prefix);
      const namespaceURI = attr.nodeValue || '';
      if (namespaceURI !== '' && !own.has(prefix)) out.push({ prefix, namespaceURI });
    }
  }
  return out;
}

/**
 * Exclusive C14N writes `node.namespaceURI` as the new default namespace; xmldom 0.9 gives null where
 * xml-crypto's xmldom 0.8 gives "" for a no-namespace element, which changes the output when such elements
 * sit below namespaced ones. Either all elements of the subtree are namespaced or none is.
 */
function uniformNamespaces(apex: Element): void {
  let withNs = 0;
  let without = 0;
  const stack: Element[] = [apex];
  while (stack.length > 0) {
    const el = stack.pop()!;
    if (el.namespaceURI) withNs++;
    else without++;
    stack.push(...elementChildren(el));
  }
  need(withNs === 0 || without === 0);
}

function canonicalize(
  node: Element,
  method: C14nMethod,
  canonicalizer: Canonicalizer,
  ancestors: NamespacePrefix[],
) {
  if (method.exclusive) {
    uniformNamespaces(node);
    // ExclusiveCanonicalization takes a PrefixList from a CanonicalizationMethod/InclusiveNamespaces child
    // (and then edits the node).
    const c14nChild = elementChildren(node).find((c) => c.localName === 'CanonicalizationMethod');
    need(!c14nChild || !elementChildren(c14nChild).some((c) => c.localName === 'InclusiveNamespaces'));
  }
  const out = new canonicalizer().process(node, {
    ancestorNamespaces: ancestors,
    defaultNsForPrefix: SignedXml.defaultNsForPrefix,
  } as { ancestorNamespaces: NamespacePrefix[] });
  need(typeof out === 'string');
  return out;
}

const isDescendant = (node: Node, ancestor: Node) => {
  for (let p = node.parentNode; p; p = p.parentNode) if (p === ancestor) return true;
  return false;
};

interface ParsedReference {
  uri: string;
  enveloped: boolean;
  method: C14nMethod;
  digest: string;
  digestValue: string;
}

function readReference(ref: Element, xpathFilterIsEnveloped: boolean): ParsedReference {
  need(ref.hasAttribute('URI'));
  const kids = elementChildren(ref);
  let i = 0;
  const transforms = isDs(kids[0], 'Transforms') ? kids[i++] : undefined;
  const digestMethod = kids[i++];
  const digestValue = kids[i++];
  need(isDs(digestMethod, 'DigestMethod') && isDs(digestValue, 'DigestValue') && i === kids.length);
  noElementChildren(digestMethod);
  let enveloped = false;
  let method: C14nMethod | undefined;
  for (const t of transforms ? elementChildren(transforms) : []) {
    need(isDs(t, 'Transform') && method === undefined); // a C14N transform, if any, comes last
    const algorithm = algorithmOf(t);
    if (algorithm === ENVELOPED || algorithm === XPATH_FILTER_TRANSFORM) {
      need(!enveloped);
      enveloped = true;
      if (algorithm === ENVELOPED) noElementChildren(t);
      else {
        const [xpath, ...rest] = elementChildren(t);
        need(xpathFilterIsEnveloped && isDs(xpath, 'XPath') && rest.length === 0);
        need(ENVELOPED_XPATH.test(onlyText(xpath).trim()));
      }
    } else {
      method = C14N_METHODS[algorithm];
      need(method);
      noElementChildren(t); // no InclusiveNamespaces PrefixList
    }
  }
  const digest = DIGEST_ALGORITHMS[algorithmOf(digestMethod)];
  need(digest);
  const value = onlyText(digestValue);
  need(value !== '');
  return {
    uri: ref.getAttribute('URI') ?? '',
    enveloped,
    method: method ?? INCLUSIVE,
    digest,
    digestValue: value,
  };
}

/** Every node of SignedInfo is an element, text or comment: nothing xml-crypto's re-parse could read differently. */
function plainSubtree(el: Element): void {
  const stack: Node[] = [el];
  while (stack.length > 0) {
    const node = stack.pop()!;
    need(node.nodeType === 1 || node.nodeType === 3 || node.nodeType === 8);
    for (let n = node.firstChild; n; n = n.nextSibling) stack.push(n);
  }
}

/** The referenced element: the root for URI="", else the one element carrying that id. */
function dereference(uri: string, root: Element, scan: DocumentScan): Element {
  if (uri === '') return root;
  need(uri.length > 1 && uri.startsWith('#') && !uri.includes("'"));
  const id = uri.slice(1);
  const found = scan.ids.get(id);
  need(!scan.declaredIds.has(id) && found?.length === 1);
  return found[0]!;
}

function digestMatches(ref: ParsedReference, target: Element, signature: Element): boolean {
  const ancestors = ref.uri === '' ? [] : ancestorNamespaces(target);
  // The enveloped transform drops the signature when it lies inside the referenced element. It is taken out
  // of the parsed document for the canonicalization and put back in the same place.
  const detach = ref.enveloped && isDescendant(signature, target);
  const parent = signature.parentNode!;
  const next = signature.nextSibling;
  if (detach) parent.removeChild(signature);
  let canonical: string;
  try {
    canonical = canonicalize(target, ref.method, ref.method.withoutComments, ancestors);
  } finally {
    if (detach) parent.insertBefore(signature, next);
  }
  const digest = createHash(ref.digest).update(canonical, 'utf8').digest();
  return digest.equals(Buffer.from(ref.digestValue, 'base64'));
}

function verdict(
  xml: string,
  signature: Element,
  publicKey: KeyObject | string,
  xpathFilterIsEnveloped: boolean,
) {
  const doc = signature.ownerDocument;
  const root = doc?.documentElement;
  // xmldom 0.9 turns U+2029 into a line feed, xml-crypto's 0.8 does not; a DOCTYPE may declare entities.
  need(root && signature.parentNode === root && !doc.doctype && !xml.includes('\u2029'));
  const scan = scanDocument(root);
  need(scan.signatures === 1);

  const [signedInfo, signatureValue] = elementChildren(signature);
  need(isDs(signedInfo, 'SignedInfo') && isDs(signatureValue, 'SignatureValue'));
  need(scan.firstSignedInfo === signedInfo);
  need(elementChildren(signature).filter((c) => c.localName === 'SignedInfo').length === 1);
  plainSubtree(signedInfo);
  // xml-crypto takes CanonicalizationMethod, SignatureMethod and SignatureValue as the first descendants of
  // the signature with those local names. SignedInfo comes first and holds only the elements checked below
  // (readReference admits nothing else), so those are the ones read here.
  const [c14nMethod, signatureMethod, ...references] = elementChildren(signedInfo);
  need(isDs(c14nMethod, 'CanonicalizationMethod') && isDs(signatureMethod, 'SignatureMethod'));
  noElementChildren(c14nMethod);
  noElementChildren(signatureMethod);
  need(references.length > 0 && references.every((r) => isDs(r, 'Reference')));
  const method = C14N_METHODS[algorithmOf(c14nMethod)];
  const signatureAlgorithm = SIGNATURE_ALGORITHMS[algorithmOf(signatureMethod)];
  need(method && signatureAlgorithm);
  const value = onlyText(signatureValue).replace(/\r?\n/g, '');
  need(value.trim() !== '');

  // SignedInfo first, while the signature is in place: its in-scope namespaces come from the ancestors.
  const canonicalSignedInfo = canonicalize(
    signedInfo,
    method,
    method.withComments,
    ancestorNamespaces(signedInfo),
  );
  const parsed = references.map((r) => readReference(r, xpathFilterIsEnveloped));
  for (const ref of parsed) {
    need(digestMatches(ref, dereference(ref.uri, root, scan), signature));
  }
  need(createVerify(signatureAlgorithm).update(canonicalSignedInfo).verify(publicKey, value, 'base64'));
  return 'valid' as const;
}

/**
 * 'valid' when every reference digest and the SignatureValue check out over the parsed document exactly as
 * xml-crypto's checkSignature would compute them; 'unsure' otherwise (run xml-crypto). Never throws.
 */
export function fastVerifySignature(
  xml: string,
  signature: Element,
  /** The signer's key, or its certificate in PEM (read again on every call). */
  publicKey: KeyObject | string,
  xpathFilterIsEnveloped: boolean,
): FastVerdict {
  try {
    return verdict(xml, signature, publicKey, xpathFilterIsEnveloped);
  } catch {
    return 'unsure';
  }
}
