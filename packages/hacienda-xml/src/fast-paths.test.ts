// The speed-ups of the build path must be invisible: each fast path is compared with the slow
// computation it replaces, over generated inputs.
import fc from 'fast-check';
import { Dec, toFixedHalfUp } from './money';
import { escapeAttr, escapeText } from './xml-text';

// The regular-expression escaping every string went through before the plain-text fast path.
const cp = (n: number) => `\\u${n.toString(16).padStart(4, '0')}`;
const INVALID = new RegExp(
  `[${cp(0)}-${cp(8)}${cp(0x0b)}${cp(0x0c)}${cp(0x0e)}-${cp(0x1f)}${cp(0xfffe)}${cp(0xffff)}]|[${cp(0xd800)}-${cp(0xdbff)}](?![${cp(0xdc00)}-${cp(0xdfff)}])|(?<![${cp(0xd800)}-${cp(0xdbff)}])[${cp(0xdc00)}-${cp(0xdfff)}]`,
  'g',
);
const TEXT: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#xD;' };
const ATTR: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '"': '&quot;',
  '\t': '&#x9;',
  '\n': '&#xA;',
  '\r': '&#xD;',
};
const slowText = (v: string) => v.replace(INVALID, '').replace(/[&<>\r]/g, (c) => TEXT[c]!);
const slowAttr = (v: string) => v.replace(INVALID, '').replace(/[&<"\t\n\r]/g, (c) => ATTR[c]!);

const xmlish = fc.string({
  unit: fc.oneof(
    fc.constantFrom(
      '&',
      '<',
      '>',
      '"',
      '\t',
      '\n',
      '\r',
      '\u0000',
      '\u001f',
      '\ud800',
      '\udc00',
      '\ufffe',
      'ñ',
      '😀',
    ),
    fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 1 }),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  ),
});

describe('C14N escaping fast path', () => {
  it('when any string is escaped, then the result equals the regular-expression escaping', () => {
    fc.assert(
      fc.property(xmlish, (s) => {
        expect(escapeText(s)).toBe(slowText(s));
        expect(escapeAttr(s)).toBe(slowAttr(s));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('toFixedHalfUp', () => {
  const decimalText = fc.oneof(
    fc
      .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 25n }), fc.integer({ min: 0, max: 12 }))
      .map(([neg, digits, scale]) => {
        const s = digits.toString().padStart(scale + 1, '0');
        const text = scale === 0 ? s : `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
        return neg ? `-${text}` : text;
      }),
    fc.constantFrom('-0', '0', '1e21', '1e-8', '-0.000001', '0.000005', '-0.000005', '99999.999995'),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
  );
  it('when a decimal is formatted, then the result equals decimal.js toFixed half-up', () => {
    fc.assert(
      fc.property(decimalText, fc.integer({ min: 0, max: 10 }), (text, dp) => {
        const value = new Dec(text);
        expect(toFixedHalfUp(value, dp)).toBe(value.toFixed(dp, Dec.ROUND_HALF_UP));
      }),
      { numRuns: 3000 },
    );
  });
});
