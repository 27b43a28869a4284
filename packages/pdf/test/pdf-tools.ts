// Test-only: look at a rendered PDF the way a person would. pdftoppm (page 1 → PNG) and pdftotext from
// poppler-utils; the QR is read back from the pixels with jsQR. Missing tools skip outside CI.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';

export function popplerAvailable(): boolean {
  const ok = ['pdftoppm', 'pdftotext'].every((t) => spawnSync('which', [t]).status === 0);
  if (ok) return true;
  if (process.env.CI === 'true')
    throw new Error('CI=true and poppler-utils (pdftoppm, pdftotext) is missing');
  console.warn('skipping: poppler-utils (pdftoppm, pdftotext) is missing');
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

/** Share of pixels that are not (near) white. */
export function inkRatio(png: PNG): number {
  let ink = 0;
  for (let i = 0; i < png.data.length; i += 4) {
    if (png.data[i]! < 200 || png.data[i + 1]! < 200 || png.data[i + 2]! < 200) ink++;
  }
  return ink / (png.width * png.height);
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
