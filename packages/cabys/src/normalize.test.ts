import { foldText, stemWord, tokenize, withinOneEdit } from './normalize';

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
});
