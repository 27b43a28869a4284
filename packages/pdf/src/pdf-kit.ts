// What both layouts share: the DejaVu fonts (read once: Spanish accents and ₡ need a Unicode font; the
// package ships them, nothing is copied into the repo), the QR drawn as vector squares, the document with
// deterministic metadata (same input → same bytes, so a download equals the e-mailed attachment) and the
// bytes collected into one Buffer.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
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
  doc.font(REGULAR);
  return doc;
}

/** Ends the document and resolves with its bytes. */
export function collect(doc: Doc): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
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

/** Logo bytes pdfkit can place (PNG or JPEG), checked by their signature. */
export function isSupportedImage(bytes: Buffer): boolean {
  const png = bytes.length > 8 && bytes.readUInt32BE(0) === 0x89504e47;
  const jpeg = bytes.length > 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
  return png || jpeg;
}
