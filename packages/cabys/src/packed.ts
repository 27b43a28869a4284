// The catalogue's ~20,000 entries packed into a few flat arrays and one string, in code order. As one object
// per entry (three fields, two strings) the catalogue held ~5 MB of a service's heap; packed it holds ~1.5 MB
// (issue 15: every service under 200 MB). An entry's object is made when it is asked for (a search's results,
// a lookup), which is a handful per request.
import { CABYS_CODE, type CabysEntry, type CabysItem } from './catalogue';
import { type Groups, groupPairs, slotOf } from './groups';

/** The largest code (13 digits) is below 2^53, so each is an exact float64, and numbers sort as the strings. */
const CODE_DIGITS = 13;

/**
 * The category levels of an xlsx import, each name kept once: entry i's are the names numbered
 * data[start[i] … start[i+1]); `absent[i]` marks an entry given without any (undefined, not an empty list).
 */
interface Categories extends Groups {
  names: string[];
  absent: Uint8Array;
}

export class PackedCabys {
  readonly size: number;
  private readonly codes: Float64Array;
  private readonly taxes: Float64Array;
  /** Descriptions in Latin-1 back to back (one byte a character in V8); entry i's is text[start[i], start[i+1]). */
  private readonly text: string;
  private readonly start: Uint32Array;
  /** The few descriptions with a character beyond Latin-1, which would make the whole text two bytes a character. */
  private readonly wide: Map<number, string>;
  private readonly categories: Categories | undefined;

  /**
   * Packs `entries` sorted by code; of equal codes the first given is kept. Codes must be 13 digits (the
   * catalogue readers check that).
   */
  static of(entries: readonly CabysEntry[]): PackedCabys {
    // Array.prototype.sort is stable: of equal codes, the first given comes first and is the one kept.
    const sorted = [...entries].sort((a, b) => (a.codigo < b.codigo ? -1 : a.codigo > b.codigo ? 1 : 0));
    return new PackedCabys(
      sorted.filter((e, i) => i === 0 || (sorted[i - 1] as CabysEntry).codigo !== e.codigo),
    );
  }

  private constructor(entries: readonly CabysEntry[]) {
    const n = entries.length;
    this.size = n;
    this.codes = new Float64Array(n);
    this.taxes = new Float64Array(n);
    this.start = new Uint32Array(n + 1);
    this.wide = new Map();
    const parts: string[] = [];
    let offset = 0;
    entries.forEach((e, i) => {
      if (!CABYS_CODE.test(e.codigo)) throw new RangeError(`CABYS code ${e.codigo}: 13 digits expected`);
      this.codes[i] = Number(e.codigo);
      this.taxes[i] = e.impuesto;
      this.start[i] = offset;
      if (!isLatin1(e.descripcion)) this.wide.set(i, e.descripcion);
      else {
        parts.push(e.descripcion);
        offset += e.descripcion.length;
      }
    });
    this.start[n] = offset;
    this.text = parts.join('');
    this.categories = entries.some((e) => e.categorias !== undefined) ? packCategories(entries) : undefined;
  }

  codeAt(i: number): string {
    return String(this.codes[i]).padStart(CODE_DIGITS, '0');
  }

  descriptionAt(i: number): string {
    return this.wide.get(i) ?? this.text.slice(this.start[i], this.start[i + 1]);
  }

  /** What a search answers: code, description and tax. */
  itemAt(i: number): CabysItem {
    return { codigo: this.codeAt(i), descripcion: this.descriptionAt(i), impuesto: this.taxes[i] as number };
  }

  /** The entry as it was given, categories included when it had them. */
  entryAt(i: number): CabysEntry {
    const item: CabysEntry = this.itemAt(i);
    const c = this.categories;
    if (c && c.absent[i] === 0) {
      item.categorias = Array.from(
        c.data.subarray(c.start[i], c.start[i + 1]),
        (id) => c.names[id] as string,
      );
    }
    return item;
  }

  /** The position of exactly this code, or -1. */
  indexOf(code: string): number {
    if (typeof code !== 'string' || !CABYS_CODE.test(code)) return -1;
    const value = Number(code);
    const i = this.firstAtLeast(value);
    return i < this.size && this.codes[i] === value ? i : -1;
  }

  /** Positions of the codes that start with `digits` (1–13 digits): [from, to). */
  prefixRange(digits: string): [number, number] {
    const low = Number(digits.padEnd(CODE_DIGITS, '0'));
    const high = Number(digits.padEnd(CODE_DIGITS, '9'));
    return [this.firstAtLeast(low), this.firstAtLeast(high + 1)];
  }

  /** The first position whose code is ≥ `value` (a binary search); `size` when none is. */
  private firstAtLeast(value: number): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.codes[mid] as number) < value) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

function isLatin1(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0xff) return false;
  return true;
}

function packCategories(entries: readonly CabysEntry[]): Categories {
  const slots = new Map<string, number>();
  const owners: number[] = [];
  const ids: number[] = [];
  const absent = new Uint8Array(entries.length);
  entries.forEach((e, i) => {
    if (e.categorias === undefined) absent[i] = 1;
    for (const name of e.categorias ?? []) {
      owners.push(i);
      ids.push(slotOf(slots, name));
    }
  });
  return { ...groupPairs(entries.length, owners, ids), names: [...slots.keys()], absent };
}
