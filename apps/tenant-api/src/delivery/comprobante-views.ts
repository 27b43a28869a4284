// The view of a signed XML (what the PDF, the e-mail's recipients and its text are read from), shared by the
// jobs of one document: its webhook job renders the PDF and its e-mail job chooses the recipients and writes
// the message, within milliseconds of each other, and reading the view parses the whole XML (~0.45 ms of the
// tenant-api's CPU for the 5-line invoice; docs/performance.md, "tenant-api (pipeline cost): what changed
// it"). Keyed by the XML's text itself, so a hit is that very text's view; frozen, so no reader can change
// what another one reads.
import { type ComprobanteView, readComprobanteView } from '@cr/pdf';
import { LRUCache } from 'lru-cache';

// Bounded by size as well as count: a 1,000-line invoice's XML is ~1 MB. A view takes about as much memory
// as its text, hence twice the text's length per entry.
const views = new LRUCache<string, ComprobanteView>({
  max: 32,
  maxSize: 8 * 1024 * 1024,
  sizeCalculation: (_view, xml) => Math.max(1, xml.length * 2),
});

/** The view of `xml`, read once for all the jobs that need it close together. Throws as reading it does. */
export function comprobanteView(xml: string): ComprobanteView {
  let view = views.get(xml);
  if (!view) {
    view = deepFreeze(readComprobanteView(xml));
    views.set(xml, view);
  }
  return view;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !ArrayBuffer.isView(value) && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
