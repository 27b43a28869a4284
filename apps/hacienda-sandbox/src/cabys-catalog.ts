// The CABYS catalogue answered by /fe/cabys and used by the verdict: the community catalogue file from
// HACIENDA_DATA_DIR (cabys.json, kept out of the repo) when present, plus a few built-in entries so a bare
// start answers something. The file has no category levels, so `categorias` is empty for its entries.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CabysItem, PackedCabys } from '@cr/cabys';

export interface CabysEntry {
  codigo: string;
  descripcion: string;
  /** Usual IVA rate as an integer percentage (13, 4, 2, 1, 0). */
  impuesto: number;
  categorias: string[];
}

const BUILT_IN: CabysItem[] = [
  { codigo: '2132100000100', descripcion: 'Jugo de tomate concentrado', impuesto: 13 },
  {
    codigo: '8314300000000',
    descripcion: 'Servicios de diseño y desarrollo de redes y sistemas informáticos, n.c.p.',
    impuesto: 13,
  },
  {
    codigo: '8111100000000',
    descripcion: 'Servicios de investigación y desarrollo experimental en ciencias físicas',
    impuesto: 13,
  },
  { codigo: '9311000000000', descripcion: 'Servicios de hospital', impuesto: 4 },
  {
    codigo: '0111100000100',
    descripcion: 'Trigo duro, para siembra (semillas)',
    impuesto: 1,
  },
];

export class CabysCatalog {
  /** The entries packed in code order (issue 15: as objects in a Map, the 20,000 codes held ~5 MB). */
  private readonly entries: PackedCabys;
  /** True when a full catalogue file was loaded, so "not in the catalogue" is a real finding. */
  readonly complete: boolean;

  /** Of equal codes, the first given is kept. */
  constructor(entries: readonly CabysItem[], complete: boolean) {
    this.entries = PackedCabys.of(entries);
    this.complete = complete;
  }

  get size(): number {
    return this.entries.size;
  }

  get(codigo: string): CabysEntry | undefined {
    const i = this.entries.indexOf(codigo);
    return i === -1 ? undefined : this.entryAt(i);
  }

  /** Accent- and case-insensitive search on every word of `q` (a word of digits also matches a code's start), in code order. */
  search(q: string, top: number): { total: number; matches: CabysEntry[] } {
    const words = normalize(q)
      .split(/\s+/)
      .filter(Boolean)
      .map((w) => ({ w, codes: /^\d{1,13}$/.test(w) ? this.entries.prefixRange(w) : ([0, 0] as const) }));
    const matches: CabysEntry[] = [];
    let total = 0;
    for (let i = 0; i < this.entries.size; i++) {
      const text = normalize(this.entries.descriptionAt(i));
      if (!words.every(({ w, codes }) => text.includes(w) || (i >= codes[0] && i < codes[1]))) continue;
      total++;
      if (matches.length < top) matches.push(this.entryAt(i));
    }
    return { total, matches };
  }

  private entryAt(i: number): CabysEntry {
    return { ...this.entries.itemAt(i), categorias: [] };
  }
}

function normalize(s: string): string {
  return s
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase();
}

interface FileEntry {
  id?: unknown;
  description?: unknown;
  tax_percent?: unknown;
}

export function loadCabysCatalog(dataDir: string | undefined): CabysCatalog {
  const path = dataDir ? join(dataDir, 'cabys.json') : undefined;
  if (!path || !existsSync(path)) return new CabysCatalog(BUILT_IN, false);
  const raw = JSON.parse(readFileSync(path, 'utf8')) as FileEntry[];
  const entries: CabysItem[] = [];
  for (const r of raw) {
    if (typeof r.id !== 'string' || !/^\d{13}$/.test(r.id) || typeof r.description !== 'string') continue;
    const pct = typeof r.tax_percent === 'number' ? Math.round(r.tax_percent * 100) : 13;
    entries.push({ codigo: r.id, descripcion: r.description.trim(), impuesto: pct });
  }
  // The file's entry wins over a built-in one with the same code.
  return new CabysCatalog([...entries, ...BUILT_IN], true);
}
