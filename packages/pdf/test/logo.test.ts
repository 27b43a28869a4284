// A logo is checked whole before pdfkit decodes it (src/logo.ts): well-formed PNGs of every kind and JPEGs
// pass and render; damaged, truncated or oversized ones are named, and a PDF rendered with one leaves the
// logo out instead of hanging the event loop or ending the process (png-js throws inside a zlib callback).
import { deflateSync } from 'node:zlib';
import { logoProblem, renderComprobanteXmlPdf } from '../src';
import { ADAM7 } from '../src/logo';
import { surtidoInvoiceXml } from './fixtures';
import { makeLogo } from './pdf-tools';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const b of bytes) crc = CRC_TABLE[(crc ^ b) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, body: Buffer, declaredLength = body.length): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(declaredLength, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])));
  return Buffer.concat([head, body, crc]);
}

interface PngSpec {
  width: number;
  height: number;
  colourType: number;
  depth: number;
  interlaced?: boolean;
  /** Image data before compression; default: every row of every pass filter 0 and zero bytes. */
  raw?: Buffer;
  /** Compressed image data as given, instead of deflating `raw`. */
  idat?: Buffer;
  before?: Buffer[];
  end?: boolean;
}

const SAMPLES: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

function rawSize({ width, height, colourType, depth, interlaced }: PngSpec): number {
  const bits = depth * SAMPLES[colourType]!;
  const passes = interlaced ? ADAM7 : ([[0, 0, 1, 1]] as const);
  let size = 0;
  for (const [x0, y0, dx, dy] of passes) {
    const w = Math.ceil((width - x0) / dx);
    const h = Math.ceil((height - y0) / dy);
    if (w > 0 && h > 0) size += h * (1 + Math.ceil((w * bits) / 8));
  }
  return size;
}

function png(spec: PngSpec): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(spec.width, 0);
  header.writeUInt32BE(spec.height, 4);
  header[8] = spec.depth;
  header[9] = spec.colourType;
  header[12] = spec.interlaced ? 1 : 0;
  const raw = spec.raw ?? Buffer.alloc(rawSize(spec));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    ...(spec.before ?? []),
    chunk('IDAT', spec.idat ?? deflateSync(raw)),
    ...(spec.end === false ? [] : [chunk('IEND', Buffer.alloc(0))]),
  ]);
}

/** An RGBA PNG whose compressed data is split over two IDAT chunks, as encoders do for large images. */
function splitData(): Buffer {
  const spec = { width: 30, height: 30, colourType: 6, depth: 8 };
  const data = deflateSync(Buffer.alloc(rawSize(spec)));
  return Buffer.concat([
    png({ ...spec, idat: data.subarray(0, 10), end: false }),
    chunk('IDAT', data.subarray(10)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const palette = chunk('PLTE', Buffer.from([255, 0, 0, 0, 0, 255, 255, 255, 255]));

/** A JPEG's headers up to its scan: SOI, JFIF, an optional frame header, SOS and two bytes of scan. */
function jpeg(frame: Buffer | undefined): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, 0, 1, 0, 1, 0, 0]);
  const sos = Buffer.from([0xff, 0xda, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3f, 0x00, 0x12, 0x34]);
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    app0,
    ...(frame ? [frame] : []),
    sos,
    Buffer.from([0xff, 0xd9]),
  ]);
}

function sof0(width: number, height: number, components = 3): Buffer {
  const b = Buffer.from([
    0xff,
    0xc0,
    0x00,
    0x11,
    8,
    0,
    0,
    0,
    0,
    components,
    1,
    0x11,
    0,
    2,
    0x11,
    1,
    3,
    0x11,
    1,
  ]);
  b.writeUInt16BE(height, 5);
  b.writeUInt16BE(width, 7);
  return b;
}

describe('logoProblem', () => {
  it.each([
    ['an RGBA PNG', makeLogo()],
    ['an RGB PNG', png({ width: 40, height: 20, colourType: 2, depth: 8 })],
    ['a 16-bit grey PNG', png({ width: 9, height: 7, colourType: 0, depth: 16 })],
    [
      'a 2-bit indexed PNG with transparency',
      png({
        width: 13,
        height: 5,
        colourType: 3,
        depth: 2,
        before: [palette, chunk('tRNS', Buffer.from([0]))],
      }),
    ],
    [
      'an interlaced grey-alpha PNG',
      png({ width: 11, height: 9, colourType: 4, depth: 8, interlaced: true }),
    ],
    [
      'an interlaced PNG smaller than its first pass',
      png({ width: 1, height: 3, colourType: 6, depth: 8, interlaced: true }),
    ],
    ['a PNG with its data in several IDAT chunks', splitData()],
    ['a baseline JPEG', jpeg(sof0(120, 40))],
    ['a greyscale JPEG', jpeg(sof0(10, 10, 1))],
  ])('accepts %s, and it is drawn', async (_what, logo) => {
    expect(logoProblem(logo)).toBeUndefined();
    const pdf = await renderComprobanteXmlPdf(surtidoInvoiceXml(), { branding: { logo } });
    expect(pdf.toString('latin1')).toMatch(/\/Subtype \/Image/);
  });

  const rgba = { width: 30, height: 10, colourType: 6, depth: 8 };
  const filterRow = Buffer.alloc(rawSize(rgba));
  filterRow[(1 + 30 * 4) * 3] = 7;
  const overflow = Buffer.alloc(rawSize({ ...rgba, width: 1000, height: 1000 }) + 1);

  it.each([
    ['a GIF', Buffer.from('GIF89a0123456789'), 'must be a PNG or JPEG image'],
    [
      'image data that does not inflate',
      png({ ...rgba, idat: Buffer.from('not zlib at all') }),
      'does not inflate',
    ],
    [
      'image data cut short',
      png({ ...rgba, idat: deflateSync(Buffer.alloc(rawSize(rgba))).subarray(0, 8) }),
      'does not inflate',
    ],
    [
      'image data shorter than the rows',
      png({ ...rgba, raw: Buffer.alloc(rawSize(rgba) - 1) }),
      'shorter than its size',
    ],
    [
      'image data that inflates past its size (a bomb)',
      png({ ...rgba, width: 1000, height: 1000, raw: overflow }),
      'does not inflate',
    ],
    ['an unknown row filter', png({ ...rgba, raw: filterRow }), 'unknown filter'],
    [
      'a chunk longer than the file',
      Buffer.concat([png({ ...rgba, end: false }), chunk('IDAT', Buffer.alloc(4), 0x7fffffff)]),
      'runs past the end',
    ],
    ['no IEND', png({ ...rgba, end: false }), 'cut short'],
    [
      'a colour type and depth the format forbids',
      png({ ...rgba, colourType: 2, depth: 4 }),
      'no valid image format',
    ],
    ['an indexed image without a palette', png({ width: 4, height: 4, colourType: 3, depth: 8 }), 'palette'],
    ['zero width', png({ ...rgba, width: 0 }), 'zero width'],
    [
      'more pixels than allowed',
      png({ ...rgba, width: 2000, height: 1001, idat: Buffer.alloc(1) }),
      'megapixels',
    ],
    [
      'a side longer than allowed',
      png({ ...rgba, width: 40_000, height: 1, idat: Buffer.alloc(1) }),
      '4096 pixels a side',
    ],
    ['a JPEG without a frame header', jpeg(undefined), 'no frame header'],
    [
      'a JPEG whose segment runs past the end',
      Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x40, 0x00, 1, 2]),
      'runs past the end',
    ],
    ['a JPEG of 5000 × 10 pixels', jpeg(sof0(5000, 10)), '4096 pixels a side'],
    ['a JPEG with two colour components', jpeg(sof0(10, 10, 2)), 'colour components'],
  ])('names %s, and a PDF leaves that logo out', async (_what, logo, problem) => {
    expect(logoProblem(logo)).toContain(problem);
    const pdf = await renderComprobanteXmlPdf(surtidoInvoiceXml(), { branding: { logo } });
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdf.toString('latin1')).not.toMatch(/\/Subtype \/Image/);
  });
});
