// Hacienda's territorial division (Codificacionubicacion v4.4: provincia, cantón, distrito, barrio), loaded
// once at start from HACIENDA_DATA_DIR. Issuer addresses are checked against it, and the XML needs the
// barrio's NAME (v4.4 writes Barrio as text), which `find` returns.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const TERRITORIAL_FILE = 'Codificacionubicacion_V4.4.derived.csv';

export interface UbicacionCodes {
  provincia: string;
  canton: string;
  distrito: string;
  barrio: string;
}

export interface TerritorialEntry extends UbicacionCodes {
  provinciaNombre: string;
  cantonNombre: string;
  distritoNombre: string;
  barrioNombre: string;
}

/** Which part of an address is not in the table, for a 400 naming the field. */
export interface UbicacionProblem {
  field: keyof UbicacionCodes;
  reason: string;
}

function key(...parts: string[]): string {
  return parts.join('-');
}

export class TerritorialTable {
  private readonly barrios = new Map<string, TerritorialEntry>();
  private readonly distritos = new Set<string>();
  private readonly cantones = new Set<string>();
  private readonly provincias = new Set<string>();

  constructor(entries: TerritorialEntry[]) {
    for (const e of entries) {
      this.barrios.set(key(e.provincia, e.canton, e.distrito, e.barrio), e);
      this.distritos.add(key(e.provincia, e.canton, e.distrito));
      this.cantones.add(key(e.provincia, e.canton));
      this.provincias.add(e.provincia);
    }
  }

  get size(): number {
    return this.barrios.size;
  }

  /** Parses the derived CSV (header + 8 columns, no quoting in the official export). */
  static parse(csv: string): TerritorialTable {
    // A province's, canton's or district's name repeats on every barrio line, and a substring keeps the
    // whole file's text alive: each distinct value is copied once and shared (the loaded table's heap
    // 2.18 → 1.59 MB, measured after a GC).
    const seen = new Map<string, string>();
    const intern = (value: string): string => {
      let shared = seen.get(value);
      if (shared === undefined) {
        shared = Buffer.from(value, 'utf8').toString('utf8');
        seen.set(shared, shared);
      }
      return shared;
    };
    const lines = csv.split(/\r?\n/).filter((l) => l.trim().length > 0);
    const header = lines.shift()?.split(',') ?? [];
    if (header[0] !== 'provincia' || header.length !== 8)
      throw new Error('territorial table: unexpected header');
    const entries = lines.map((line, i) => {
      const c = line.split(',');
      if (c.length !== 8) throw new Error(`territorial table: line ${i + 2} has ${c.length} columns`);
      const [
        provincia,
        provinciaNombre,
        canton,
        cantonNombre,
        distrito,
        distritoNombre,
        barrio,
        barrioNombre,
      ] = c.map((s) => intern(s.trim())) as [string, string, string, string, string, string, string, string];
      return {
        provincia,
        provinciaNombre,
        canton,
        cantonNombre,
        distrito,
        distritoNombre,
        barrio,
        barrioNombre,
      };
    });
    return new TerritorialTable(entries);
  }

  /** The table under `dir`, or undefined when the file is not there. */
  static loadFrom(dir: string): TerritorialTable | undefined {
    const file = join(dir, TERRITORIAL_FILE);
    if (!existsSync(file)) return undefined;
    return TerritorialTable.parse(readFileSync(file, 'utf8'));
  }

  find(codes: UbicacionCodes): TerritorialEntry | undefined {
    return this.barrios.get(key(codes.provincia, codes.canton, codes.distrito, codes.barrio));
  }

  /** The first level of the address that does not exist, or undefined when all of it does. */
  check(codes: UbicacionCodes): UbicacionProblem | undefined {
    if (!this.provincias.has(codes.provincia)) {
      return { field: 'provincia', reason: `province ${codes.provincia} does not exist` };
    }
    if (!this.cantones.has(key(codes.provincia, codes.canton))) {
      return {
        field: 'canton',
        reason: `canton ${codes.canton} does not exist in province ${codes.provincia}`,
      };
    }
    if (!this.distritos.has(key(codes.provincia, codes.canton, codes.distrito))) {
      return {
        field: 'distrito',
        reason: `district ${codes.distrito} does not exist in canton ${codes.provincia}-${codes.canton}`,
      };
    }
    if (!this.find(codes)) {
      return {
        field: 'barrio',
        reason: `barrio ${codes.barrio} does not exist in district ${codes.provincia}-${codes.canton}-${codes.distrito}`,
      };
    }
    return undefined;
  }
}
