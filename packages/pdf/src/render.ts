// The entry point: a comprobante (its signed XML or its view) → PDF bytes, letter or 80 mm ticket, with the
// tenant's logo and footer. Pure: no I/O besides the fonts the package ships, read once.
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { renderLetter } from './letter';
import { logoProblem } from './logo';
import type { ComprobanteView } from './model';
import { readComprobanteView } from './read-comprobante';
import { renderTicket } from './ticket';

export type PdfLayout = 'carta' | 'tiquete';

export interface Branding {
  /** PNG or JPEG bytes. */
  logo?: Buffer;
  /** Free text under Hacienda's legend (e.g. bank accounts, a thank-you). */
  footer?: string;
}

export interface RenderOptions {
  /** Default: `tiquete` for a TE, `carta` for every other kind. */
  layout?: PdfLayout;
  branding?: Branding;
}

export function defaultLayout(view: Pick<ComprobanteView, 'kind'>): PdfLayout {
  return view.kind === 'TE' ? 'tiquete' : 'carta';
}

/**
 * The verdict on each recent logo, by digest: a tenant's logo is the same bytes in every document, and checking
 * it inflates its image data.
 */
const logoVerdicts = new LRUCache<string, { problem: string | undefined }>({ max: 64 });

/** Whether pdfkit can draw this logo safely (see logo.ts); one that cannot is left out of the PDF. */
function isUsableLogo(logo: Buffer): boolean {
  const key = createHash('sha256').update(logo).digest('base64');
  let verdict = logoVerdicts.get(key);
  if (!verdict) {
    verdict = { problem: logoProblem(logo) };
    logoVerdicts.set(key, verdict);
  }
  return verdict.problem === undefined;
}

export function renderComprobantePdf(view: ComprobanteView, options: RenderOptions = {}): Promise<Buffer> {
  const branding: Branding = { ...options.branding };
  // Logos stored before they were checked whole (logo.ts) may still be ones pdfkit cannot read safely.
  if (branding.logo && !isUsableLogo(branding.logo)) delete branding.logo;
  const layout = options.layout ?? defaultLayout(view);
  return layout === 'tiquete' ? renderTicket(view, branding) : renderLetter(view, branding);
}

/** Reads the signed XML and renders it. */
export function renderComprobanteXmlPdf(xml: string, options: RenderOptions = {}): Promise<Buffer> {
  return renderComprobantePdf(readComprobanteView(xml), options);
}
