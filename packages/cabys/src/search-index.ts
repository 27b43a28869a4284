// In-memory CABYS search index (see docs/decisions/0006-cabys-search.md). Descriptions are folded to
// accent-free lower-case words; each distinct word keeps the list of entries that contain it. A query word
// is matched against the vocabulary (~13k words) once, then the postings of the matching words are scored.
//
// Ranking, best first:
//   1. how many distinct query words the entry matches (all beats some);
//   2. how well they match: exact word (singular/plural folded) 3 > word prefix 2 > inside a word or one
//      typo 1;
//   3. the description starts with the first query word ("Café tostado" before "Crema para café");
//   4. shorter description; 5. lower code.
import type { CabysEntry, CabysItem } from './catalogue';
import { CABYS_CODE } from './catalogue';
import { STOP_WORDS, stemWord, tokenize, withinOneEdit } from './normalize';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;
/** Longer queries are cut here: the route refuses more than 200 characters, the function never throws. */
const MAX_QUERY_CHARS = 200;
const MAX_QUERY_WORDS = 8;
/** A word this long or longer may carry one typo. */
const TYPO_MIN_LENGTH = 5;
/** A query word this long or longer may also match inside another word ("cafe" in "descafeinado"). */
const SUBSTRING_MIN_LENGTH = 3;

const EXACT = 3;
const PREFIX = 2;
const PARTIAL = 1;

export interface SearchOptions {
  /** How many results; default 50, clamped to 1–200. */
  limit?: number;
}

/** The limit actually used for a requested one: default 50, whole numbers clamped to 1–200. */
export function clampLimit(limit: unknown): number {
  if (typeof limit !== 'number' || !Number.isFinite(limit)) return DEFAULT_LIMIT;
  return Math.min(MAX_LIMIT, Math.max(1, Math.floor(limit)));
}

interface QueryWord {
  surface: string;
  stem: string;
}

export interface CabysIndex {
  /** Number of codes. */
  readonly size: number;
  /** Ranked matches, best first. Total: any string (or anything else) gives a possibly empty list. */
  search(query: unknown, options?: SearchOptions): CabysItem[];
  /** The entry with exactly this 13-digit code. */
  lookup(code: string): CabysEntry | undefined;
  /** Every entry, in code order. */
  entries(): readonly CabysEntry[];
}

/** Builds the index; entries are sorted by code, duplicates keep the first. */
export function createCabysIndex(input: readonly CabysEntry[]): CabysIndex {
  const byCode = new Map<string, CabysEntry>();
  for (const e of input) if (!byCode.has(e.codigo)) byCode.set(e.codigo, e);
  const docs = [...byCode.values()].sort((a, b) => (a.codigo < b.codigo ? -1 : a.codigo > b.codigo ? 1 : 0));
  const n = docs.length;
  const items: CabysItem[] = docs.map((d) => ({
    codigo: d.codigo,
    descripcion: d.descripcion,
    impuesto: d.impuesto,
  }));
  const codes = docs.map((d) => d.codigo);
  const docByCode = new Map<string, number>(codes.map((c, d) => [c, d]));

  // vocabulary: one slot per distinct folded word
  const vocabIndex = new Map<string, number>();
  const vocabSurface: string[] = [];
  const vocabStem: string[] = [];
  const postingLists: number[][] = [];
  const firstWord = new Int32Array(n).fill(-1);
  const descLength = new Uint16Array(n);
  for (let d = 0; d < n; d++) {
    const doc = docs[d] as CabysEntry;
    descLength[d] = Math.min(doc.descripcion.length, 65_535);
    const words = tokenize(doc.descripcion);
    const seen = new Set<number>();
    for (const w of words) {
      let v = vocabIndex.get(w);
      if (v === undefined) {
        v = vocabSurface.length;
        vocabIndex.set(w, v);
        vocabSurface.push(w);
        vocabStem.push(stemWord(w));
        postingLists.push([]);
      }
      if (firstWord[d] === -1) firstWord[d] = v;
      if (!seen.has(v)) {
        seen.add(v);
        (postingLists[v] as number[]).push(d);
      }
    }
  }
  const postings = postingLists.map((p) => Uint32Array.from(p));
  const vocabSize = vocabSurface.length;

  // scratch space reused by every search (searches are synchronous, so never shared concurrently)
  const stamp = new Uint32Array(n);
  const matched = new Uint8Array(n);
  const quality = new Uint16Array(n);
  const lead = new Uint8Array(n);
  const bestForWord = new Uint8Array(n);
  const wordStamp = new Uint32Array(n);
  const vocabQuality = new Uint8Array(vocabSize);
  let generation = 0;

  function queryWords(query: string): QueryWord[] {
    const words = tokenize(query.slice(0, MAX_QUERY_CHARS));
    const meaningful = words.filter((w) => !STOP_WORDS.has(w));
    const chosen = meaningful.length ? meaningful : words;
    const unique = [...new Set(chosen)].slice(0, MAX_QUERY_WORDS);
    return unique.map((surface) => ({ surface, stem: stemWord(surface) }));
  }

  /** Quality of every vocabulary word for one query word, written into vocabQuality; returns the hits. */
  function matchVocabulary(q: QueryWord): number[] {
    const hits: number[] = [];
    const allowPartial = q.surface.length >= SUBSTRING_MIN_LENGTH;
    const allowTypo = q.surface.length >= TYPO_MIN_LENGTH;
    for (let v = 0; v < vocabSize; v++) {
      const surface = vocabSurface[v] as string;
      let score = 0;
      if (surface === q.surface || vocabStem[v] === q.stem) score = EXACT;
      else if (surface.startsWith(q.surface)) score = PREFIX;
      else if (allowPartial && surface.includes(q.surface)) score = PARTIAL;
      else if (allowTypo && surface.length >= TYPO_MIN_LENGTH - 1 && withinOneEdit(surface, q.surface))
        score = PARTIAL;
      if (score) {
        vocabQuality[v] = score;
        hits.push(v);
      }
    }
    return hits;
  }

  function searchCodes(digits: string, limit: number): CabysItem[] {
    // codes are sorted: binary search the first code ≥ digits, then walk while the prefix holds
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((codes[mid] as string) < digits) lo = mid + 1;
      else hi = mid;
    }
    const out: CabysItem[] = [];
    for (let d = lo; d < n && out.length < limit && (codes[d] as string).startsWith(digits); d++) {
      out.push(items[d] as CabysItem);
    }
    return out;
  }

  function search(query: unknown, options: SearchOptions = {}): CabysItem[] {
    if (typeof query !== 'string' || n === 0) return [];
    const limit = clampLimit(options.limit);
    const compact = query.trim().replace(/[\s.-]/g, '');
    // a 13-digit code, or the start of one (4+ digits: a category), is a code lookup
    if (/^[0-9]{4,13}$/.test(compact)) {
      if (CABYS_CODE.test(compact)) {
        const d = docByCode.get(compact);
        return d === undefined ? [] : [items[d] as CabysItem];
      }
      const byPrefix = searchCodes(compact, limit);
      if (byPrefix.length) return byPrefix;
    }
    const words = queryWords(query);
    if (words.length === 0) return [];

    generation++;
    // stamps are (search × 8 + word) in 32 bits: start over long before they would wrap
    if (generation >= 0x1fffffff) {
      stamp.fill(0);
      wordStamp.fill(0);
      generation = 1;
    }
    const touched: number[] = [];
    words.forEach((q, wi) => {
      const hits = matchVocabulary(q);
      const wordGen = generation * MAX_QUERY_WORDS + wi; // distinct per (search, query word)
      for (const v of hits) {
        const score = vocabQuality[v] as number;
        const list = postings[v] as Uint32Array;
        for (let i = 0; i < list.length; i++) {
          const d = list[i] as number;
          if (stamp[d] !== generation) {
            stamp[d] = generation;
            matched[d] = 0;
            quality[d] = 0;
            lead[d] = 0;
            touched.push(d);
          }
          if (wordStamp[d] !== wordGen) {
            wordStamp[d] = wordGen;
            bestForWord[d] = score;
            matched[d] = (matched[d] as number) + 1;
            quality[d] = (quality[d] as number) + score;
          } else if (score > (bestForWord[d] as number)) {
            quality[d] = (quality[d] as number) + score - (bestForWord[d] as number);
            bestForWord[d] = score;
          }
          if (wi === 0 && firstWord[d] === v) lead[d] = 1;
        }
      }
    });
    return topK(touched, limit);
  }

  function rankKey(d: number): number {
    // one number per entry: matched words, then quality, then lead, then shortness
    return (
      (matched[d] as number) * 1e8 +
      (quality[d] as number) * 1e5 +
      (lead[d] as number) * 1e4 +
      (9_999 - Math.min(descLength[d] as number, 9_999))
    );
  }

  /** Best `limit` entries without sorting them all: a bounded min-heap on (key desc, code asc). */
  function topK(candidates: number[], limit: number): CabysItem[] {
    const heapDoc: number[] = [];
    const heapKey: number[] = [];
    // "a is worse than b": lower key, or same key and higher code
    const worse = (ka: number, da: number, kb: number, db: number) => ka < kb || (ka === kb && da > db);
    const swap = (i: number, j: number) => {
      const td = heapDoc[i] as number;
      heapDoc[i] = heapDoc[j] as number;
      heapDoc[j] = td;
      const tk = heapKey[i] as number;
      heapKey[i] = heapKey[j] as number;
      heapKey[j] = tk;
    };
    const at = (i: number): [number, number] => [heapKey[i] as number, heapDoc[i] as number];
    for (const d of candidates) {
      const k = rankKey(d);
      if (heapDoc.length < limit) {
        heapDoc.push(d);
        heapKey.push(k);
        let i = heapDoc.length - 1;
        while (i > 0) {
          const p = (i - 1) >> 1;
          if (worse(...at(i), ...at(p))) {
            swap(i, p);
            i = p;
          } else break;
        }
      } else if (worse(heapKey[0] as number, heapDoc[0] as number, k, d)) {
        heapDoc[0] = d;
        heapKey[0] = k;
        let i = 0;
        for (;;) {
          const l = 2 * i + 1;
          const r = l + 1;
          let m = i;
          if (l < heapDoc.length && worse(...at(l), ...at(m))) m = l;
          if (r < heapDoc.length && worse(...at(r), ...at(m))) m = r;
          if (m === i) break;
          swap(i, m);
          i = m;
        }
      }
    }
    const order = heapDoc.map((d, i) => [heapKey[i] as number, d] as const);
    order.sort((a, b) => b[0] - a[0] || a[1] - b[1]);
    return order.map(([, d]) => items[d] as CabysItem);
  }

  return {
    size: n,
    search,
    lookup: (code: string) => (typeof code === 'string' ? byCode.get(code) : undefined),
    entries: () => docs,
  };
}
