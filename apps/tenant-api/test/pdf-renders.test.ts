// The PDF renders the webhook, the e-mail and the download share: the same document with the same branding
// and layout is rendered once (the same bytes, the same buffer), and anything the output depends on — the
// XML, the footer, the logo, the layout — gives a render of its own.
import { fiveLineInvoice, sign as signedXml, surtidoInvoiceXml } from '../../../packages/pdf/test/fixtures';
import { makeLogo } from '../../../packages/pdf/test/pdf-tools';
import { renderPdf } from '../src/delivery/render-document-pdf';

const branding = (footer: string | null, logo: Buffer | null = null) => ({ logo, logo_type: null, footer });

describe('renderPdf', () => {
  const xml = signedXml(fiveLineInvoice());
  const other = surtidoInvoiceXml();

  it('when the same document is rendered again with the same branding, then the first render is shared', async () => {
    const first = renderPdf(xml, branding('Gracias'));
    const again = renderPdf(xml, branding('Gracias'));
    expect(again).toBe(first); // shared while in flight
    const bytes = await first;
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(await renderPdf(xml, branding('Gracias'))).toBe(bytes);
  });

  it('when the XML, the footer, the logo or the layout differs, then it is rendered on its own', async () => {
    const base = await renderPdf(xml, branding('Gracias'));
    const variants = await Promise.all([
      renderPdf(other, branding('Gracias')),
      renderPdf(xml, branding('Gracias por su compra')),
      renderPdf(xml, branding('Gracias', makeLogo())),
      renderPdf(xml, branding('Gracias'), { layout: 'tiquete' }),
      renderPdf(xml, undefined),
    ]);
    expect(variants.map((v) => v !== base && !v.equals(base))).toEqual(variants.map(() => true));
  });

  it('when more documents are rendered than are kept, then the oldest render is made again', async () => {
    const first = await renderPdf(xml, branding('uno'));
    for (let i = 0; i < 40; i++) await renderPdf(xml, branding(`pie ${i}`));
    const again = await renderPdf(xml, branding('uno'));
    expect(again).not.toBe(first);
    expect(again.equals(first)).toBe(true); // deterministic: the same bytes
  });
});
