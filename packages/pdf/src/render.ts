// The entry point: a comprobante (its signed XML or its view) → PDF bytes, letter or 80 mm ticket, with the
// tenant's logo and footer. Pure: no I/O besides the fonts the package ships, read once.
import { renderLetter } from './letter';
import { type DrawnBranding, logoImage } from './logo-image';
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

export async function renderComprobantePdf(
  view: ComprobanteView,
  options: RenderOptions = {},
): Promise<Buffer> {
  const { logo, footer } = options.branding ?? {};
  // A logo pdfkit cannot read safely (logo.ts), e.g. one stored before logos were checked whole, is left out.
  const image = logo ? await logoImage(logo) : undefined;
  const branding: DrawnBranding = { ...(image ? { logo: image } : {}), ...(footer ? { footer } : {}) };
  const layout = options.layout ?? defaultLayout(view);
  return layout === 'tiquete' ? renderTicket(view, branding) : renderLetter(view, branding);
}

/** Reads the signed XML and renders it. */
export function renderComprobanteXmlPdf(xml: string, options: RenderOptions = {}): Promise<Buffer> {
  return renderComprobantePdf(readComprobanteView(xml), options);
}
