// The fast path (ADR 0028) runs xml-crypto's canonicalizers on this package's xmldom 0.9 nodes, where
// checkSignature runs them on its own xmldom 0.8 parse. For every element of every document here, both give
// the same bytes, and ancestorNamespaces gives what xml-crypto's findAncestorNs gives; where they differ, a
// guard of the fast path applies.
import { createRequire } from 'node:module';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Document, Element } from '@xmldom/xmldom';
import {
  C14nCanonicalization,
  C14nCanonicalizationWithComments,
  ExclusiveCanonicalization,
  ExclusiveCanonicalizationWithComments,
  findAncestorNs,
} from 'xml-crypto';
import { openP12 } from './signing-key';
import { signatureCorpus } from './testing/signature-corpus';
import { makeTestP12 } from './testing/test-certificate';
import { SAMPLES_DIR, checkTools } from './testing/tools';
import { ancestorNamespaces } from './xades-fast-verify';
import { parseXml } from './parse-xml';

/** The node type xml-crypto's API is written against. */
type XNode = Parameters<C14nCanonicalization['process']>[0];

/** The @xmldom/xmldom that xml-crypto itself depends on (0.8), as checkSignature parses with it. */
const xmldom08 = createRequire(require.resolve('xml-crypto'))('@xmldom/xmldom') as {
  DOMParser: new () => { parseFromString(xml: string): Document };
};

const key = openP12(makeTestP12().p12, '1234');
const corpus = signatureCorpus(key, new Date('2026-05-26T18:31:00Z'));
const samples = checkTools([], true).ok ? readdirSync(SAMPLES_DIR).filter((f) => f.endsWith('.xml')) : [];

const SNIPPETS: Array<[string, string]> = [
  [
    'attribute whitespace and character references',
    '<a x="1\t2\n3" y="a&#9;b&#10;c&#13;d">t\u2028u\u0085v</a>',
  ],
  ['line ends', '<a>x\r\ny\rz&#xD;\n</a>'],
  [
    'CDATA, processing instruction, comments',
    '<a xmlns="urn:a"><![CDATA[ <x> & ]]><?pi data?><!--c--><b/></a>',
  ],
  ['entities', '<a>&lt;&gt;&amp;&quot;&apos;&#x1F600;</a>'],
  [
    'prefixes shadowed and xml:lang',
    '<a xml:lang="es" xmlns:p="urn:p" p:x="1" b="2"><p:b xmlns:p="urn:q" p:y="2"/></a>',
  ],
  ['default namespace undeclared', '<a xmlns="urn:a"><b xmlns=""><c/></b><d/></a>'],
  ['namespaced attributes sorted', '<r xmlns:z="urn:z" xmlns:a="urn:a"><e z:k="1" a:k="2" k="3" b="4"/></r>'],
];

const DOCUMENTS: Array<[string, () => string]> = [
  ...corpus.decided,
  ...corpus.leftToXmlCrypto.filter(([name]) => !/U\+2029/.test(name)),
  ...samples.map((f): [string, () => string] => [f, () => readFileSync(path.join(SAMPLES_DIR, f), 'utf8')]),
  ...SNIPPETS.map(([name, xml]): [string, () => string] => [name, () => xml]),
];

const elementChildren = (el: Element) =>
  Array.from(el.childNodes).filter((n) => n.nodeType === 1) as Element[];

/** Every element of both parses, side by side, with an XPath to it in the 0.8 one. */
function pairs(doc9: Document, doc8: Document): Array<[Element, Element, string]> {
  const out: Array<[Element, Element, string]> = [];
  const walk = (a: Element, b: Element, xpath: string) => {
    out.push([a, b, xpath]);
    const kidsA = elementChildren(a);
    const kidsB = elementChildren(b);
    expect(kidsB.map((k) => k.tagName)).toEqual(kidsA.map((k) => k.tagName));
    for (const [i, k] of kidsA.entries()) walk(k, kidsB[i]!, `${xpath}/*[${i + 1}]`);
  };
  walk(doc9.documentElement!, doc8.documentElement!, '/*[1]');
  return out;
}

/** Whether every element of the subtree is namespaced, or none is (the fast path's exclusive guard). */
function uniform(el: Element): boolean {
  const all = [el, ...Array.from(el.getElementsByTagName('*'))];
  return all.every((e) => !!e.namespaceURI) || all.every((e) => !e.namespaceURI);
}

describe('xml-crypto canonicalizers on xmldom 0.9 and 0.8 nodes', () => {
  it.each(DOCUMENTS)(
    'when %s is canonicalized at every element, then both parses give the same bytes',
    (_name, make) => {
      const xml = make();
      const parsed = parseXml(xml);
      if ('error' in parsed) throw new Error(parsed.error);
      const doc8 = new xmldom08.DOMParser().parseFromString(xml);
      for (const [e9, e8, xpath] of pairs(parsed.doc, doc8)) {
        const ancestors = ancestorNamespaces(e9);
        expect(ancestors).toEqual(findAncestorNs(doc8 as unknown as XNode, xpath));
        for (const Inclusive of [C14nCanonicalization, C14nCanonicalizationWithComments]) {
          const ours = new Inclusive().process(e9 as unknown as XNode, { ancestorNamespaces: ancestors });
          expect(ours).toBe(
            new Inclusive().process(e8 as unknown as XNode, { ancestorNamespaces: ancestors }),
          );
        }
        if (!uniform(e9)) continue;
        for (const Exclusive of [ExclusiveCanonicalization, ExclusiveCanonicalizationWithComments]) {
          expect(new Exclusive().process(e9 as unknown as XNode, {})).toBe(
            new Exclusive().process(e8 as unknown as XNode, {}),
          );
        }
      }
    },
  );

  it('when the guards of the fast path are not met, then the two parses do differ', () => {
    const differs = (xml: string, canonicalizer: C14nCanonicalization | ExclusiveCanonicalization) => {
      const parsed = parseXml(xml);
      if ('error' in parsed) throw new Error(parsed.error);
      const doc8 = new xmldom08.DOMParser().parseFromString(xml);
      return (
        canonicalizer.process(parsed.doc.documentElement as unknown as XNode, {}) !==
        canonicalizer.process(doc8.documentElement as unknown as XNode, {})
      );
    };
    // xmldom 0.9 reads U+2029 as a line end; exclusive C14N writes a null namespace as xmlns="" again.
    expect(differs('<a>x\u2029y</a>', new C14nCanonicalization())).toBe(true);
    expect(differs('<a xmlns="urn:a"><b xmlns=""><c/></b></a>', new ExclusiveCanonicalization())).toBe(true);
  });
});
