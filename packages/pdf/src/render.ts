// The entry point: a comprobante (its signed XML or its view) → PDF bytes, letter or 80 mm ticket, with the
// tenant's logo and footer. Pure: no I/O besides the fonts the package ships, read once.
import { renderLetter } from './letter';
import type { ComprobanteView } from './model';
import { isSupportedImage } from './pdf-kit';
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

export function renderComprobantePdf(view: ComprobanteView, options: RenderOptions = {}): Promise<Buffer> {
  const branding: Branding = { ...options.branding };
  if (branding.logo && !isSupportedImage(branding.logo)) delete branding.logo;
  const layout = options.layout ?? defaultLayout(view);
  return layout === 'tiquete' ? renderTicket(view, branding) : renderLetter(view, branding);
}

/** Reads the signed XML and renders it. */
export function renderComprobanteXmlPdf(xml: string, options: RenderOptions = {}): Promise<Buffer> {
  return renderComprobantePdf(readComprobanteView(xml), options);
}
