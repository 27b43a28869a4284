// The CABYS catalogue answered by /fe/cabys and used by the verdict: the community catalogue file from
// HACIENDA_DATA_DIR (cabys.json, kept out of the repo) when present, plus a few built-in entries so a bare
// start answers something. The file has no category levels, so `categorias` is empty for its entries.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CabysEntry {
  codigo: string;
  descripcion: string;
  /** Usual IVA rate as an integer percentage (13, 4, 2, 1, 0). */
  impuesto: number;
  categorias: string[];
}

const BUILT_IN: CabysEntry[] = [
  { codigo: '2132100000100', descripcion: 'Jugo de tomate concentrado', impuesto: 13, categorias: [] },
  {
    codigo: '8314300000000',
    descripcion: 'Servicios de diseño y desarrollo de redes y sistemas informáticos, n.c.p.',
    impuesto: 13,
    categorias: [],
  },
  {
    codigo: '8111100000000',
    descripcion: 'Servicios de investigación y desarrollo experimental en ciencias físicas',
    impuesto: 13,
    categorias: [],
  },
  { codigo: '9311000000000', descripcion: 'Servicios de hospital', impuesto: 4, categorias: [] },
  {
    codigo: '0111100000100',
    descripcion: 'Trigo duro, para siembra (semillas)',
    impuesto: 1,
    categorias: [],
  },
];

export class CabysCatalog {
  private readonly byCode = new Map<string, CabysEntry>();
  /** True when a full catalogue file was loaded, so "not in the catalogue" is a real finding. */
  readonly complete: boolean;

  constructor(entries: CabysEntry[], complete: boolean) {
    for (const e of entries) this.byCode.set(e.codigo, e);
    this.complete = complete;
  }

  get size(): number {
    return this.byCode.size;
  }

  get(codigo: string): CabysEntry | undefined {
    return this.byCode.get(codigo);
  }

  /** Accent- and case-insensitive search on every word of `q`. */
  search(q: string, top: number): { total: number; matches: CabysEntry[] } {
    const words = normalize(q).split(/\s+/).filter(Boolean);
    const matches: CabysEntry[] = [];
    for (const e of this.byCode.values()) {
      const text = normalize(e.descripcion);
      if (words.every((w) => text.includes(w) || e.codigo.startsWith(w))) matches.push(e);
    }
    return { total: matches.length, matches: matches.slice(0, top) };
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
  const entries: CabysEntry[] = [...BUILT_IN];
  for (const r of raw) {
    if (typeof r.id !== 'string' || !/^\d{13}$/.test(r.id) || typeof r.description !== 'string') continue;
    const pct = typeof r.tax_percent === 'number' ? Math.round(r.tax_percent * 100) : 13;
    entries.push({ codigo: r.id, descripcion: r.description.trim(), impuesto: pct, categorias: [] });
  }
  return new CabysCatalog(entries, true);
}
