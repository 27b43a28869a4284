// Differential tests of the verification fast path (ADR 0028): for every document, valid or tampered, the
// findings with the fast path equal xml-crypto's alone, and the fast path decides only where it must.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { type Element, XMLSerializer } from '@xmldom/xmldom';
import { describeCertificate, openP12 } from './signing-key';
import { EXC_C14N, HACIENDA_SHAPED, resign, signatureCorpus } from './testing/signature-corpus';
import { issueTestP12, makeTestCa, makeTestP12 } from './testing/test-certificate';
import { SAMPLES_DIR, checkTools, xmlsecErrors } from './testing/tools';
import { parseXml } from './parse-xml';
import { checkSignatureValue, verifySignedXml } from './xades-verify';
import { DS_NS } from './xades-sign';

const key = openP12(makeTestP12().p12, '1234');
const otherKey = openP12(issueTestP12(makeTestCa()).p12, '1234');
const NOW = new Date('2026-05-26T18:31:00Z');

function signatureIn(xml: string): Element | undefined {
  const parsed = parseXml(xml);
  if ('error' in parsed) return undefined;
  const all = Array.from(parsed.doc.getElementsByTagNameNS(DS_NS, 'Signature'));
  return all.find((s) => s.parentNode === parsed.doc.documentElement) ?? all[0];
}

const SIGNATURE_CODES = new Set(['digest_mismatch', 'bad_signature_value', 'signature_check_failed']);
/** What the signature check found beyond the XAdES references (xml-crypto's signatures have none). */
const signatureErrors = (findings: Array<{ code: string }>) =>
  findings.filter((f) => SIGNATURE_CODES.has(f.code));

/** Both paths on their own parse of `xml`, with the certificate KeyInfo carries. */
function bothPaths(xml: string) {
  const fastSig = signatureIn(xml)!;
  const certB64 = fastSig
    .getElementsByTagNameNS(DS_NS, 'X509Certificate')[0]!
    .textContent!.replace(/\s+/g, '');
  const pem = describeCertificate(Buffer.from(certB64, 'base64')).certificatePem;
  const fast = checkSignatureValue(xml, fastSig, pem);
  const alone = checkSignatureValue(xml, signatureIn(xml)!, pem, { fastPath: false });
  return { fast, alone };
}

const corpus = signatureCorpus(key, NOW);
const ours = corpus.decided;
const leftToXmlCrypto = corpus.leftToXmlCrypto;
const { mensajeHacienda } = corpus;
const named = (name: string) => ours.find(([n]) => n === name)![1];

const samples = checkTools([], true).ok ? readdirSync(SAMPLES_DIR).filter((f) => f.endsWith('.xml')) : [];
const sampleXml = (file: string) => readFileSync(path.join(SAMPLES_DIR, file), 'utf8');

describe('verification fast path', () => {
  it.each(ours)('when %s is verified, then the fast path decides "valid" like xml-crypto', (_name, make) => {
    const { fast, alone } = bothPaths(make());
    expect(signatureErrors(alone.findings)).toEqual([]);
    expect(fast).toEqual({ path: 'fast', findings: alone.findings });
  });

  // All three real accepted samples (other signing software: ds declared on the root or on the Signature,
  // CRLF line ends, two C14N transforms in a row on one reference) are in a shape the fast path takes.
  it.each(samples.map((f) => [f]))(
    'when the real sample %s is verified, then the fast path decides',
    (file) => {
      const { fast, alone } = bothPaths(sampleXml(file));
      expect(alone.findings).toEqual([]);
      expect(fast).toEqual({ path: 'fast', findings: [] });
    },
  );

  // xml-crypto is handed Hacienda's XPath filter as its enveloped transform; it used to get our parse's
  // signature node there, remove nothing and refuse every such signature (xmlsec1 accepts it).
  it('when a MensajeHacienda in Hacienda’s own shape is verified, then xmlsec1, xml-crypto and the fast path accept it', () => {
    const xml = named(HACIENDA_SHAPED)();
    if (checkTools(['xmlsec1'], false).ok) expect(xmlsecErrors(xml)).toBe('');
    const { fast, alone } = bothPaths(xml);
    expect(alone.findings).toEqual([]);
    expect(fast).toEqual({ path: 'fast', findings: [] });
    expect(verifySignedXml(xml, { requirePolicy: false })).toMatchObject({ valid: true, findings: [] });
  });

  it.each(leftToXmlCrypto)('when a document has %s, then xml-crypto decides alone', (_name, make) => {
    const { fast, alone } = bothPaths(make());
    expect(signatureErrors(alone.findings)).toEqual([]);
    expect(fast).toEqual({ path: 'xml-crypto', findings: alone.findings });
  });

  // Signed as this package's parser and the fast path read them, these are refused by xml-crypto (its
  // xmldom 0.8 reads them otherwise, or it refuses the shape); without the guards the fast path would call
  // them valid.
  const fe = named('FE');
  const hacienda = named(HACIENDA_SHAPED);
  it.each([
    [
      'a U+2029 in a text',
      hacienda,
      (xml: string) => xml.replace('</Clave>', '\u2029</Clave>'),
      'digest_mismatch',
    ],
    [
      'a no-namespace element under exclusive C14N',
      hacienda,
      (xml: string) => xml.replace('<Clave>', '<Nota xmlns=""><Sub>s</Sub></Nota><Clave>'),
      'digest_mismatch',
    ],
    [
      // xml-crypto takes the namespaces in scope of SignedInfo from the first element of that local name.
      'an element named SignedInfo before the Signature, under another namespace prefix',
      fe,
      (xml: string) => beforeSignature(xml, '<Q xmlns="urn:q" xmlns:q="urn:q"><SignedInfo/></Q>'),
      'bad_signature_value',
    ],
    [
      // Inside the signature, the enveloped transform takes the copy out of the digest with it.
      'a copy of the Signature inside it (no Id to make it ambiguous)',
      named('xml-crypto: with comments'),
      (xml: string) => withDom(xml, (_root, signature) => signature.appendChild(signature.cloneNode(true))),
      'signature_check_failed',
    ],
  ] as const)(
    'when a document signed over our parse has %s, then the fast path is unsure',
    (_name, make, edit, code) => {
      const xml = resign(edit(make()), key);
      const { fast, alone } = bothPaths(xml);
      expect(alone.findings.map((f) => f.code)).toEqual([code]);
      expect(fast).toEqual({ path: 'xml-crypto', findings: alone.findings });
    },
  );
});

const flip = (value: string) =>
  value[5] === 'A' ? `${value.slice(0, 5)}B${value.slice(6)}` : `${value.slice(0, 5)}A${value.slice(6)}`;

function firstDocumentText(xml: string): string {
  const parsed = parseXml(xml);
  if ('error' in parsed) throw new Error(parsed.error);
  const stack: Element[] = [parsed.doc.documentElement!];
  while (stack.length > 0) {
    const el = stack.shift()!;
    if (el.localName === 'Signature') continue;
    const textNode = Array.from(el.childNodes).find((n) => n.nodeType === 3 && n.nodeValue!.trim() !== '');
    if (textNode && el !== parsed.doc.documentElement) {
      return xml.replace(`>${textNode.nodeValue}</${el.tagName}>`, `>${textNode.nodeValue}X</${el.tagName}>`);
    }
    stack.push(...(Array.from(el.childNodes).filter((n) => n.nodeType === 1) as Element[]));
  }
  throw new Error('no text');
}

function withDom(xml: string, edit: (root: Element, signature: Element) => void): string {
  const parsed = parseXml(xml);
  if ('error' in parsed) throw new Error(parsed.error);
  const root = parsed.doc.documentElement!;
  edit(root, root.getElementsByTagNameNS(DS_NS, 'Signature')[0]!);
  return new XMLSerializer().serializeToString(parsed.doc);
}

const lastIdUri = (xml: string) => [...xml.matchAll(/URI="#([^"]+)"/g)].at(-1)?.[1];
/** An edit that needs the id of the last #id reference; the document unchanged when it has none. */
const withId = (edit: (xml: string, id: string) => string) => (xml: string) => {
  const id = lastIdUri(xml);
  return id ? edit(xml, id) : xml;
};
const beforeSignature = (xml: string, extra: string) =>
  xml.replace(/<(\w+:)?Signature[ >]/, (m) => `${extra}${m}`);
const elementChildren = (el: Element) =>
  Array.from(el.childNodes).filter((n) => n.nodeType === 1) as Element[];

/** A PrefixList on the first C14N transform, written either way the transform may be closed. */
function withPrefixList(xml: string): string {
  const list = `<ec:InclusiveNamespaces xmlns:ec="${EXC_C14N}" PrefixList="x"/>`;
  return xml.replace(
    /<((\w+:)?)Transform (Algorithm="[^"]*c14n[^"]*")\s*(\/?)>/,
    (_m, prefix: string, _p, attr: string, empty: string) =>
      empty
        ? `<${prefix}Transform ${attr}>${list}</${prefix}Transform>`
        : `<${prefix}Transform ${attr}>${list}`,
  );
}

/** [name, edit, whether xml-crypto must refuse the result] */
const TAMPERS: Array<[string, (xml: string) => string, boolean]> = [
  ['a text value changed', firstDocumentText, true],
  [
    'an attribute added to the root',
    (xml) => xml.replace(/<([A-Za-z][\w.-]*)([ >])/, '<$1 extra="1"$2'),
    true,
  ],
  [
    'a DigestValue changed',
    (xml) => xml.replace(/(DigestValue>)([^<]+)/, (_m, a: string, v: string) => a + flip(v)),
    true,
  ],
  [
    'the SignatureValue changed',
    (xml) => xml.replace(/(SignatureValue[^>]*>)([^<]+)/, (_m, a: string, v: string) => a + flip(v)),
    true,
  ],
  [
    'two elements swapped',
    (xml) =>
      withDom(xml, (root) => {
        const [a, b] = elementChildren(root);
        root.insertBefore(b!, a!);
      }),
    true,
  ],
  [
    'a second element with the referenced Id',
    withId((xml, id) => beforeSignature(xml, `<W xmlns="urn:w" Id="${id}"/>`)),
    true,
  ],
  [
    'a second element with the referenced id as ID',
    withId((xml, id) => beforeSignature(xml, `<W xmlns="urn:w" ID="${id}"/>`)),
    true,
  ],
  [
    'a second element with the referenced id as x:id',
    withId((xml, id) => beforeSignature(xml, `<W xmlns="urn:w" xmlns:x="urn:x" x:id="${id}"/>`)),
    true,
  ],
  [
    'a second element with the referenced Id inside the Signature',
    withId((xml, id) => xml.replace(/(<\/(\w+:)?SignatureValue>)/, `$1<W xmlns="urn:w" Id="${id}"/>`)),
    true,
  ],
  [
    'the referenced id declared as a namespace prefix',
    withId((xml, id) => beforeSignature(xml, `<W xmlns="urn:w" xmlns:Id="${id}"/>`)),
    false,
  ],
  [
    'the Signature moved into the first element',
    (xml) => withDom(xml, (root, signature) => elementChildren(root)[0]!.appendChild(signature)),
    false, // xml-crypto removes it there too; verifySignedXml reports no_signature before
  ],
  [
    'the Signature moved to the front',
    (xml) => withDom(xml, (root, signature) => root.insertBefore(signature, root.firstChild)),
    false,
  ],
  [
    'a second Signature',
    (xml) => withDom(xml, (root, signature) => root.appendChild(signature.cloneNode(true))),
    false,
  ],
  ['a comment in the document', (xml) => beforeSignature(xml, '<!-- added -->'), false],
  ['a comment in SignedInfo', (xml) => xml.replace(/(<(\w+:)?SignedInfo[^>]*>)/, '$1<!-- added -->'), false],
  [
    'another certificate',
    (xml) =>
      xml.replace(
        /(X509Certificate>)[^<]+/,
        (_m, a: string) => a + otherKey.certificateDer.toString('base64'),
      ),
    true,
  ],
  [
    'another XPath filter',
    (xml) => xml.replace('not(ancestor-or-self::ds:Signature)', 'not(ancestor-or-self::ds:Object)'),
    false,
  ],
  ['the URI of a reference emptied to "#"', (xml) => xml.replace(/URI="#[^"]+"/, 'URI="#"'), true],
  ['an InclusiveNamespaces PrefixList', withPrefixList, false],
  ['an empty SignatureValue', (xml) => xml.replace(/(SignatureValue[^>]*>)[^<]+/, '$1'), true],
];

const tamper = (name: string) => TAMPERS.find(([n]) => n === name)![1];

const BASES: Array<[string, () => string]> = [
  ['FE', named('FE')],
  ['MensajeHacienda', mensajeHacienda],
  ['Hacienda-shaped', named(HACIENDA_SHAPED)],
  ['xml-crypto with comments', named('xml-crypto: with comments')],
  ['xml-crypto Id reference', named('xml-crypto: inclusive, Id reference, rsa-sha1')],
  ...samples.slice(0, 1).map((f): [string, () => string] => [f, () => sampleXml(f)]),
];

describe('verification fast path on tampered documents', () => {
  const cases = BASES.flatMap(([base, make]) =>
    TAMPERS.map(([name, edit, refused]) => [base, name, make, edit, refused] as const),
  );
  it.each(cases)(
    'when %s has %s, then the findings are xml-crypto’s',
    (_base, _name, make, edit, refused) => {
      const original = make();
      const xml = edit(original);
      if (xml === original) return; // the base has no such part (e.g. no XPath filter)
      const { fast, alone } = bothPaths(xml);
      expect(fast.findings).toEqual(alone.findings);
      if (refused) {
        expect(signatureErrors(alone.findings).length).toBeGreaterThan(0);
        expect(fast.path).toBe('xml-crypto');
      }
      if (fast.path === 'fast') expect(signatureErrors(alone.findings)).toEqual([]);
    },
  );

  it('when a tampered document is verified whole, then it fails with the same codes as before', () => {
    const xml = named('FE')();
    expect(verifySignedXml(xml).valid).toBe(true);
    const codes = (x: string) => verifySignedXml(x).findings.map((f) => f.code);
    expect(codes(firstDocumentText(xml))).toEqual(['digest_mismatch']);
    expect(codes(tamper('the SignatureValue changed')(xml))).toEqual(['bad_signature_value']);
    expect(codes(tamper('a second element with the referenced Id')(xml))).toEqual(['digest_mismatch']);
    expect(codes(tamper('a second element with the referenced Id inside the Signature')(xml))).toEqual([
      'signature_check_failed',
    ]);
    expect(codes(tamper('the Signature moved into the first element')(xml))).toEqual(['no_signature']);
    expect(codes(tamper('another certificate')(xml))).toEqual(
      expect.arrayContaining(['digest_mismatch', 'bad_cert_digest', 'key_value_mismatch']),
    );
  });

  it('when the caller passes its own parse, then that document is read, unchanged, with the same findings', () => {
    const serialize = (doc: Parameters<XMLSerializer['serializeToString']>[0]) =>
      new XMLSerializer().serializeToString(doc);
    const valid = named('FE')();
    // The xml-crypto path too: a tampered document is refused by it, not by the fast path.
    for (const xml of [valid, firstDocumentText(valid), tamper('the SignatureValue changed')(valid)]) {
      const parsed = parseXml(xml);
      if ('error' in parsed) throw new Error(parsed.error);
      const before = serialize(parsed.doc);
      expect(verifySignedXml(xml, { parsed: parsed.doc })).toEqual(verifySignedXml(xml));
      expect(serialize(parsed.doc)).toBe(before);
    }
    // The document given is the one read: the parse of an unsigned text has no signature to find.
    const unsigned = parseXml(tamper('the Signature moved into the first element')(valid));
    if ('error' in unsigned) throw new Error(unsigned.error);
    expect(verifySignedXml(valid, { parsed: unsigned.doc }).findings.map((f) => f.code)).toEqual([
      'no_signature',
    ]);
  });
});
