// The CABYS relevance table: queries a user would type, against the real catalogue (HACIENDA_DATA_DIR), with
// the results they would expect on top.
import { join } from 'node:path';
import { haciendaDataDir, hasFile, requireResource } from '@cr/testkit';
import { type CabysIndex, type CabysItem, foldText, loadCabysCatalogue, stemWord, tokenize } from '../src';

const catalogue = join(haciendaDataDir(), 'cabys.json');
const present = requireResource(`CABYS catalogue ${catalogue}`, hasFile(catalogue));
const suite = present ? describe : describe.skip;

let index: CabysIndex;
const codes = (items: CabysItem[]) => items.map((i) => i.codigo);
const top = (query: string, k = 10) => index.search(query, { limit: k });
const words = (item: CabysItem) => tokenize(item.descripcion);

suite('CABYS relevance against the real catalogue', () => {
  beforeAll(async () => {
    const loaded = await loadCabysCatalogue({ dirs: [haciendaDataDir()] });
    if (!loaded) throw new Error('catalogue not loaded');
    index = loaded.index;
    expect(loaded.count).toBeGreaterThan(20_000);
  });

  // [query, code expected first]
  const firstHits: Array<[string, string, string]> = [
    ['cafe molido', '2391102010200', 'multi-word, accent-free'],
    ['café tostado molido', '2391102010200', 'three words'],
    ['Jugo de tomate concentrado', '2132100000100', 'full description'],
    ['jugo tomate', '2132100000200', 'multi-word without the stop word, shorter wins the tie'],
    ['jugo de tomate', '2132100000200', 'stop word ignored'],
    ['servicios de contabilidad', '8222200000000', 'service'],
    ['contabilidad servicios', '8222200000000', 'word order does not matter'],
    ['servicios juridicos', '8221000000000', 'accent-free jurídicos'],
    ['taxi', '6411500000000', 'exact word beats the prefix of taxímetros'],
    ['paracetamol', '3563502020301', 'medicine'],
    ['acetaminofen', '3563502010159', 'accent-free acetaminofén'],
    ['harina de trigo', '2311000000100', 'the plain product before things made of it'],
    ['gasolina super', '3331100010000', 'accent-free súper'],
    ['pollo entero', '2114100010000', 'two words'],
    ['huevos de gallina', '0231200000000', 'plural query'],
    ['corte de cabello', '9721000000300', 'service with stop word'],
    ['cervza', '2431000000000', 'one deleted letter'],
    ['cervesa', '2431000000000', 'one wrong letter'],
    ['mantequila', '2224100000100', 'one missing letter in a long word'],
    ['mantequ', '2224100000100', 'word prefix while typing'],
    ['yogurt', '2223001000200', 'exact'],
    ['telefono celular', '4722200990000', 'accent-free teléfono, plural folded'],
  ];
  it.each(firstHits)('when searching "%s", then %s comes first (%s)', (query, code) => {
    expect(codes(top(query))[0]).toBe(code);
  });

  it('when searching "cafe", "Café" and "CAFÉ", then the results are the same and every top one is a Café', () => {
    const plain = top('cafe', 20);
    expect(top('Café', 20)).toEqual(plain);
    expect(top('CAFÉ', 20)).toEqual(plain);
    for (const item of plain.slice(0, 10)) expect(words(item)[0]).toBe('cafe');
  });

  it('when searching a plural or its singular, then the top results are the same', () => {
    for (const [a, b] of [
      ['tomate', 'tomates'],
      ['limon', 'limones'],
      ['naranja', 'naranjas'],
      ['lapiz', 'lápices'],
      ['chocolate', 'chocolates'],
      ['banano', 'bananos'],
    ] as const) {
      expect(codes(top(a, 5))).toEqual(codes(top(b, 5)));
    }
  });

  it('when searching "limones", then fresh lemons (singular in the catalogue) are among the top five', () => {
    expect(codes(top('limones', 5))).toContain('0132200000100'); // Limón dulce, fresco o refrigerado
  });

  it('when searching "lápices" or "lapiz", then "Lápices, n.c.p." is in the top three', () => {
    expect(codes(top('lápices', 3))).toContain('3891104009900');
    expect(codes(top('lapiz', 3))).toContain('3891104009900');
  });

  it('when searching "pina" without the ñ, then piña comes up', () => {
    const results = top('pina', 5);
    expect(results.length).toBe(5);
    for (const item of results) expect(foldText(item.descripcion)).toMatch(/\bpinas?\b/);
  });

  it('when searching "tomte" (one letter missing), then tomatoes come first', () => {
    for (const item of top('tomte', 5)) expect(words(item)[0]).toBe('tomate');
  });

  it('when searching "agua embotellada", then bottled water without flavour is in the top three', () => {
    expect(codes(top('agua embotellada', 3))).toContain('2441099000000');
  });

  it('when searching a prefix "choco", then chocolates come first', () => {
    for (const item of top('choco', 5)) expect(words(item)[0]).toBe('chocolate');
  });

  it('when an exact word exists, then it ranks above prefix matches ("pan" before "pantalón")', () => {
    const results = top('pan', 15);
    for (const item of results) expect(words(item).map(stemWord)).toContain('pan'); // pan or panes
  });

  it('when a word is exact, then it beats the same letters inside another word ("cafeina" before "descafeinado")', () => {
    const list = codes(top('cafeina', 10));
    expect(list[0]).toBe('3563506020201'); // Cafeína
    expect(list.indexOf('3563502030152')).toBeLessThan(list.indexOf('2391102020000')); // con cafeína < descafeinado
  });

  it('when a query has two words, then entries matching both come before entries matching one', () => {
    const results = top('jugo tomate', 10);
    expect(codes(results.slice(0, 2)).sort()).toEqual(['2132100000100', '2132100000200']);
    for (const item of results.slice(2)) expect(words(item)).not.toContain('tomate');
  });

  it('when matches are equally good, then the shorter description wins', () => {
    const results = top('jugo tomate', 2);
    expect(results.map((r) => r.descripcion)).toEqual([
      'Jugo de tomate natural',
      'Jugo de tomate concentrado',
    ]);
  });

  it('when searching an exact 13-digit code, then that code alone is returned with its tax as a percentage', () => {
    expect(top('2132100000100')).toEqual([
      { codigo: '2132100000100', descripcion: 'Jugo de tomate concentrado', impuesto: 13 },
    ]);
    expect(top(' 2132100000100 ')).toHaveLength(1);
    expect(top('0161001010000')).toEqual([
      { codigo: '0161001010000', descripcion: 'Café cereza, orgánico', impuesto: 1 },
    ]);
  });

  it('when searching a code that does not exist, then nothing is returned', () => {
    expect(top('9999999999999')).toEqual([]);
  });

  it('when searching the first digits of a code, then codes of that category come in code order', () => {
    const results = top('2391', 50);
    expect(results.length).toBeGreaterThan(5);
    for (const item of results) expect(item.codigo.startsWith('2391')).toBe(true);
    expect(codes(results)).toEqual([...codes(results)].sort());
  });

  it('when tax rates are read, then they are whole percentages among the CABYS rates', () => {
    const rates = new Set(index.entries().map((e) => e.impuesto));
    expect([...rates].sort((a, b) => a - b)).toEqual([0, 1, 2, 4, 13]);
  });

  it('when the limit is left out, too high or too low, then 50, 200 and 1 are used', () => {
    expect(index.search('servicios')).toHaveLength(50);
    expect(index.search('servicios', { limit: 10_000 })).toHaveLength(200);
    expect(index.search('servicios', { limit: 0 })).toHaveLength(1);
    expect(index.search('servicios', { limit: 7 })).toHaveLength(7);
  });

  it('when the query is empty, punctuation, huge or not a string, then the answer is an empty list or results, never an error', () => {
    const odd: unknown[] = [
      '',
      '   ',
      '!!!',
      '%_\\',
      'ñ'.repeat(5000),
      '\u0000',
      '😀',
      null,
      undefined,
      42,
      {},
      [],
    ];
    for (const q of odd) expect(Array.isArray(index.search(q))).toBe(true);
    expect(index.search('')).toEqual([]);
    expect(index.search(42)).toEqual([]);
    expect(index.search('a '.repeat(500)).length).toBeGreaterThan(0);
  });

  it('when a result list is returned, then every item has exactly codigo, descripcion and impuesto', () => {
    for (const item of top('leche', 20)) {
      expect(Object.keys(item).sort()).toEqual(['codigo', 'descripcion', 'impuesto']);
      expect(item.codigo).toMatch(/^\d{13}$/);
      expect(typeof item.impuesto).toBe('number');
    }
  });
});
