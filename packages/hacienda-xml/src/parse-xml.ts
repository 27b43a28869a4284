// The one strict XML parser of the engine (xmldom 0.9), with xmldom's per-end-tag RegExp kept between
// tags. Every parse of a comprobante, a MensajeHacienda or a received document goes through here.
import { createRequire } from 'node:module';
import { DOMParser, type Document } from '@xmldom/xmldom';

type Reg = (this: unknown, ...parts: Array<RegExp | string>) => RegExp;

interface XmldomGrammar {
  reg: Reg;
}

/** Distinct expressions kept. sax.js combines two for end tags and about ten for DOCTYPE parts, all from the
 *  grammar's constants, so the bound is not reached; it only stops growth should that ever change. */
const MAX_KEPT = 32;

/**
 * xmldom 0.9 (sax.js) rebuilds `reg('^', QName_group, S_OPT, '$')` for every end tag it reads: it joins the
 * sources of the grammar's RegExps (a few KB of Unicode classes) and compiles the result again, which is
 * half the time of parsing a signed comprobante (0.58 → 0.30 ms for a 9 KB invoice). The parts are the
 * grammar's own RegExp objects and literal strings, so the same parts always give the same expression; this
 * wraps the grammar's exported `reg` (the one sax.js calls through its module object) so that each
 * combination is built once. Only expressions without the `g` or `y` flag are kept: those keep no state
 * between `exec` calls, so one object serves every parse. Returns false when xmldom's layout is not the one
 * this was written for (nothing is changed then; parsing is as correct, only slower).
 */
export function keepXmldomEndTagExpressions(grammar: XmldomGrammar): boolean {
  const original = grammar.reg;
  if (typeof original !== 'function') return false;
  if ((original as Reg & { kept?: true }).kept) return true;
  const kept: Array<{ parts: Array<RegExp | string>; expression: RegExp }> = [];
  const reg: Reg & { kept?: true } = function (this: unknown, ...parts) {
    search: for (const entry of kept) {
      if (entry.parts.length !== parts.length) continue;
      for (let i = 0; i < parts.length; i += 1) if (entry.parts[i] !== parts[i]) continue search;
      return entry.expression;
    }
    const expression = original.apply(this, parts);
    if (kept.length < MAX_KEPT && !expression.global && !expression.sticky) kept.push({ parts, expression });
    return expression;
  };
  reg.kept = true;
  grammar.reg = reg;
  return true;
}

// The grammar module of the very xmldom this file imports (resolved from its entry point), which is the
// module object sax.js reads `reg` from.
try {
  keepXmldomEndTagExpressions(createRequire(require.resolve('@xmldom/xmldom'))('./grammar') as XmldomGrammar);
} catch {
  // No lib/grammar.js (not xmldom 0.9's layout): parsing stays as it is.
}

/** Parses XML strictly; returns the document or the parser's complaint. */
/** A parsed document, as parseXml gives it (for callers that pass one parse to several readers). */
export type ParsedXmlDocument = Document;

export function parseXml(xml: string): { doc: Document } | { error: string } {
  const errors: string[] = [];
  try {
    const doc = new DOMParser({
      onError: (level, message) => {
        if (level !== 'warning') errors.push(message);
      },
    }).parseFromString(xml, 'text/xml');
    if (errors.length > 0 || !doc.documentElement) return { error: errors[0] ?? 'no root element' };
    return { doc };
  } catch (err) {
    return { error: (err as Error).message };
  }
}
