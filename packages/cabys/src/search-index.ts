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
import { groupPairs, slotOf } from './groups';
import { PackedCabys } from './packed';
import { STOP_WORDS, letterMask, maskWithinOneEdit, stemWord, tokenize, withinOneEdit } from './normalize';

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
  /** Whether exactly this 13-digit code is in the catalogue: a binary search, no object made (ADR 0066). */
  has(code: string): boolean;
  /** Every entry, in code order (objects made for the call: the index keeps the catalogue packed). */
  entries(): readonly CabysEntry[];
}

/** Builds the index; entries are sorted by code, duplicates keep the first. */
export function createCabysIndex(input: readonly CabysEntry[]): CabysIndex {
  if (input.length >= DOC_SLOTS) throw new RangeError(`at most ${DOC_SLOTS - 1} CABYS codes are supported`);
  // Entry d of the index is entry d of the packed catalogue (code order).
  const catalogue = PackedCabys.of(input);
  const n = catalogue.size;

  // vocabulary: one slot per distinct folded word
  const vocabIndex = new Map<string, number>();
  const vocabSurface: string[] = [];
  const vocabStem: string[] = [];
  const postingWords: number[] = [];
  const postingDoc: number[] = [];
  const firstWord = new Int32Array(n).fill(-1);
  const descLength = new Uint16Array(n);
  for (let d = 0; d < n; d++) {
    const description = catalogue.descriptionAt(d);
    descLength[d] = Math.min(description.length, 65_535);
    const words = tokenize(description);
    const seen = new Set<number>();
    for (const w of words) {
      let v = vocabIndex.get(w);
      if (v === undefined) {
        v = vocabSurface.length;
        vocabIndex.set(w, v);
        vocabSurface.push(w);
        vocabStem.push(stemWord(w));
      }
      if (firstWord[d] === -1) firstWord[d] = v;
      if (!seen.has(v)) {
        seen.add(v);
        postingWords.push(v);
        postingDoc.push(d);
      }
    }
  }
  const vocabSize = vocabSurface.length;
  // each word's entries, in entry order
  const { start: postingStart, data: postingDocs } = groupPairs(vocabSize, postingWords, postingDoc);

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
  const stemSlots = new Map<string, number>();
  const stemGroups: number[] = [];
  const trigramSlots = new Map<string, number>();
  const trigramGroups: number[] = [];
  const trigramWords: number[] = [];
  const vocabByLength: number[][] = [];
  const vocabLetters = new Int32Array(vocabSize);
  for (let v = 0; v < vocabSize; v++) {
    const surface = vocabSurface[v] as string;
    vocabLetters[v] = letterMask(surface);
    stemGroups.push(slotOf(stemSlots, vocabStem[v] as string));
    const sameLength = vocabByLength[surface.length];
    if (sameLength) sameLength.push(v);
    else vocabByLength[surface.length] = [v];
    const seenTrigrams = new Set<string>();
    for (let i = 0; i + 3 <= surface.length; i++) {
      const tri = surface.slice(i, i + 3);
      if (seenTrigrams.has(tri)) continue;
      seenTrigrams.add(tri);
      trigramGroups.push(slotOf(trigramSlots, tri));
      trigramWords.push(v);
    }
  }
  // the words of each stem and of each trigram, in word order
  const vocabByStem = groupPairs(stemSlots.size, stemGroups, Array.from(stemGroups.keys()));
  const vocabByTrigram = groupPairs(trigramSlots.size, trigramGroups, trigramWords);
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
    const stem = stemSlots.get(q.stem);
    if (stem !== undefined) {
      for (let i = vocabByStem.start[stem] as number; i < (vocabByStem.start[stem + 1] as number); i++) {
        offer(vocabByStem.data[i] as number, EXACT);
      }
    }
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
      const { start, data } = vocabByTrigram;
      let rarest = -1; // the trigram slot with the fewest words; -1 when one of them is in no word
      for (let i = 0; i + 3 <= len; i++) {
        const t = trigramSlots.get(q.surface.slice(i, i + 3));
        if (t === undefined) {
          rarest = -1;
          break;
        }
        const count = (start[t + 1] as number) - (start[t] as number);
        if (rarest === -1 || count < (start[rarest + 1] as number) - (start[rarest] as number)) rarest = t;
      }
      if (rarest !== -1) {
        for (let i = start[rarest] as number; i < (start[rarest + 1] as number); i++) {
          const v = data[i] as number;
          if ((vocabSurface[v] as string).includes(q.surface)) offer(v, PARTIAL);
        }
      }
    }
    // one typo: only words one letter shorter, as long, or one longer can be one edit away
    if (len >= TYPO_MIN_LENGTH) {
      const letters = letterMask(q.surface);
      for (let l = Math.max(TYPO_MIN_LENGTH - 1, len - 1); l <= len + 1; l++) {
        for (const v of vocabByLength[l] ?? []) {
          if (!maskWithinOneEdit(vocabLetters[v] as number, letters)) continue;
          if (withinOneEdit(vocabSurface[v] as string, q.surface)) offer(v, PARTIAL);
        }
      }
    }
    return hitCount;
  }

  function searchCodes(digits: string, limit: number): CabysItem[] {
    const [from, to] = catalogue.prefixRange(digits);
    const out: CabysItem[] = [];
    for (let d = from; d < to && out.length < limit; d++) out.push(catalogue.itemAt(d));
    return out;
  }

  function search(query: unknown, options: SearchOptions = {}): CabysItem[] {
    if (typeof query !== 'string' || n === 0) return [];
    const limit = clampLimit(options.limit);
    const compact = query.trim().replace(/[\s.-]/g, '');
    // a 13-digit code, or the start of one (4+ digits: a category), is a code lookup
    if (/^[0-9]{4,13}$/.test(compact)) {
      if (CABYS_CODE.test(compact)) {
        const d = catalogue.indexOf(compact);
        return d === -1 ? [] : [catalogue.itemAt(d)];
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
        const end = postingStart[v + 1] as number;
        for (let i = postingStart[v] as number; i < end; i++) {
          const d = postingDocs[i] as number;
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
    return best.map((k) => catalogue.itemAt(DOC_SLOTS - 1 - (k % DOC_SLOTS)));
  }

  return {
    size: n,
    search,
    lookup(code: string) {
      const d = catalogue.indexOf(code);
      return d === -1 ? undefined : catalogue.entryAt(d);
    },
    has: (code: string) => catalogue.indexOf(code) !== -1,
    entries: () => Array.from({ length: n }, (_, d) => catalogue.entryAt(d)),
  };
}
