// Text escaping that yields canonical (C14N) output directly: the builders write XML that is already in
// canonical form, which lets the signer digest it without re-parsing (see docs/decisions/0004).

// Characters XML 1.0 cannot carry at all (C0 controls other than tab/LF/CR, U+FFFE/U+FFFF, lone
// surrogates); they are dropped rather than producing an unparseable document. Built from code points so
// the source stays free of control characters.
const cp = (n: number) => `\\u${n.toString(16).padStart(4, '0')}`;
const INVALID_XML_CHARS = new RegExp(
  `[${cp(0)}-${cp(8)}${cp(0x0b)}${cp(0x0c)}${cp(0x0e)}-${cp(0x1f)}${cp(0xfffe)}${cp(0xffff)}]|[${cp(0xd800)}-${cp(0xdbff)}](?![${cp(0xdc00)}-${cp(0xdfff)}])|(?<![${cp(0xd800)}-${cp(0xdbff)}])[${cp(0xdc00)}-${cp(0xdfff)}]`,
  'g',
);
const TEXT_SPECIALS = /[&<>\r]/g;
const ATTR_SPECIALS = /[&<"\t\n\r]/g;
const TEXT_MAP: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#xD;' };
const ATTR_MAP: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '"': '&quot;',
  '\t': '&#x9;',
  '\n': '&#xA;',
  '\r': '&#xD;',
};

/**
 * Whether `value` has nothing to escape or drop: no control character, `&`, `<`, `>`, `"`, surrogate or
 * U+FFFE/U+FFFF. A plain loop over char codes is several times cheaper than the two regular expressions
 * and is the common case (names, codes, descriptions), so those return the value untouched.
 */
function isPlain(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (
      c < 0x20 ||
      c === 0x26 ||
      c === 0x3c ||
      c === 0x3e ||
      c === 0x22 ||
      (c >= 0xd800 && (c <= 0xdfff || c >= 0xfffe))
    )
      return false;
  }
  return true;
}

/** Escapes character data exactly as inclusive C14N serializes it. */
export function escapeText(value: string): string {
  if (isPlain(value)) return value;
  return value.replace(INVALID_XML_CHARS, '').replace(TEXT_SPECIALS, (c) => TEXT_MAP[c]!);
}

/** Escapes an attribute value exactly as inclusive C14N serializes it. */
export function escapeAttr(value: string): string {
  if (isPlain(value)) return value;
  return value.replace(INVALID_XML_CHARS, '').replace(ATTR_SPECIALS, (c) => ATTR_MAP[c]!);
}

/** `<name>text</name>` with the text escaped. */
export function el(name: string, text: string): string {
  return `<${name}>${escapeText(text)}</${name}>`;
}

/** `el` when the value is present, else nothing. */
export function opt(name: string, text: string | undefined | null): string {
  return text === undefined || text === null ? '' : el(name, text);
}
