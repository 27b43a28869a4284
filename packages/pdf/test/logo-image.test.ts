// A logo's image objects are made by pdfkit once per logo and written into each document (src/logo-image.ts):
// every kind of image keeps what pdfkit gives it (soft mask, palette, JPEG stream), the bytes of a PDF do not
// depend on whether its logo was made before, and the logo is drawn on the page.
import { PNG } from 'pngjs';
import { renderComprobanteXmlPdf } from '../src';
import { surtidoInvoiceXml } from './fixtures';
import { firstPage, hasColour, popplerAvailable } from './pdf-tools';

const tools = popplerAvailable();
const itTools = tools ? it : it.skip;
const isBlue = (r: number, g: number, b: number) => b > 180 && r < 60 && g < 60;

/** A blue disc on a transparent square, `seed` in one corner pixel so each test has a logo of its own. */
function transparentLogo(seed: number, options: { colorType?: 6 | 2 } = {}): Buffer {
  const png = new PNG({ width: 80, height: 80, colorType: options.colorType ?? 6, inputHasAlpha: true });
  for (let y = 0; y < 80; y++) {
    for (let x = 0; x < 80; x++) {
      const i = (y * 80 + x) * 4;
      const inside = (x - 40) ** 2 + (y - 40) ** 2 < 30 ** 2;
      png.data[i] = x === 0 && y === 0 ? seed & 255 : 0;
      png.data[i + 1] = 0;
      png.data[i + 2] = inside ? 220 : 0;
      png.data[i + 3] = inside ? 255 : 0;
    }
  }
  return PNG.sync.write(png, { colorType: options.colorType ?? 6 });
}

const pdfOf = (logo: Buffer, layout?: 'carta' | 'tiquete') =>
  renderComprobanteXmlPdf(surtidoInvoiceXml(), { branding: { logo }, ...(layout ? { layout } : {}) });

describe('the logo in a PDF', () => {
  it('a transparent PNG keeps its soft mask, in both layouts', async () => {
    const logo = transparentLogo(1);
    for (const layout of ['carta', 'tiquete'] as const) {
      const pdf = (await pdfOf(logo, layout)).toString('latin1');
      expect(pdf).toMatch(/\/Subtype \/Image/);
      expect(pdf).toMatch(/\/SMask \d+ 0 R/);
    }
  });

  it('an opaque PNG is written without decoding (its rows keep their PNG predictor)', async () => {
    const pdf = (await pdfOf(transparentLogo(2, { colorType: 2 }))).toString('latin1');
    expect(pdf).toMatch(/\/Predictor 15/);
    expect(pdf).not.toMatch(/\/SMask/);
  });

  it('the bytes do not depend on whether the logo was made before', async () => {
    const logo = transparentLogo(3);
    const first = await pdfOf(logo);
    const again = await pdfOf(logo);
    expect(again.equals(first)).toBe(true);
    // Two renders at once, while the logo is being made, agree too.
    const fresh = transparentLogo(4);
    const [a, b] = await Promise.all([pdfOf(fresh), pdfOf(fresh)]);
    expect(a.equals(b)).toBe(true);
  });

  itTools('the logo is drawn on the page, from the first render and from the made objects', async () => {
    const logo = transparentLogo(5);
    for (let i = 0; i < 2; i++) expect(hasColour(firstPage(await pdfOf(logo)), isBlue)).toBe(true);
  });
});
