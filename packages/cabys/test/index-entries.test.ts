// What the index keeps of the entries it is given, on a small catalogue of its own: one entry per code (the
// first given), lookups and `has` by exact code, and search results without the categories an xlsx import
// carries.
import { type CabysEntry, createCabysIndex } from '../src';

const entry = (codigo: string, descripcion: string, impuesto = 13, categorias?: string[]): CabysEntry => ({
  codigo,
  descripcion,
  impuesto,
  ...(categorias ? { categorias } : {}),
});

const CATALOGUE: CabysEntry[] = [
  entry('2391102010200', 'Café tostado molido', 1, ['Productos alimenticios', 'Café']),
  entry('0111100000100', 'Trigo duro, para siembra (semillas)', 1),
  entry('2391102010200', 'Café repetido, el segundo dado', 13),
  entry('8222200000000', 'Servicios de contabilidad'),
  entry('2391102010100', 'Café tostado sin moler', 1, ['Productos alimenticios', 'Café']),
];

describe('createCabysIndex on its own entries', () => {
  const index = createCabysIndex(CATALOGUE);

  it('when a code is given twice, then the first entry given is kept and the entries are in code order', () => {
    expect(index.size).toBe(4);
    expect(index.entries().map((e) => e.codigo)).toEqual([
      '0111100000100',
      '2391102010100',
      '2391102010200',
      '8222200000000',
    ]);
    expect(index.lookup('2391102010200')?.descripcion).toBe('Café tostado molido');
  });

  it('when a code is looked up, then the entry comes back with its categories; an unknown code or a non-string gives undefined', () => {
    expect(index.lookup('2391102010100')).toEqual(CATALOGUE[4]);
    expect(index.lookup('0111100000100')).toEqual(CATALOGUE[1]);
    expect(index.lookup('0000000000000')).toBeUndefined();
    expect(index.lookup('9999999999999')).toBeUndefined();
    expect(index.lookup('')).toBeUndefined();
    expect(index.lookup(42 as unknown as string)).toBeUndefined();
  });

  it('when asked whether it has a code, then only an exact 13-digit code of the catalogue is true', () => {
    expect(index.has('2391102010100')).toBe(true);
    expect(index.has('0111100000100')).toBe(true);
    expect(index.has('2391102010300')).toBe(false);
    expect(index.has('111100000100')).toBe(false); // the same number without its leading zero
    expect(index.has('0111100000100 ')).toBe(false);
    expect(index.has('')).toBe(false);
    expect(index.has(42 as unknown as string)).toBe(false);
  });

  it('when searching words, a code or a code prefix, then each item has exactly codigo, descripcion and impuesto', () => {
    const cafe = index.search('cafe tostado');
    expect(cafe.map((i) => i.codigo)).toEqual(['2391102010200', '2391102010100']);
    expect(index.search('2391102010200')).toEqual([
      { codigo: '2391102010200', descripcion: 'Café tostado molido', impuesto: 1 },
    ]);
    expect(index.search('23911').map((i) => i.codigo)).toEqual(['2391102010100', '2391102010200']);
    for (const item of [...cafe, ...index.search('contabilidad'), ...index.search('trigo')]) {
      expect(Object.keys(item).sort()).toEqual(['codigo', 'descripcion', 'impuesto']);
    }
  });

  it('when a word is found only inside another, by a typo or by its stem, then its entries are still found', () => {
    expect(index.search('contab').map((i) => i.codigo)).toEqual(['8222200000000']); // prefix
    expect(index.search('emilla').map((i) => i.codigo)).toEqual(['0111100000100']); // inside "semillas"
    expect(index.search('contavilidad').map((i) => i.codigo)).toEqual(['8222200000000']); // one typo
    expect(index.search('semilla').map((i) => i.codigo)).toEqual(['0111100000100']); // singular of semillas
    expect(index.search('xyzzy')).toEqual([]);
  });
});
