// What both layouts share: the DejaVu fonts (read once: Spanish accents and ₡ need a Unicode font; the
// package ships them, nothing is copied into the repo), the QR drawn as vector squares, the document with
// deterministic metadata (same input → same bytes, so a download equals the e-mailed attachment) and the
// bytes collected into one Buffer.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { deflateSync } from 'node:zlib';
import * as fontkit from 'fontkit';
import PDFDocument from 'pdfkit';
import QRCode from 'qrcode';

export type Doc = PDFKit.PDFDocument;

type Font = ReturnType<typeof fontkit.create>;
let fonts: { regular: Font; bold: Font } | undefined;

/**
 * Parsed once per process and shared by every document: parsing a TTF and building its layout engine is
 * most of the cost of a small PDF (pdfkit accepts a fontkit font in place of a file).
 */
function loadFonts(): { regular: Font; bold: Font } {
  if (!fonts) {
    const dir = join(dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
    fonts = {
      regular: fontkit.create(readFileSync(join(dir, 'DejaVuSansCondensed.ttf'))),
      bold: fontkit.create(readFileSync(join(dir, 'DejaVuSansCondensed-Bold.ttf'))),
    };
  }
  return fonts;
}

export const REGULAR = 'regular';
export const BOLD = 'bold';

export interface NewDocOptions {
  size?: [number, number];
  margin: number;
  title: string;
  author: string;
  /** The document's own date, so the bytes do not depend on when they are rendered. */
  creationDate: Date;
  bufferPages?: boolean;
}

export function newDoc(options: NewDocOptions): Doc {
  const f = loadFonts();
  const doc = new PDFDocument({
    // No default font: pdfkit would load Helvetica's metrics for every document, and opening ours here
    // (unnamed) made every later font(REGULAR) re-open the font and compare it by JSON-stringifying its
    // name table (pdfkit caches a registered name only when it opened the font first). Opened first
    // under its registered name below, each font is cached and a switch is a lookup.
    font: null as unknown as string,
    autoFirstPage: false,
    margin: options.margin,
    bufferPages: options.bufferPages ?? false,
    lang: 'es-CR',
    displayTitle: true,
    info: {
      Title: options.title,
      Author: options.author,
      Creator: 'cr-einvoice',
      Producer: 'cr-einvoice',
      CreationDate: options.creationDate,
      ModDate: options.creationDate,
    },
  });
  doc.registerFont(REGULAR, f.regular as unknown as string);
  doc.registerFont(BOLD, f.bold as unknown as string);
  doc.font(BOLD);
  prepareFont(doc, BOLD);
  doc.font(REGULAR);
  prepareFont(doc, REGULAR);
  return doc;
}

/** What a document's font needs besides pdfkit's own work: shared word layouts and a cached subset. */
function prepareFont(doc: Doc, name: string): void {
  const font = (doc as unknown as DocInternals)._fontFamilies[name];
  if (!font) return;
  shareLayouts(doc, font, name);
  seedSubset(doc, font, name);
}

/**
 * pdfkit lays text out word by word through fontkit (OpenType shaping: GSUB and GPOS lookups per word,
 * a third of a small PDF's CPU) and caches each word's run, but in the document's own font object, so the
 * next document shapes "Total", "IVA" and "₡" all over again. A word's run depends only on the font and the
 * word (pdfkit scales it to 1000 units per em, the same for every document), so the documents share one
 * cache per font: each document's cache inherits the shared words and adds its own, which join the shared
 * ones when the document ends.
 * What is kept is bounded by characters, not words: a run holds a glyph and a position object per character
 * (about 100 bytes each), and under load the cache used to fill with each document's own identifiers: a
 * 50-digit clave, a 20-digit consecutivo, amounts, e-mail addresses. Those never come back, and 4,000 of
 * them per font held 20 MB of the tenant-api's heap. Words longer than SHARED_WORD_MAX_LENGTH stay in their
 * document's own cache; past LAYOUT_CACHE_CHARACTERS the shared cache starts over.
 * This reaches into pdfkit's EmbeddedFont (`_fontFamilies`, `layoutCache`; pdfkit 0.20): the test
 * "documents share word layouts" fails if a pdfkit upgrade moves them.
 */
const SHARED_WORD_MAX_LENGTH = 16;
const LAYOUT_CACHE_CHARACTERS = 20_000;
type LayoutCache = Record<string, unknown>;
interface SharedLayouts {
  words: LayoutCache;
  count: number;
  characters: number;
}
const sharedLayouts = new Map<string, SharedLayouts>();
interface FontkitGlyph {
  id: number;
  advanceWidth: number;
  codePoints: number[];
}
interface EmbeddedFontInternals {
  layoutCache?: LayoutCache;
  font: Font & { layout(text: string): { glyphs: FontkitGlyph[] } };
  scale: number;
  widths: (number | undefined)[];
  unicode: (number[] | undefined)[];
  subset?: { glyphs: number[]; includeGlyph(id: number): number; encode(): Uint8Array };
  embed?: () => unknown;
}
/** The stream object pdfkit creates for the font file (PDFReference). */
interface StreamRef {
  compress: boolean;
  data: Record<string, unknown>;
}
interface DocInternals {
  _fontFamilies: Record<string, EmbeddedFontInternals | undefined>;
}
const docCaches = new WeakMap<Doc, [SharedLayouts, LayoutCache][]>();

function shareLayouts(doc: Doc, font: EmbeddedFontInternals, name: string): void {
  if (!font.layoutCache) return;
  let shared = sharedLayouts.get(name);
  if (!shared) {
    shared = { words: Object.create(null) as LayoutCache, count: 0, characters: 0 };
    sharedLayouts.set(name, shared);
  }
  const own = Object.create(shared.words) as LayoutCache;
  font.layoutCache = own;
  const list = docCaches.get(doc) ?? [];
  list.push([shared, own]);
  docCaches.set(doc, list);
}

/** Moves the words a finished document shaped into the shared caches. */
function keepLayouts(doc: Doc): void {
  for (const [shared, own] of docCaches.get(doc) ?? []) {
    const words = Object.keys(own).filter((w) => w.length <= SHARED_WORD_MAX_LENGTH);
    if (words.length === 0) continue;
    const characters = words.reduce((sum, w) => sum + w.length, 0);
    if (shared.characters + characters > LAYOUT_CACHE_CHARACTERS) {
      // Start over rather than evict one by one: the common words come back with the next document.
      shared.words = Object.create(null) as LayoutCache;
      shared.count = 0;
      shared.characters = 0;
    }
    for (const w of words) shared.words[w] = own[w];
    shared.count += words.length;
    shared.characters += characters;
  }
  docCaches.delete(doc);
}

/**
 * Every document embeds a subset of each font with the glyphs it uses, and encoding that subset (fontkit
 * re-reading and re-writing the TrueType tables) was another seventh of the CPU, and deflating it about
 * 0.6 ms more. Each subset now starts with the same glyphs in the same order, those of the text a Spanish
 * invoice is written with (ASCII, accented letters, ¿¡ºª°·×, ₡ and €, dashes and quotes, the no-break space
 * inside numbers, and the fi/fl ligatures shaping forms), so most documents' subsets are identical, and their deflated bytes are kept
 * per font (the few keys of documents that use other characters are kept too, up to SUBSET_CACHE_KEYS).
 * pdfkit's EmbeddedFont.embed creates the font file's stream first and ends it with `subset.encode()`:
 * while it embeds, that stream is marked as already FlateDecode and encode answers the kept bytes. Costs
 * about 4 kB per font and document; the output is the same for the same input, whatever was rendered
 * before.
 */
const SUBSET_SEED_TEXT = `${Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).join('')}ÁÉÍÓÚÜÑáéíóúüñ¿¡ºª°·×₡€–—“”‘’…\u00a0 fi fl ff ffi ffl`;
const SUBSET_CACHE_KEYS = 16;
const seedGlyphs = new Map<string, FontkitGlyph[]>();
const deflatedSubsets = new Map<string, Map<string, Uint8Array>>();

function seedSubset(doc: Doc, font: EmbeddedFontInternals, name: string): void {
  const subset = font.subset;
  const embed = font.embed?.bind(font);
  if (!subset || !embed) return;
  let seed = seedGlyphs.get(name);
  if (!seed) {
    const seen = new Set<number>();
    seed = font.font.layout(SUBSET_SEED_TEXT).glyphs.filter((g) => !seen.has(g.id) && seen.add(g.id));
    seedGlyphs.set(name, seed);
  }
  // What pdfkit's EmbeddedFont.encode records for a glyph it draws: its width and its text (ToUnicode).
  for (const g of seed) {
    const gid = subset.includeGlyph(g.id);
    font.widths[gid] ??= g.advanceWidth * font.scale;
    font.unicode[gid] ??= g.codePoints;
  }
  let cache = deflatedSubsets.get(name);
  if (!cache) {
    cache = new Map();
    deflatedSubsets.set(name, cache);
  }
  const kept = cache;
  const encode = subset.encode.bind(subset);
  let fontFile: StreamRef | undefined;
  font.embed = () => {
    const d = doc as unknown as { ref(data?: object): StreamRef };
    d.ref = (data?: object) => {
      // Own property shadowing PDFDocument.prototype.ref for this one call: the font file's stream.
      delete (d as Partial<typeof d>).ref;
      fontFile = d.ref(data);
      // Length first, as pdfkit's own write() would add it, so the dictionary reads the same.
      fontFile.data.Length = 0;
      fontFile.data.Filter = 'FlateDecode';
      fontFile.compress = false;
      return fontFile;
    };
    try {
      return embed();
    } finally {
      delete (d as Partial<typeof d>).ref;
      fontFile = undefined;
    }
  };
  subset.encode = () => {
    // Outside embed (or if pdfkit no longer makes the font file first) the plain bytes, for pdfkit to deflate.
    if (!fontFile || fontFile.compress) return encode();
    const key = subset.glyphs.join(',');
    let bytes = kept.get(key);
    if (!bytes) {
      bytes = deflateSync(encode());
      if (kept.size >= SUBSET_CACHE_KEYS) kept.clear();
      kept.set(key, bytes);
    }
    return bytes;
  };
}

export interface FontCacheStats {
  /** Words in the shared layout cache, their characters and the longest one. */
  words: number;
  characters: number;
  longestWord: number;
  /** Encoded subsets kept. */
  subsets: number;
}

/** Per font: what its shared caches hold (tests, benchmark). */
export function fontCacheStats(): Record<string, FontCacheStats> {
  const names = new Set([...sharedLayouts.keys(), ...deflatedSubsets.keys()]);
  return Object.fromEntries(
    [...names].map((name) => {
      const shared = sharedLayouts.get(name);
      const words = shared ? Object.keys(shared.words) : [];
      const stats: FontCacheStats = {
        words: shared?.count ?? 0,
        characters: shared?.characters ?? 0,
        longestWord: Math.max(0, ...words.map((w) => w.length)),
        subsets: deflatedSubsets.get(name)?.size ?? 0,
      };
      return [name, stats];
    }),
  );
}

/** Lines, or ticket items, drawn between two turns of the event loop. */
const STEPS_PER_TURN = 20;

/**
 * Before every STEPS_PER_TURN-th step of a long layout loop, waits for the event loop's next turn. A 1,000-line
 * document takes the better part of a second to lay out on a 2-core VM; without turns, every tenant's
 * requests and the jobs would wait for it. Only the time changes: the bytes are the same.
 */
export function turnAt(step: number): Promise<void> | undefined {
  return step > 0 && step % STEPS_PER_TURN === 0
    ? new Promise((resolve) => setImmediate(resolve))
    : undefined;
}

/** pdfkit's text engine, which lays a string out line by line and hands each line to a callback. */
interface TextInternals {
  _text(
    text: string,
    x: number,
    y: number,
    options: PDFKit.Mixins.TextOptions,
    onLine: (line: string) => void,
  ): unknown;
}

/**
 * The lines pdfkit wraps `text` into at `width` in the current font and size, each without its trailing
 * spaces: what a page that holds only part of a long cell draws (a slice of them, joined by newlines; each
 * fits the width, so pdfkit does not wrap them again). pdfkit has no public call for the lines themselves:
 * this runs its layout as heightOfString does (an unbounded height, so it never adds a page) and keeps the
 * lines instead of drawing them (pdfkit 0.20's `_text`; the test "wraps lines as pdfkit measures them" fails
 * if an upgrade moves it).
 */
export function wrapLines(doc: Doc, text: string, width: number): string[] {
  const { x, y } = doc;
  const lines: string[] = [];
  const lineHeight = doc.currentLineHeight(true);
  (doc as unknown as TextInternals)._text(text, x, y, { width, height: Number.POSITIVE_INFINITY }, (line) => {
    lines.push(line.trimEnd());
    doc.y += lineHeight;
  });
  doc.x = x;
  doc.y = y;
  return lines;
}

/** Ends the document and resolves with its bytes. */
export function collect(doc: Doc): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => {
      keepLayouts(doc);
      resolve(Buffer.concat(chunks));
    });
    doc.on('error', reject);
    doc.end();
  });
}

/** Draws `text` as a QR code (level M, 4-module quiet zone included in `size`) with its top-left at x, y. */
export function drawQr(doc: Doc, text: string, x: number, y: number, size: number): void {
  const qr = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const n = qr.modules.size;
  const cell = size / (n + 8);
  const ox = x + 4 * cell;
  const oy = y + 4 * cell;
  doc.save();
  doc.rect(x, y, size, size).fill('#ffffff');
  // Runs of dark modules per row become one rectangle each: fewer path operators, same picture.
  for (let row = 0; row < n; row++) {
    let col = 0;
    while (col < n) {
      if (!qr.modules.get(row, col)) {
        col++;
        continue;
      }
      const start = col;
      while (col < n && qr.modules.get(row, col)) col++;
      doc.rect(ox + start * cell, oy + row * cell, (col - start) * cell, cell);
    }
  }
  doc.fill('#000000');
  doc.restore();
}

/** The document date as an instant (FechaEmision carries its offset); epoch 0 when unreadable. */
export function documentDate(fechaEmision: string): Date {
  const t = Date.parse(fechaEmision);
  return new Date(Number.isNaN(t) ? 0 : t);
}
