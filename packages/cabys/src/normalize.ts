// Text normalisation shared by the index and the queries: accent- and case-folding, tokenising, a light
// Spanish singular/plural folding and a bounded edit distance. Both sides go through the same functions, so
// "Café" / "cafes" / "CAFE" meet on one form.

/** Words too common in CABYS descriptions to carry meaning in a query ("jugo de tomate" = "jugo tomate"). */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  'a',
  'al',
  'de',
  'del',
  'e',
  'el',
  'en',
  'la',
  'las',
  'lo',
  'los',
  'o',
  'para',
  'por',
  'u',
  'un',
  'una',
  'y',
]);

const COMBINING_MARKS = /[\u0300-\u036f]/g;
const NON_WORD = /[^a-z0-9]+/;

/** Lower case without accents; ñ becomes n and ü becomes u, as users type them on any keyboard. */
export function foldText(text: string): string {
  return text.normalize('NFD').replace(COMBINING_MARKS, '').toLowerCase();
}

/** Folded words of a text, in order; punctuation separates words. */
export function tokenize(text: string): string[] {
  return foldText(text)
    .split(NON_WORD)
    .filter((w) => w.length > 0);
}

/**
 * Folds Spanish singular and plural onto one key: drops a final "es", "s" or "e" and writes a final z as c,
 * so tomate/tomates → tomat, limón/limones → limon, lápiz/lápices → lapic, dulce/dulces → dulc.
 * Short words (≤ 3 letters: res, gas, mes) are left alone apart from z → c (pez/peces → pec).
 */
export function stemWord(word: string): string {
  let w = word;
  if (w.length > 3 && !/^[0-9]+$/.test(w)) {
    if (w.length > 4 && w.endsWith('es')) w = w.slice(0, -2);
    else if (w.endsWith('s') || w.endsWith('e')) w = w.slice(0, -1);
  }
  if (w.endsWith('z')) w = `${w.slice(0, -1)}c`;
  return w;
}

/**
 * Whether a and b are at most one edit apart (insertion, deletion, substitution or a swap of two neighbours:
 * the Damerau–Levenshtein distance ≤ 1). Linear time, no allocation.
 */
export function withinOneEdit(a: string, b: string): boolean {
  const la = a.length;
  const lb = b.length;
  if (la - lb > 1 || lb - la > 1) return false;
  let i = 0;
  while (i < la && i < lb && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === la && i === lb) return true;
  if (la === lb) {
    // substitution at i: the rest is equal
    if (sameFrom(a, i + 1, b, i + 1)) return true;
    // or a swap of i and i+1
    return (
      i + 1 < la &&
      a.charCodeAt(i) === b.charCodeAt(i + 1) &&
      a.charCodeAt(i + 1) === b.charCodeAt(i) &&
      sameFrom(a, i + 2, b, i + 2)
    );
  }
  // one insertion/deletion at i
  return la > lb ? sameFrom(a, i + 1, b, i) : sameFrom(a, i, b, i + 1);
}

/**
 * Which letters a word holds, one bit per letter (a–z get bits of their own; digits share bits with letters):
 * two words one edit apart differ in at most two of these bits (`maskWithinOneEdit`), so a scan for typos
 * rules most words out with one comparison instead of `withinOneEdit`'s character loop.
 */
export function letterMask(word: string): number {
  let mask = 0;
  for (let i = 0; i < word.length; i++) mask |= 1 << (word.charCodeAt(i) & 31);
  return mask;
}

/**
 * False only when two words' letter masks prove them more than one edit apart. A substitution removes at most
 * one letter's bit and adds one, an insertion or deletion changes one bit, a swap none; true for words that
 * are further apart is left to `withinOneEdit`.
 */
export function maskWithinOneEdit(a: number, b: number): boolean {
  let x = a ^ b;
  x &= x - 1; // clear the lowest differing bit, twice: whatever is left is a third
  x &= x - 1;
  return x === 0;
}

/** a from i and b from j are the same to their ends (their remaining lengths are equal by construction). */
function sameFrom(a: string, i: number, b: string, j: number): boolean {
  if (a.length - i !== b.length - j) return false;
  for (; i < a.length; i++, j++) if (a.charCodeAt(i) !== b.charCodeAt(j)) return false;
  return true;
}
