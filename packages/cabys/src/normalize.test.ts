import { foldText, letterMask, maskWithinOneEdit, stemWord, tokenize, withinOneEdit } from './normalize';

describe('normalize', () => {
  it('when text has accents, ñ and capitals, then it folds to plain lower case', () => {
    expect(foldText('Café PIÑA Acetaminofén Pingüino')).toBe('cafe pina acetaminofen pinguino');
  });

  it('when a description has punctuation, then the words are split on it', () => {
    expect(tokenize("Limón 'tahitian', fresco o refrigerado (n.c.p.)")).toEqual([
      'limon',
      'tahitian',
      'fresco',
      'o',
      'refrigerado',
      'n',
      'c',
      'p',
    ]);
  });

  it.each([
    ['tomate', 'tomates'],
    ['limon', 'limones'],
    ['lapiz', 'lapices'],
    ['dulce', 'dulces'],
    ['cafe', 'cafes'],
    ['papel', 'papeles'],
    ['jugo', 'jugos'],
    ['arroz', 'arroces'],
  ])('when %s and %s are stemmed, then they meet', (singular, plural) => {
    expect(stemWord(singular)).toBe(stemWord(plural));
  });

  it('when a word is short, then it is kept (res, gas, mes)', () => {
    expect(['res', 'gas', 'mes'].map(stemWord)).toEqual(['res', 'gas', 'mes']);
  });

  it.each([
    ['cerveza', 'cervza', true], // deletion
    ['cerveza', 'cerveeza', true], // insertion
    ['cerveza', 'cervesa', true], // substitution
    ['cerveza', 'cevreza', true], // swap of neighbours
    ['cerveza', 'cerveza', true],
    ['cerveza', 'cervsa', false], // two edits
    ['cerveza', 'crevesa', false],
    ['abc', 'abcde', false],
  ])('when %s is compared with %s, then one edit apart is %s', (a, b, expected) => {
    expect(withinOneEdit(a, b)).toBe(expected);
    expect(withinOneEdit(b, a)).toBe(expected);
  });

  // Every word one edit away from each of these: substitutions, insertions and deletions at every position
  // (with letters and digits), and every swap of neighbours.
  const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const oneEditAway = (word: string): string[] => {
    const out: string[] = [];
    for (let i = 0; i <= word.length; i++) {
      for (const c of ALPHABET) {
        out.push(word.slice(0, i) + c + word.slice(i)); // insertion
        if (i < word.length) out.push(word.slice(0, i) + c + word.slice(i + 1)); // substitution
      }
      if (i < word.length) out.push(word.slice(0, i) + word.slice(i + 1)); // deletion
      if (i + 1 < word.length) out.push(word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2)); // swap
    }
    return out;
  };

  it.each(['cerveza', 'contabilidad', 'aaaa', 'x9z', 'paracetamol500'])(
    'when a word is one edit from %s, then its letter mask does not rule it out',
    (word) => {
      const variants = oneEditAway(word);
      expect(variants.every((v) => withinOneEdit(word, v))).toBe(true);
      const ruledOut = variants.filter((v) => !maskWithinOneEdit(letterMask(word), letterMask(v)));
      expect(ruledOut).toEqual([]);
    },
  );

  it.each([
    ['cerveza', 'tomates'],
    ['contabilidad', 'computadora'],
    ['leche', 'arroz'],
  ])('when %s and %s differ in more than two letters, then their masks rule them out', (a, b) => {
    expect(maskWithinOneEdit(letterMask(a), letterMask(b))).toBe(false);
  });
});
