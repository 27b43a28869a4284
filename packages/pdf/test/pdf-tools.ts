// Test-only: look at a rendered PDF the way a person would. pdftoppm (pages → PNG), pdftotext and pdfinfo
// from poppler-utils; the QR is read back from the pixels with jsQR. Missing tools skip outside CI.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';

export function popplerAvailable(): boolean {
  const ok = ['pdftoppm', 'pdftotext', 'pdfinfo'].every((t) => spawnSync('which', [t]).status === 0);
  if (ok) return true;
  if (process.env.CI === 'true')
    throw new Error('CI=true and poppler-utils (pdftoppm, pdftotext, pdfinfo) is missing');
  console.warn('skipping: poppler-utils (pdftoppm, pdftotext, pdfinfo) is missing');
  return false;
}

function withPdf<T>(pdf: Buffer, fn: (file: string, dir: string) => T): T {
  const dir = mkdtempSync(path.join(tmpdir(), 'cr-pdf-'));
  try {
    const file = path.join(dir, 'doc.pdf');
    writeFileSync(file, pdf);
    return fn(file, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function pdfText(pdf: Buffer): string {
  return withPdf(pdf, (file) => execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' }));
}

export function pageCount(pdf: Buffer): number {
  const m = /\/Type \/Pages[\s\S]*?\/Count (\d+)/.exec(pdf.toString('latin1'));
  return m ? Number(m[1]) : 0;
}

/** Page 1 as a PNG image (150 dpi). */
export function firstPage(pdf: Buffer): PNG {
  return withPdf(pdf, (file, dir) => {
    execFileSync('pdftoppm', [
      '-png',
      '-r',
      '150',
      '-f',
      '1',
      '-l',
      '1',
      '-singlefile',
      file,
      path.join(dir, 'p'),
    ]);
    return PNG.sync.read(readFileSync(path.join(dir, 'p.png')));
  });
}

/** Page `n` (from 1) as a PNG image; `crop` in points from the page's top, e.g. to skip a long ticket's top. */
export function pageImage(pdf: Buffer, n: number, dpi = 150, crop?: { y: number; height: number }): PNG {
  const px = (pt: number) => String(Math.round((pt * dpi) / 72));
  const area = crop ? ['-y', px(crop.y), '-H', px(crop.height), '-W', '100000'] : [];
  return withPdf(pdf, (file, dir) => {
    execFileSync('pdftoppm', [
      '-png',
      '-r',
      String(dpi),
      '-f',
      String(n),
      '-l',
      String(n),
      ...area,
      '-singlefile',
      file,
      path.join(dir, 'p'),
    ]);
    return PNG.sync.read(readFileSync(path.join(dir, 'p.png')));
  });
}

/** Share of pixels that are not (near) white; above `bottom` (a share of the height) when given. */
export function inkRatio(png: PNG, bottom = 1): number {
  const end = Math.floor(png.height * bottom) * png.width * 4;
  let ink = 0;
  for (let i = 0; i < end; i += 4) {
    if (png.data[i]! < 200 || png.data[i + 1]! < 200 || png.data[i + 2]! < 200) ink++;
  }
  return ink / (end / 4);
}

/** Every page's width and height in points, from pdfinfo (its MediaBox). */
export function pageSizes(pdf: Buffer): { width: number; height: number }[] {
  const info = withPdf(pdf, (file) =>
    execFileSync('pdfinfo', ['-f', '1', '-l', String(pageCount(pdf)), file], { encoding: 'utf8' }),
  );
  return [...info.matchAll(/^Page\s+\d+ size:\s+([\d.]+) x ([\d.]+) pts/gm)].map((m) => ({
    width: Number(m[1]),
    height: Number(m[2]),
  }));
}

export interface Word {
  text: string;
  page: number;
  xMin: number;
  xMax: number;
  yMin: number;
  yMax: number;
}

const fromHtml = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');

/** Every word of every page with its box (pdftotext -bbox: one <page> element per page, y from the top). */
export function pageWords(pdf: Buffer): Word[][] {
  // One run for all pages: a run per page (-f N -l N) doubled the time for the same boxes.
  const html = withPdf(pdf, (file) => execFileSync('pdftotext', ['-bbox', file, '-'], { encoding: 'utf8' }));
  const pages = html.split('<page ').slice(1);
  if (pages.length !== pageCount(pdf))
    throw new Error(`pdftotext read ${pages.length} pages of ${pageCount(pdf)}`);
  return pages.map((markup, i) =>
    [
      ...markup.matchAll(
        /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g,
      ),
    ].map((m) => ({
      text: fromHtml(m[5]!),
      page: i + 1,
      xMin: +m[1]!,
      yMin: +m[2]!,
      xMax: +m[3]!,
      yMax: +m[4]!,
    })),
  );
}

/** The pairs of a page's words whose boxes overlap by more than `tolerance` points both ways: text over text. */
export function overlappingWords(words: Word[], tolerance = 0.5): [Word, Word][] {
  const pairs: [Word, Word][] = [];
  words.forEach((a, i) => {
    for (const b of words.slice(i + 1)) {
      const dx = Math.min(a.xMax, b.xMax) - Math.max(a.xMin, b.xMin);
      const dy = Math.min(a.yMax, b.yMax) - Math.max(a.yMin, b.yMin);
      if (dx > tolerance && dy > tolerance) pairs.push([a, b]);
    }
  });
  return pairs;
}

export function decodeQr(png: PNG): string | undefined {
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
}

/** A small PNG logo (a red square with a blue band) for branding tests. */
export function makeLogo(): Buffer {
  const png = new PNG({ width: 60, height: 30 });
  for (let y = 0; y < 30; y++) {
    for (let x = 0; x < 60; x++) {
      const i = (y * 60 + x) * 4;
      const band = y > 20;
      png.data[i] = band ? 0 : 220;
      png.data[i + 1] = 0;
      png.data[i + 2] = band ? 200 : 0;
      png.data[i + 3] = 255;
    }
  }
  return PNG.sync.write(png);
}

/** Mean colour of a pixel box, to find the logo on the page. */
export function hasColour(png: PNG, predicate: (r: number, g: number, b: number) => boolean): boolean {
  for (let i = 0; i < png.data.length; i += 4) {
    if (predicate(png.data[i]!, png.data[i + 1]!, png.data[i + 2]!)) return true;
  }
  return false;
}
