// parseXml keeps xmldom's end-tag expressions between tags (parse-xml.ts). What it parses must not change:
// every document and every malformed input gives, through it, what a fresh xmldom whose grammar was left
// alone gives — the same serialization, or the same complaint.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { keepXmldomEndTagExpressions, parseXml } from './parse-xml';
import { openP12 } from './signing-key';
import { signatureCorpus } from './testing/signature-corpus';
import { makeTestP12 } from './testing/test-certificate';
import { SAMPLES_DIR, checkTools } from './testing/tools';

interface Xmldom {
  DOMParser: new (options?: {
    onError?: (level: string, message: string) => void;
  }) => { parseFromString(xml: string, mime: string): { documentElement: unknown } };
  XMLSerializer: new () => { serializeToString(node: unknown): string };
}

type Reg = (...parts: Array<RegExp | string>) => RegExp;

/** A second xmldom, loaded in a module registry of its own, whose grammar parse-xml.ts never touched. */
function untouchedXmldom(): { xmldom: Xmldom; grammar: { reg: Reg } } {
  let loaded: { xmldom: Xmldom; grammar: { reg: Reg } } | undefined;
  jest.isolateModules(() => {
    loaded = {
      xmldom: require('@xmldom/xmldom') as Xmldom,
      grammar: require('@xmldom/xmldom/lib/grammar') as { reg: Reg },
    };
  });
  return loaded as { xmldom: Xmldom; grammar: { reg: Reg } };
}

const ours = require('@xmldom/xmldom') as Xmldom;
const grammar = require('@xmldom/xmldom/lib/grammar') as { reg: Reg; QName_group: RegExp; S_OPT: RegExp };
const untouched = untouchedXmldom();

function parseUntouched(xml: string): { xml: string } | { error: string } {
  const errors: string[] = [];
  try {
    const doc = new untouched.xmldom.DOMParser({
      onError: (level, message) => {
        if (level !== 'warning') errors.push(message);
      },
    }).parseFromString(xml, 'text/xml');
    if (errors.length > 0 || !doc.documentElement) return { error: errors[0] ?? 'no root element' };
    return { xml: new untouched.xmldom.XMLSerializer().serializeToString(doc) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

function parseOurs(xml: string): { xml: string } | { error: string } {
  const parsed = parseXml(xml);
  return 'error' in parsed ? parsed : { xml: new ours.XMLSerializer().serializeToString(parsed.doc) };
}

const key = openP12(makeTestP12().p12, '1234');
const corpus = signatureCorpus(key, new Date('2026-05-26T18:31:00Z'));
const samples = checkTools([], true).ok ? readdirSync(SAMPLES_DIR).filter((f) => f.endsWith('.xml')) : [];

const MALFORMED: Array<[string, string]> = [
  ['an end tag with a space inside its name', '<a><b></b c></a>'],
  ['an end tag followed by a line break and text', '<a><b></b\nc></a>'],
  ['an end tag with trailing blanks', '<a><b></b  ></a>'],
  ['an end tag of another element', '<a><b></c></a>'],
  ['an end tag without a name', '<a></>'],
  ['an end tag that never closes', '<a></a'],
  ['a prefixed end tag', '<p:a xmlns:p="urn:x"><p:b></p:b></p:a >'],
  ['a name with non-ASCII letters', '<ñandú><café>x</café></ñandú>'],
  ['a name starting with a digit', '<a><1b></1b></a>'],
];

describe('parseXml with the end-tag expressions kept', () => {
  it('is installed on the xmldom this package parses with: the same parts give the same expression', () => {
    const strict = () => grammar.reg('^', grammar.QName_group, grammar.S_OPT, '$');
    expect(strict()).toBe(strict());
    // The fresh copy still builds a new one each time: the difference is the kept expressions alone.
    const { reg } = untouched.grammar;
    expect(reg('^', grammar.QName_group)).not.toBe(reg('^', grammar.QName_group));
  });

  it.each([...corpus.decided, ...corpus.leftToXmlCrypto])('parses %s as xmldom does', (_name, make) => {
    const xml = make();
    const result = parseOurs(xml);
    expect('xml' in result).toBe(true);
    expect(result).toEqual(parseUntouched(xml));
  });

  (samples.length ? it.each(samples) : it.skip.each(['(no samples)']))(
    'parses the accepted sample %s as xmldom does',
    (file) => {
      const xml = readFileSync(path.join(SAMPLES_DIR, file), 'utf8');
      expect(parseOurs(xml)).toEqual(parseUntouched(xml));
    },
  );

  it.each(MALFORMED)('answers %s as xmldom does', (_name, xml) => {
    expect(parseOurs(xml)).toEqual(parseUntouched(xml));
  });

  it('refuses a malformed end tag with xmldom’s own complaint', () => {
    expect(parseXml('<a><b></b c></a>')).toEqual({
      error: expect.stringContaining('end tag name contains invalid characters'),
    });
  });
});

describe('keepXmldomEndTagExpressions', () => {
  function countingGrammar() {
    const built: RegExp[] = [];
    const grammar = {
      reg(...parts: Array<RegExp | string>): RegExp {
        const flags = parts.includes('g') ? 'g' : '';
        const expression = new RegExp(
          parts.map((p) => (typeof p === 'string' ? (p === 'g' ? '' : p) : p.source)).join(''),
          flags,
        );
        built.push(expression);
        return expression;
      },
    };
    return { grammar, built };
  }

  it('builds each combination of parts once, and tells different parts apart', () => {
    const { grammar, built } = countingGrammar();
    expect(keepXmldomEndTagExpressions(grammar)).toBe(true);
    const name = /[a-z]+/;
    const first = grammar.reg('^', name, '$');
    expect(grammar.reg('^', name, '$')).toBe(first);
    expect(grammar.reg('^', name)).not.toBe(first);
    expect(grammar.reg('^', /[a-z]+/, '$')).not.toBe(first);
    expect(built).toHaveLength(3);
  });

  it('does not keep a global expression, whose lastIndex is state', () => {
    const { grammar, built } = countingGrammar();
    keepXmldomEndTagExpressions(grammar);
    const name = /[a-z]+/;
    expect(grammar.reg(name, 'g')).not.toBe(grammar.reg(name, 'g'));
    expect(built).toHaveLength(2);
  });

  it('keeps a bounded number of expressions, then builds the rest each time', () => {
    const { grammar, built } = countingGrammar();
    keepXmldomEndTagExpressions(grammar);
    const parts = Array.from({ length: 40 }, (_, i) => new RegExp(`x${i}`));
    for (const p of parts) grammar.reg(p);
    for (const p of parts) grammar.reg(p);
    expect(built).toHaveLength(40 + 8);
  });

  it('is installed once however often it is asked, and leaves a grammar without reg alone', () => {
    const { grammar, built } = countingGrammar();
    keepXmldomEndTagExpressions(grammar);
    const installed = grammar.reg;
    expect(keepXmldomEndTagExpressions(grammar)).toBe(true);
    expect(grammar.reg).toBe(installed);
    grammar.reg(/a/);
    grammar.reg(/a/);
    expect(built).toHaveLength(2);
    expect(keepXmldomEndTagExpressions({} as { reg: Reg })).toBe(false);
  });
});
