// Text escaping that yields canonical (C14N) output directly: the builders write XML that is already in
// canonical form, which lets the signer digest it without re-parsing (see docs/decisions/0004).

// Characters XML 1.0 cannot carry at all; they are dropped rather than producing an unparseable document.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly the characters to remove
const INVALID_XML_CHARS =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
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

/** Escapes character data exactly as inclusive C14N serializes it. */
export function escapeText(value: string): string {
  return value.replace(INVALID_XML_CHARS, '').replace(TEXT_SPECIALS, (c) => TEXT_MAP[c]!);
}

/** Escapes an attribute value exactly as inclusive C14N serializes it. */
export function escapeAttr(value: string): string {
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
