// A tenant's logo as pdfkit's image objects, made once per logo and written into each document as made. For
// every document, pdfkit decodes a transparent PNG in JavaScript (inflate, unfilter, split the colour from the
// alpha, deflate both): ~25 ms of CPU for a 300 × 120 logo on a 2-core VM, more than the rest of a letter.
// What it makes depends only on the bytes, so pdfkit makes it once, in a scratch document, and the objects it
// ends there (the image, its soft mask, palette, decode parameters) are recorded with their streams. This
// leans on pdfkit 0.20's `ref()`, `PDFReference.write/end/compress` and the image protocol of `doc.image()`
// (an object with width, height, label, obj and embed); test/logo-image.test.ts fails if an upgrade moves them.
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import PDFDocument from 'pdfkit';
import { logoProblem } from './logo';
import type { Doc } from './pdf-kit';

interface PdfRef {
  data: Record<string, unknown>;
  compress: boolean;
  write(chunk: Uint8Array | string): void;
  end(chunk?: Uint8Array | string): void;
}

interface RefMaker {
  ref(data?: Record<string, unknown>): PdfRef;
}

/** Another recorded object, by its place in the recording. */
class Recorded {
  constructor(readonly index: number) {}
}

interface RecordedObject {
  /** The dictionary pdfkit left before writing it; Length (and Filter, when pdfkit deflates) come again. */
  data: Record<string, unknown>;
  chunks: (Uint8Array | string)[];
}

/** The branding as the layouts draw it: the logo already made into image objects. */
export interface DrawnBranding {
  logo?: LogoImage;
  footer?: string;
}

/** What one logo is in a PDF: its objects in the order pdfkit ended them (what one refers to ends first). */
export interface LogoImage {
  width: number;
  height: number;
  orientation: number | undefined;
  objects: RecordedObject[];
}

function swapRefs(value: unknown, swap: (ref: PdfRef) => unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => swapRefs(v, swap));
  if (value && typeof value === 'object') {
    const swapped = swap(value as PdfRef);
    if (swapped !== undefined) return swapped;
    if (Object.getPrototypeOf(value) === Object.prototype) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, swapRefs(v, swap)]));
    }
  }
  return value;
}

/** Lets pdfkit embed the logo into a scratch document and records what it writes. */
function record(bytes: Buffer): Promise<LogoImage> {
  return new Promise((resolve, reject) => {
    const scratch = new PDFDocument({ autoFirstPage: false, font: null as unknown as string });
    const maker = scratch as unknown as RefMaker;
    const objects: RecordedObject[] = [];
    const recorded = new Map<PdfRef, number>();
    const make = maker.ref.bind(scratch);
    const image = (scratch as unknown as { openImage(src: Buffer): unknown }).openImage(bytes) as {
      width: number;
      height: number;
      orientation?: number;
      obj: PdfRef | null;
      embed(doc: unknown): void;
    };
    maker.ref = (data) => {
      const ref = make(data);
      const chunks: (Uint8Array | string)[] = [];
      const write = ref.write.bind(ref);
      const end = ref.end.bind(ref);
      ref.write = (chunk) => {
        chunks.push(chunk);
        write(chunk);
      };
      ref.end = (chunk) => {
        if (chunk) ref.write(chunk);
        const { Length: _length, ...data } = ref.data;
        if (ref.compress) delete data.Filter;
        const recordedAs = (r: PdfRef) => {
          const index = recorded.get(r);
          return index === undefined ? undefined : new Recorded(index);
        };
        objects.push({ data: swapRefs(data, recordedAs) as Record<string, unknown>, chunks });
        recorded.set(ref, objects.length - 1);
        end();
        if (ref === image.obj) {
          resolve({ width: image.width, height: image.height, orientation: image.orientation, objects });
        }
      };
      return ref;
    };
    try {
      image.embed(scratch);
    } catch (error) {
      reject(error);
    }
  });
}

/** Writes the recorded objects into `doc` and answers the image for `doc.image()`. */
function placeIn(doc: Doc, logo: LogoImage, label: string): object {
  const maker = doc as unknown as RefMaker;
  const made: PdfRef[] = [];
  for (const object of logo.objects) {
    const data = swapRefs(object.data, (r) => (r instanceof Recorded ? made[r.index] : undefined));
    const ref = maker.ref(data as Record<string, unknown>);
    for (const chunk of object.chunks) ref.write(chunk);
    ref.end();
    made.push(ref);
  }
  const obj = made[made.length - 1];
  return {
    label,
    width: logo.width,
    height: logo.height,
    orientation: logo.orientation,
    obj,
    embed() {},
  };
}

/**
 * Recent logos by digest (each a few hundred KB at most: the deflated image and mask), or `undefined` for a logo
 * pdfkit cannot draw safely (logo.ts) or could not embed.
 */
const logos = new LRUCache<string, Promise<LogoImage | undefined>>({ max: 16 });

export function logoImage(bytes: Buffer): Promise<LogoImage | undefined> {
  const key = createHash('sha256').update(bytes).digest('base64');
  let made = logos.get(key);
  if (!made) {
    made =
      logoProblem(bytes) === undefined ? record(bytes).catch(() => undefined) : Promise.resolve(undefined);
    logos.set(key, made);
  }
  return made;
}

const placed = new WeakMap<Doc, object>();

/** Draws the logo like `doc.image()`, its objects written once per document. */
export function drawLogo(
  doc: Doc,
  logo: LogoImage,
  x: number,
  y: number,
  options: PDFKit.Mixins.ImageOption,
): void {
  let image = placed.get(doc);
  if (!image) {
    image = placeIn(doc, logo, 'Logo');
    placed.set(doc, image);
  }
  doc.image(image as unknown as Buffer, x, y, options);
}
