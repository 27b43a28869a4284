// The packed catalogue gives back exactly what it was given: codes with their leading zeros, descriptions with
// characters beyond Latin-1 (kept apart from the one-byte text), taxes, and categories absent or empty as
// given; prefixes and lookups find the right positions at the edges of the code range.
import { type CabysEntry, PackedCabys } from '../src';

const ENTRIES: CabysEntry[] = [
  { codigo: '9999999999999', descripcion: 'Último código posible', impuesto: 13 },
  { codigo: '0000000000001', descripcion: 'Código con ceros – y una raya', impuesto: 0 },
  {
    codigo: '2391102010200',
    descripcion: 'Café\u200b tostado molido',
    impuesto: 1,
    categorias: ['Alimentos', 'Café'],
  },
  { codigo: '2391102010100', descripcion: 'Café tostado sin moler', impuesto: 1, categorias: [] },
  { codigo: '2391102010100', descripcion: 'Repetido: el primero dado se queda', impuesto: 4 },
  {
    codigo: '8222200000000',
    descripcion: 'Servicios de contabilidad, n.c.p.',
    impuesto: 2,
    categorias: ['Alimentos'],
  },
];

describe('PackedCabys', () => {
  const packed = PackedCabys.of(ENTRIES);

  it('when entries are packed, then each comes back as given, in code order, the first of a repeated code kept', () => {
    expect(packed.size).toBe(5);
    expect(Array.from({ length: packed.size }, (_, i) => packed.entryAt(i))).toEqual([
      ENTRIES[1],
      ENTRIES[3],
      ENTRIES[2],
      ENTRIES[5],
      ENTRIES[0],
    ]);
    expect(packed.itemAt(2)).toEqual({
      codigo: '2391102010200',
      descripcion: 'Café\u200b tostado molido',
      impuesto: 1,
    });
    expect('categorias' in packed.entryAt(0)).toBe(false);
  });

  it('when a code is looked up, then its position comes back; anything but a known 13-digit code gives -1', () => {
    expect(packed.indexOf('0000000000001')).toBe(0);
    expect(packed.indexOf('9999999999999')).toBe(4);
    expect(packed.indexOf('2391102010100')).toBe(1);
    for (const code of ['1', '0000000000000', '239110201010', '23911020101000', '2391102010100 ', 42]) {
      expect(packed.indexOf(code as string)).toBe(-1);
    }
  });

  it('when codes are asked by prefix, then the range holds exactly the codes that start with it', () => {
    expect(packed.prefixRange('2391')).toEqual([1, 3]);
    expect(packed.prefixRange('23911020102')).toEqual([2, 3]);
    expect(packed.prefixRange('0')).toEqual([0, 1]);
    expect(packed.prefixRange('9999')).toEqual([4, 5]);
    expect(packed.prefixRange('5')).toEqual([3, 3]);
    expect(packed.prefixRange('9999999999999')).toEqual([4, 5]);
  });

  it('when an entry has a code that is not 13 digits, then packing refuses it by name', () => {
    for (const codigo of ['239110201020', '23911020102000', '239110201020x', ' 391102010200']) {
      expect(() => PackedCabys.of([{ codigo, descripcion: 'x', impuesto: 13 }])).toThrow(
        `CABYS code ${codigo}: 13 digits expected`,
      );
    }
  });

  it('when an empty catalogue is packed, then nothing is found', () => {
    const empty = PackedCabys.of([]);
    expect(empty.size).toBe(0);
    expect(empty.indexOf('2391102010100')).toBe(-1);
    expect(empty.prefixRange('2391')).toEqual([0, 0]);
  });
});
