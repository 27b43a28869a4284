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
const SUBSTRING_MIN_LENGTH = 4;

/** Room for the entry number inside a rank key (up to ~1M codes; the catalogue has ~20k). */
const DOC_SLOTS = 2 ** 20;

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
  if (input.length >= DOC_SLOTS) throw new RangeError(`at most ${DOC_SLOTS - 1} CABYS codes are supported`);
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
  const touched = new Int32Array(n);
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

  // lookups into the vocabulary, so a query word never scans all of it
  const sortedVocab = Int32Array.from(vocabSurface.keys()).sort((a, b) =>
    (vocabSurface[a] as string) < (vocabSurface[b] as string) ? -1 : 1,
  );
  const vocabByStem = new Map<string, number[]>();
  const vocabByLength: number[][] = [];
  const vocabByTrigram = new Map<string, number[]>();
  for (let v = 0; v < vocabSize; v++) {
    const surface = vocabSurface[v] as string;
    const stem = vocabStem[v] as string;
    const sameStem = vocabByStem.get(stem);
    if (sameStem) sameStem.push(v);
    else vocabByStem.set(stem, [v]);
    const sameLength = vocabByLength[surface.length];
    if (sameLength) sameLength.push(v);
    else vocabByLength[surface.length] = [v];
    const seenTrigrams = new Set<string>();
    for (let i = 0; i + 3 <= surface.length; i++) {
      const tri = surface.slice(i, i + 3);
      if (seenTrigrams.has(tri)) continue;
      seenTrigrams.add(tri);
      const list = vocabByTrigram.get(tri);
      if (list) list.push(v);
      else vocabByTrigram.set(tri, [v]);
    }
  }
  const vocabStamp = new Uint32Array(vocabSize);
  const vocabHits = new Int32Array(vocabSize);
  let vocabGeneration = 0;

  /** Marks the vocabulary words matching one query word: ids in vocabHits, scores in vocabQuality; returns how many. */
  function matchVocabulary(q: QueryWord): number {
    vocabGeneration++;
    if (vocabGeneration === 0xffffffff) {
      vocabStamp.fill(0);
      vocabGeneration = 1;
    }
    let hitCount = 0;
    const offer = (v: number, score: number) => {
      if (vocabStamp[v] !== vocabGeneration) {
        vocabStamp[v] = vocabGeneration;
        vocabQuality[v] = score;
        vocabHits[hitCount++] = v;
      } else if (score > (vocabQuality[v] as number)) vocabQuality[v] = score;
    };
    // exact word, or the same word in singular/plural
    const same = vocabIndex.get(q.surface);
    if (same !== undefined) offer(same, EXACT);
    for (const v of vocabByStem.get(q.stem) ?? []) offer(v, EXACT);
    // word prefix: a contiguous range of the sorted vocabulary
    let lo = 0;
    let hi = vocabSize;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((vocabSurface[sortedVocab[mid] as number] as string) < q.surface) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < vocabSize; i++) {
      const v = sortedVocab[i] as number;
      if (!(vocabSurface[v] as string).startsWith(q.surface)) break;
      offer(v, PREFIX);
    }
    // inside a word: candidates share the query's rarest trigram
    const len = q.surface.length;
    if (len >= SUBSTRING_MIN_LENGTH) {
      let rarest: number[] | undefined;
      for (let i = 0; i + 3 <= len; i++) {
        const list = vocabByTrigram.get(q.surface.slice(i, i + 3));
        if (!list) {
          rarest = [];
          break;
        }
        if (!rarest || list.length < rarest.length) rarest = list;
      }
      for (const v of rarest ?? []) if ((vocabSurface[v] as string).includes(q.surface)) offer(v, PARTIAL);
    }
    // one typo: only words one letter shorter, as long, or one longer can be one edit away
    if (len >= TYPO_MIN_LENGTH) {
      for (let l = Math.max(TYPO_MIN_LENGTH - 1, len - 1); l <= len + 1; l++) {
        for (const v of vocabByLength[l] ?? [])
          if (withinOneEdit(vocabSurface[v] as string, q.surface)) offer(v, PARTIAL);
      }
    }
    return hitCount;
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
    let touchedCount = 0;
    words.forEach((q, wi) => {
      const hitCount = matchVocabulary(q);
      const wordGen = generation * MAX_QUERY_WORDS + wi; // distinct per (search, query word)
      for (let h = 0; h < hitCount; h++) {
        const v = vocabHits[h] as number;
        const score = vocabQuality[v] as number;
        const list = postings[v] as Uint32Array;
        for (let i = 0; i < list.length; i++) {
          const d = list[i] as number;
          if (stamp[d] !== generation) {
            stamp[d] = generation;
            matched[d] = 0;
            quality[d] = 0;
            lead[d] = 0;
            touched[touchedCount++] = d;
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
    return topK(touchedCount, limit);
  }

  /**
   * One number per entry that orders everything: matched words, then quality, then lead, then shortness,
   * then the lower code (entries are in code order, so a lower index wins). Stays below 2^53.
   */
  function rankKey(d: number): number {
    const relevance =
      (matched[d] as number) * 1e8 +
      (quality[d] as number) * 1e5 +
      (lead[d] as number) * 1e4 +
      (9_999 - Math.min(descLength[d] as number, 9_999));
    return relevance * DOC_SLOTS + (DOC_SLOTS - 1 - d);
  }

  /** Best `limit` entries without sorting them all: a bounded min-heap of rank keys. */
  function topK(count: number, limit: number): CabysItem[] {
    const heap = new Float64Array(limit);
    let size = 0;
    for (let c = 0; c < count; c++) {
      const k = rankKey(touched[c] as number);
      if (size < limit) {
        let i = size++;
        while (i > 0) {
          const p = (i - 1) >> 1;
          if ((heap[p] as number) <= k) break;
          heap[i] = heap[p] as number;
          i = p;
        }
        heap[i] = k;
      } else if (k > (heap[0] as number)) {
        let i = 0;
        for (;;) {
          const l = 2 * i + 1;
          if (l >= size) break;
          const r = l + 1;
          const m = r < size && (heap[r] as number) < (heap[l] as number) ? r : l;
          if ((heap[m] as number) >= k) break;
          heap[i] = heap[m] as number;
          i = m;
        }
        heap[i] = k;
      }
    }
    const best = Array.from(heap.subarray(0, size)).sort((a, b) => b - a);
    return best.map((k) => items[DOC_SLOTS - 1 - (k % DOC_SLOTS)] as CabysItem);
  }

  return {
    size: n,
    search,
    lookup: (code: string) => (typeof code === 'string' ? byCode.get(code) : undefined),
    entries: () => docs,
  };
}
