// The letter's summary (payment means, references and observations beside the totals) read back page by
// page with pdftotext -bbox: whatever the number of lines before it, no text runs into the page-number strip
// and the totals stay with their section, beside it or right after it, never orphaned mid-page.
import type { DocumentRequest } from '@cr/contracts';
import { KIND_TITLES, type ComprobanteView, readComprobanteView, renderComprobantePdf } from '../src';
import { REFERENCED_CLAVE, fiveLineInvoice, line, longLabelLines, sign } from './fixtures';
import { type Word, overlappingWords, pageWords, popplerAvailable } from './pdf-tools';

const tools = popplerAvailable();
const itTools = tools ? it : it.skip;

/** letter.ts: text ends by y 742 (792 − 36 margin − 14); the page number line is drawn at 748. */
const TEXT_BOTTOM = 742;
/** The totals column's left edge (612 − 36 − 240) and the most its rows take (the TOTAL's rule included). */
const TOTALS_X = 336;
const TOTALS_MAX_HEIGHT = 160;

const pad = (i: number) => `${i}`.padStart(2, '0');
const FILLER =
  'devolución parcial de mercadería con defecto de fabricación según el acta de recepción firmada por ' +
  'ambas partes y el informe técnico del proveedor';

/** Ten references of the longest reason (180), each opening with RAnn and closing with RZnn. */
function references(): DocumentRequest['informacionReferencia'] {
  return Array.from({ length: 10 }, (_, i) => ({
    tipoDocumento: '01',
    numero: REFERENCED_CLAVE,
    fechaEmision: '2026-05-20T10:00:00-06:00',
    codigo: '01',
    razon: `RA${pad(i)} ${FILLER}`.padEnd(174, ' y más').slice(0, 174) + ` RZ${pad(i)}`,
  })) as never;
}

/** A credit note with `lines` lines before its summary and ten long references in it. */
function creditNote(lines: number): ComprobanteView {
  return readComprobanteView(
    sign(
      fiveLineInvoice({
        tipoDoc: '3',
        numeroReferencia: 7,
        detalleServicio: Array.from({ length: lines }, (_, i) => line(i + 1, { precio: '1000.00' })),
        informacionReferencia: references(),
      }),
    ),
  );
}

const OBSERVATIONS = 20;

/** The same with twenty observations of 300 characters (OAnn … OZnn): a column longer than a page. */
function withObservations(view: ComprobanteView): ComprobanteView {
  const otros = Array.from(
    { length: OBSERVATIONS },
    (_, i) => `OA${pad(i)} ${FILLER} ${FILLER}`.padEnd(294, ' y más').slice(0, 294) + ` OZ${pad(i)}`,
  );
  // OtroTexto (unbounded, 500 characters each) is read from the XML of a received comprobante; the
  // engine does not write it, so it goes into the view the reader would give.
  return { ...view, otros };
}

/** The one word `text` of the document (fails if it is missing, or there twice). */
function only(pages: Word[][], text: string): Word {
  const found = pages.flat().filter((w) => w.text === text);
  expect({ text, times: found.length }).toEqual({ text, times: 1 });
  return found[0]!;
}

/** A title of the summary's column (payment means, references, observations), at the left margin. */
const isTitle = (w: Word) =>
  /^(Medios|Documentos|Observaciones)$/.test(w.text) && Math.abs(w.xMin - 36) < 0.5;

/** Nothing but the page number below the text bottom, on any page. */
function expectStripClear(view: ComprobanteView, pages: Word[][]): void {
  pages.forEach((words, i) => {
    const strip = words.filter((w) => w.yMax > TEXT_BOTTOM + 0.5).map((w) => w.text);
    expect(strip.join(' ')).toBe(
      `${KIND_TITLES[view.kind]} ${view.consecutivo} · Página ${i + 1} de ${pages.length}`,
    );
  });
}

/** Checks the layout; returns where the totals went: with the column's end, or opening the next page. */
function expectSummaryLaidOut(view: ComprobanteView, pages: Word[][], markers: string[]): 'with' | 'next' {
  expectStripClear(view, pages);
  // Every item of the column is there once, in order.
  const column = markers.map((m) => only(pages, m));
  column.reduce((prev, w) => {
    expect(w.page * 1000 + w.yMin).toBeGreaterThan(prev.page * 1000 + prev.yMin);
    return w;
  });
  const last = column[column.length - 1]!;
  const total = only(pages, 'TOTAL');
  const venta = pages.flat().find((w, i, all) => w.text === 'venta' && all[i - 1]?.text === 'Total');
  expect(venta?.page).toBe(total.page);
  expect(total.xMin).toBeCloseTo(TOTALS_X, 0);
  if (total.page === last.page) {
    // Beside the column or right under it: not above where the column starts on this page, and not
    // further below its end than the totals themselves take.
    const top = Math.min(
      ...pages[total.page - 1]!.filter((w) => isTitle(w) || markers.includes(w.text)).map((w) => w.yMin),
    );
    expect(venta!.yMin).toBeGreaterThanOrEqual(top - 0.5);
    expect(total.yMin).toBeLessThan(last.yMax + TOTALS_MAX_HEIGHT);
    return 'with';
  }
  // The column ended at the foot of the page before: the totals open the next one.
  expect(total.page).toBe(last.page + 1);
  const first = [...pages[total.page - 1]!].sort((a, b) => a.yMin - b.yMin)[0]!;
  expect(first.xMin).toBeCloseTo(TOTALS_X, 0);
  return 'next';
}

const refMarkers = Array.from({ length: 10 }, (_, i) => [`RA${pad(i)}`, `RZ${pad(i)}`]).flat();
const obsMarkers = Array.from({ length: OBSERVATIONS }, (_, i) => [`OA${pad(i)}`, `OZ${pad(i)}`]).flat();
// Forty-five line counts move the summary across every point of pages 1 to 3 (a line row is about 14 pt).
const LINE_COUNTS = Array.from({ length: 45 }, (_, i) => i + 1);

/** Renders the view for every line count and checks each; returns the pages the column ended on and
 * where the totals went, so a test can tell its documents did cross the page boundaries it means to. */
async function laidOutForEveryCount(
  make: (lines: number) => ComprobanteView,
  markers: string[],
): Promise<{ endPages: Set<number>; outcomes: Set<string> }> {
  const endPages = new Set<number>();
  const outcomes = new Set<string>();
  for (const lines of LINE_COUNTS) {
    const view = make(lines);
    const pages = pageWords(await renderComprobantePdf(view, { layout: 'carta' }));
    try {
      outcomes.add(expectSummaryLaidOut(view, pages, markers));
    } catch (error) {
      throw new Error(`${lines} lines: ${(error as Error).message}`);
    }
    endPages.add(pages.flat().find((w) => w.text === markers[markers.length - 1])!.page);
  }
  return { endPages, outcomes };
}

describe('the letter summary', () => {
  itTools('with ten long references stays out of the page-number strip and keeps its totals', async () => {
    const { endPages } = await laidOutForEveryCount(creditNote, refMarkers);
    // The column (about 500 pt, the totals beside it) ends on page 2 and on page 3 as the lines grow.
    expect([...endPages]).toEqual([2, 3]);
  });

  itTools('longer than a page flows over pages and ends with its totals', async () => {
    const { outcomes } = await laidOutForEveryCount(
      (lines) => withObservations(creditNote(lines)),
      [...refMarkers, ...obsMarkers],
    );
    // Some counts leave room for the totals under the column and some push them to the next page.
    expect([...outcomes].sort()).toEqual(['next', 'with']);
  });
});

/** An FE whose summary rows have long labels, after `filler` more lines. */
function longLabelInvoice(filler: number): ComprobanteView {
  const fillers = Array.from({ length: filler }, (_, i) => line(i + 4, { precio: '1000.00' }));
  return readComprobanteView(
    sign(fiveLineInvoice({ numeroReferencia: 26, detalleServicio: [...longLabelLines(), ...fillers] })),
  );
}

describe('the letter totals', () => {
  itTools(
    'when labels wrap, no row is drawn over the next and the block stays out of the page-number strip',
    async () => {
      const totalPages = new Set<number>();
      for (const filler of LINE_COUNTS) {
        const view = longLabelInvoice(filler);
        const pages = pageWords(await renderComprobantePdf(view, { layout: 'carta' }));
        try {
          for (const words of pages)
            expect(overlappingWords(words).map(([a, b]) => `${a.text} over ${b.text}`)).toEqual([]);
          expectStripClear(view, pages);
          // Each long label is there whole (its wrapped words too), and the TOTAL with the rest.
          const text = pages
            .flat()
            .map((w) => w.text)
            .join(' ');
          for (const label of [
            'Impuesto asumido por el emisor',
            'Específico bebidas envasadas sin alcohol y jabones',
            'IVA tarifa 0 % sin derecho a crédito',
          ])
            expect(text).toContain(label);
          const total = only(pages, 'TOTAL');
          const neta = pages.flat().find((w, i, all) => w.text === 'neta' && all[i - 1]?.text === 'Venta');
          expect(neta?.page).toBe(total.page);
          totalPages.add(total.page);
        } catch (error) {
          throw new Error(`${filler} more lines: ${(error as Error).message}`);
        }
      }
      // As the lines grow the summary crosses page boundaries, a point of the page at a time.
      expect(totalPages.size).toBeGreaterThan(1);
    },
  );
});
