// A tenant's logo is bytes from outside, decoded inside every PDF render, so it is checked whole before pdfkit
// sees it. pdfkit's PNG reader (png-js) trusts the file: a chunk that claims more bytes than the file has
// makes it loop over billions of missing bytes on the event loop, and an image whose data does not inflate,
// or uses an unknown row filter, throws inside a zlib callback, where no caller can catch it and the process
// ends. A transparent PNG is also decoded pixel by pixel in JavaScript, so its size is bounded too. What
// passes here, pdfkit reads without either failure: every chunk lies inside the file, the header is one the
// PNG format allows, the image data inflates to exactly the rows its size needs, and every row names one of
// the five filters. A JPEG must carry the frame header pdfkit reads its size from.
import { inflateSync } from 'node:zlib';

/** Most pixels a logo may have: it is printed at most 170 × 64 points, so 2 megapixels is already ample. */
const MAX_LOGO_PIXELS = 2_000_000;
/** Longest side of a logo, in pixels. */
const MAX_LOGO_SIDE = 4096;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function isPng(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && Buffer.from(bytes.buffer, bytes.byteOffset, 8).equals(PNG_SIGNATURE);
}

function isJpeg(bytes: Uint8Array): boolean {
  return bytes.length > 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
}

/** Why these bytes cannot be a PDF's logo, in words for the tenant; `undefined` when they can. */
export function logoProblem(bytes: Uint8Array): string | undefined {
  if (isPng(bytes)) return pngProblem(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
  if (isJpeg(bytes)) return jpegProblem(bytes);
  return 'must be a PNG or JPEG image';
}

/** The bound on a logo's size, the same for both formats. */
function sizeProblem(width: number, height: number): string | undefined {
  if (width <= MAX_LOGO_SIDE && height <= MAX_LOGO_SIDE && width * height <= MAX_LOGO_PIXELS)
    return undefined;
  return `must be at most ${MAX_LOGO_PIXELS / 1_000_000} megapixels and ${MAX_LOGO_SIDE} pixels a side (got ${width} × ${height})`;
}

/** Bit depths the PNG format allows for each colour type, and the samples per pixel. */
const PNG_COLOUR_TYPES: Record<number, { depths: number[]; samples: number }> = {
  0: { depths: [1, 2, 4, 8, 16], samples: 1 },
  2: { depths: [8, 16], samples: 3 },
  3: { depths: [1, 2, 4, 8], samples: 1 },
  4: { depths: [8, 16], samples: 2 },
  6: { depths: [8, 16], samples: 4 },
};

/** Adam7's passes: first column and row, then the steps between them. */
export const ADAM7: readonly (readonly [number, number, number, number])[] = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
];

interface PngHeader {
  width: number;
  height: number;
  depth: number;
  colourType: number;
  interlaced: boolean;
}

function pngProblem(png: Buffer): string | undefined {
  let header: PngHeader | undefined;
  let palette = false;
  const data: Buffer[] = [];
  let pos = 8;
  for (;;) {
    if (pos + 12 > png.length) return 'the PNG is cut short (no IEND chunk)';
    const length = png.readUInt32BE(pos);
    const type = png.toString('latin1', pos + 4, pos + 8);
    const body = pos + 8;
    if (length > png.length - body - 4) return `the PNG is damaged (its ${type} chunk runs past the end)`;
    if (!header && type !== 'IHDR') return 'the PNG is damaged (it does not start with IHDR)';
    if (type === 'IHDR') {
      if (header || length !== 13) return 'the PNG is damaged (bad IHDR chunk)';
      const parsed = readPngHeader(png, body);
      if (typeof parsed === 'string') return parsed;
      header = parsed;
    } else if (type === 'PLTE') {
      palette = length > 0 && length <= 768 && length % 3 === 0;
    } else if (type === 'IDAT') {
      data.push(png.subarray(body, body + length));
    } else if (type === 'IEND') {
      break;
    }
    pos = body + length + 4;
  }
  if (!header) return 'the PNG is damaged (no IHDR chunk)';
  if (header.colourType === 3 && !palette)
    return 'the PNG is damaged (an indexed image without a valid palette)';
  if (data.length === 0) return 'the PNG has no image data';
  return pngDataProblem(header, Buffer.concat(data));
}

function readPngHeader(png: Buffer, at: number): PngHeader | string {
  const width = png.readUInt32BE(at);
  const height = png.readUInt32BE(at + 4);
  const depth = png[at + 8]!;
  const colourType = png[at + 9]!;
  const interlace = png[at + 12]!;
  const kind = PNG_COLOUR_TYPES[colourType];
  if (!kind?.depths.includes(depth) || png[at + 10] !== 0 || png[at + 11] !== 0 || interlace > 1) {
    return 'the PNG is damaged (its header names no valid image format)';
  }
  if (width < 1 || height < 1) return 'the PNG is damaged (zero width or height)';
  const large = sizeProblem(width, height);
  if (large) return large;
  return { width, height, depth, colourType, interlaced: interlace === 1 };
}

/** Each pass's rows and the bytes of one after its filter byte (no column: no bytes). */
function pngPasses({ width, height, depth, colourType, interlaced }: PngHeader): [number, number][] {
  const bitsPerPixel = depth * PNG_COLOUR_TYPES[colourType]!.samples;
  const passes = interlaced ? ADAM7 : [[0, 0, 1, 1] as const];
  return passes.map(([x0, y0, dx, dy]) => [
    Math.ceil((height - y0) / dy),
    Math.ceil((Math.ceil((width - x0) / dx) * bitsPerPixel) / 8),
  ]);
}

function pngDataProblem(header: PngHeader, compressed: Buffer): string | undefined {
  const passes = pngPasses(header);
  // The format stores no row for a pass without columns (a tiny interlaced image).
  const expected = passes.reduce((sum, [rows, bytes]) => sum + (bytes > 0 ? rows * (1 + bytes) : 0), 0);
  let raw: Buffer;
  try {
    // Bounded: a small file cannot inflate into more than the image needs.
    raw = inflateSync(compressed, { maxOutputLength: expected });
  } catch {
    return 'the PNG is damaged (its image data does not inflate to its size)';
  }
  if (raw.length !== expected) return 'the PNG is damaged (its image data is shorter than its size)';
  // Walked the way png-js walks it (a filter byte for every row of every pass, while data is left), so each
  // byte it will take for a filter is one it knows.
  let pos = 0;
  for (const [rows, bytes] of passes) {
    for (let row = 0; row < rows && pos < raw.length; row++) {
      if (raw[pos]! > 4) return 'the PNG is damaged (a row names an unknown filter)';
      pos += 1 + bytes;
    }
  }
  return undefined;
}

/** Start-of-frame markers pdfkit reads the size from (every SOF but the differential-less JPEG-LS ones). */
const JPEG_FRAMES = new Set([
  0xffc0, 0xffc1, 0xffc2, 0xffc3, 0xffc5, 0xffc6, 0xffc7, 0xffc9, 0xffca, 0xffcb, 0xffcd, 0xffce, 0xffcf,
]);

function jpegProblem(jpeg: Uint8Array): string | undefined {
  let pos = 2;
  while (pos + 4 <= jpeg.length) {
    if (jpeg[pos] !== 0xff) return 'the JPEG is damaged (a segment does not start with a marker)';
    const marker = (jpeg[pos]! << 8) | jpeg[pos + 1]!;
    if (marker === 0xffff) {
      pos += 1; // a fill byte before the marker
      continue;
    }
    if ((marker >= 0xffd0 && marker <= 0xffd7) || marker === 0xff01) {
      pos += 2; // markers without a length
      continue;
    }
    const length = (jpeg[pos + 2]! << 8) | jpeg[pos + 3]!;
    if (length < 2 || pos + 2 + length > jpeg.length)
      return 'the JPEG is damaged (a segment runs past the end)';
    if (JPEG_FRAMES.has(marker)) {
      if (length < 8) return 'the JPEG is damaged (short frame header)';
      const height = (jpeg[pos + 5]! << 8) | jpeg[pos + 6]!;
      const width = (jpeg[pos + 7]! << 8) | jpeg[pos + 8]!;
      const components = jpeg[pos + 9]!;
      if (width < 1 || height < 1) return 'the JPEG is damaged (zero width or height)';
      if (![1, 3, 4].includes(components))
        return 'the JPEG is damaged (unsupported number of colour components)';
      return sizeProblem(width, height);
    }
    if (marker === 0xffda) break; // scan data before any frame header
    pos += 2 + length;
  }
  return 'the JPEG is damaged (no frame header)';
}
