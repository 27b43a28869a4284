// A long document is laid out in turns of the event loop (pdf-kit.ts, turnAt): a tenant's 1,000-line invoice
// must not hold every other request and job while its PDF is drawn. The bytes do not change.
// A line taller than a letter page (1,000 taxes, which the contract allows) is split over pages, none of them
// blank and none written over its page number; a 1,000-line ticket goes on several pages, each under the
// 14,400 pt a PDF viewer must show (PDF 1.7, Annex C).
import { taxedLine } from '@cr/hacienda-xml/src/testing/tax-mothers';
import { type ComprobanteView, KIND_TITLES, readComprobanteView, renderComprobantePdf } from '../src';
import { newDoc, wrapLines } from '../src/pdf-kit';
import { fiveLineInvoice, line, sign, surtidoInvoiceXml } from './fixtures';
import { decodeQr, inkRatio, pageImage, pageSizes, pageWords, pdfText, popplerAvailable } from './pdf-tools';

const tools = popplerAvailable();
const itTools = tools ? it : it.skip;

const view = readComprobanteView(
  sign(
    fiveLineInvoice({
      detalleServicio: Array.from({ length: 400 }, (_, i) => {
        const l = line(i + 1, { precio: '1000.00' });
        l.detalle = `Servicio profesional de consultoría número ${i + 1}`;
        return l;
      }),
    }),
  ),
);

/** How many times other work got the event loop while `work` ran: a chain of setImmediate callbacks. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ turns: number; result: T }> {
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  const result = await work();
  running = false;
  return { turns, result };
}

describe('a 400-line document', () => {
  it.each(['carta', 'tiquete'] as const)(
    'in the %s layout gives other work the event loop while it is drawn, with the same bytes',
    async (layout) => {
      const { turns, result } = await turnsDuring(() => renderComprobantePdf(view, { layout }));
      // 400 lines are 19 turns of the letter (one before every 20th line; the ticket has more items). Drawn
      // in one go, other work got none.
      expect(turns).toBeGreaterThanOrEqual(19);
      expect((await renderComprobantePdf(view, { layout })).equals(result)).toBe(true);
    },
  );
});

describe('wrapLines', () => {
  it('wraps lines as pdfkit measures them', () => {
    const doc = newDoc({ margin: 36, title: 't', author: 'a', creationDate: new Date(0) });
    doc.addPage({ size: [612, 792] });
    doc.fontSize(6.5);
    const y = doc.y;
    const text = Array.from({ length: 60 }, (_, i) => `Otros: Cantonal${i} 0,01 % ₡ 10,00`).join('; ');
    const lines = wrapLines(doc, `${text}\nsegunda parte`, 200);
    // As many lines as heightOfString counts (pdfkit's own wrapping), none with trailing spaces.
    expect(lines.length * doc.currentLineHeight(true)).toBeCloseTo(
      doc.heightOfString(`${text}\nsegunda parte`, { width: 200 }),
      6,
    );
    expect(lines.length).toBeGreaterThan(10);
    expect(lines.every((l) => l === l.trimEnd())).toBe(true);
    expect(lines.join(' ').replace(/\s+/g, ' ')).toBe(`${text} segunda parte`.replace(/\s+/g, ' '));
    expect(doc.y).toBe(y); // the cursor is where it was
  });
});

/** letter.ts: text ends by y 742 (792 − 36 margin − 14); the page number line is drawn at 748. */
const TEXT_BOTTOM = 742;
const LETTER_HEIGHT = 792;
const TAXES = 1000;
/** The other taxes of the long line, one word each (Cantonal001 …) so they can be found wherever they wrap. */
const cantonal = (k: number) => `Cantonal${String(k).padStart(3, '0')}`;

/** An FE whose line 1 carries the most taxes a line may (IVA and 999 others): its notes fill pages. */
function manyTaxesInvoice(): ComprobanteView {
  const taxed = taxedLine(1, {
    cabys: '2132100000100',
    precio: '100000.00',
    impuestos: [
      { codigo: '01', codigoTarifa: '08', tarifa: '13' },
      ...Array.from({ length: TAXES - 1 }, (_, i) => ({
        codigo: '99' as const,
        codigoImpuestoOtro: cantonal(i + 1),
        tarifa: '0.01',
      })),
    ],
  });
  return readComprobanteView(
    sign(fiveLineInvoice({ numeroReferencia: 31, detalleServicio: [taxed, line(2), line(3)] })),
  );
}

/**
 * Every page: nothing but its page number below the text bottom, and something above it (words and ink:
 * no page is blank; a page of one narrow column of taxes has about 1.5 % ink at 50 dpi, a blank one 0).
 * Returns the words of every page.
 */
function expectLetterPages(view: ComprobanteView, pdf: Buffer): string[][] {
  const pages = pageWords(pdf);
  pages.forEach((words, i) => {
    const strip = words.filter((w) => w.yMax > TEXT_BOTTOM + 0.5).map((w) => w.text);
    const body = words.filter((w) => w.yMax <= TEXT_BOTTOM + 0.5);
    const ink = inkRatio(pageImage(pdf, i + 1, 50), TEXT_BOTTOM / LETTER_HEIGHT);
    expect({ page: i + 1, strip: strip.join(' '), body: body.length > 0, ink: ink > 0.005 }).toEqual({
      page: i + 1,
      strip: `${KIND_TITLES[view.kind]} ${view.consecutivo} · Página ${i + 1} de ${pages.length}`,
      body: true,
      ink: true,
    });
  });
  return pages.map((words) => words.map((w) => w.text));
}

describe('a letter row taller than a page', () => {
  itTools(
    'a line with 1,000 taxes is split over pages: none blank, none written over its page number',
    async () => {
      const view = manyTaxesInvoice();
      const pdf = await renderComprobantePdf(view, { layout: 'carta' });
      const pages = expectLetterPages(view, pdf);
      expect(pages.length).toBeGreaterThan(3);
      const words = new Set(pages.flat());
      const missing = Array.from({ length: TAXES - 1 }, (_, i) => cantonal(i + 1)).filter(
        (w) => !words.has(w),
      );
      expect(missing).toEqual([]);
      // Its pages after the first say which line goes on; the lines after it and the total follow.
      expect(pages[1]!.join(' ')).toContain('Línea 1 (continuación)');
      const text = pages.flat().join(' ');
      expect(text).toContain('Servicio de prueba 3');
      expect(pages[pages.length - 1]).toContain('TOTAL');
      expect((await renderComprobantePdf(view, { layout: 'carta' })).equals(pdf)).toBe(true);
    },
    60_000,
  );

  itTools(
    'a surtido component with hundreds of taxes goes on under its continuation title',
    async () => {
      const view = readComprobanteView(surtidoInvoiceXml());
      // ImpuestoSurtido allows 1,000 per component: given to the reader's view as a received XML would.
      const surtido = view.lineas[2]!.surtido;
      const tax = surtido[0]!.impuestos[0]!;
      surtido[0] = { ...surtido[0]!, impuestos: Array.from({ length: 400 }, () => tax) };
      const pdf = await renderComprobantePdf(view, { layout: 'carta' });
      const pages = expectLetterPages(view, pdf);
      expect(pages.length).toBeGreaterThan(3);
      expect(pages[2]!.join(' ')).toContain('Línea 3 (continuación)');
      // The 400 taxes of the first component (one "IVA 13 %" each) and the other 19 components' own.
      const iva = pages.flat().filter((w, i, all) => w === 'IVA' && all[i + 1] === '13');
      expect(iva.length).toBeGreaterThanOrEqual(400 + 19);
    },
    60_000,
  );
});

/** ticket.ts: the tallest page; PDF viewers need not show a page side over 14,400 pt. */
const TICKET_PAGE_MAX = 14_000;
const TICKET_LINES = 1000;

describe('a 1,000-line ticket', () => {
  itTools(
    'goes on pages of 80 mm no taller than 14,000 pt, every line there, the QR on the last',
    async () => {
      const view = readComprobanteView(
        sign(
          fiveLineInvoice({
            numeroReferencia: 32,
            detalleServicio: Array.from({ length: TICKET_LINES }, (_, i) =>
              line(i + 1, { precio: '1000.00' }),
            ),
          }),
        ),
      );
      const pdf = await renderComprobantePdf(view, { layout: 'tiquete' });
      const sizes = pageSizes(pdf);
      expect(sizes.length).toBeGreaterThan(1);
      for (const size of sizes) {
        expect(size.width).toBeCloseTo(226.77, 1);
        expect(size.height).toBeLessThanOrEqual(TICKET_PAGE_MAX);
      }
      // Every line once, in order, whole on its page ("N. Servicio de prueba N" and its amounts).
      const pages = pdfText(pdf).split('\f').slice(0, sizes.length);
      const numbers = pages.flatMap((p) =>
        [...p.matchAll(/^\s*(\d+)\. Servicio de prueba (\d+)\s*$/gm)].map((m) => Number(m[1])),
      );
      expect(numbers).toEqual(Array.from({ length: TICKET_LINES }, (_, i) => i + 1));
      pages.forEach((p, i) => {
        expect(p.trim().split('\n').pop()?.trim()).toBe(`Página ${i + 1} de ${sizes.length}`);
        expect(p.trim().split('\n').at(-2)?.trim()).not.toMatch(/Servicio de prueba/);
      });
      const last = sizes[sizes.length - 1]!;
      const bottom = pageImage(pdf, sizes.length, 150, { y: last.height - 320, height: 320 });
      expect(decodeQr(bottom)).toBe(view.clave);
      expect((await renderComprobantePdf(view, { layout: 'tiquete' })).equals(pdf)).toBe(true);
    },
    60_000,
  );
});
