// The letter's lines table read back with pdftotext -bbox: what a line's cells say and where, word by word.
import { readComprobanteView, renderComprobantePdf } from '../src';
import { twoTaxInvoiceXml, zeroRatedInvoiceXml } from './fixtures';
import { type Word, pageWords, pdfText, popplerAvailable } from './pdf-tools';

const tools = popplerAvailable();
const itTools = tools ? it : it.skip;

/** pdftotext keeps words but may re-space them: compare with runs of whitespace collapsed. */
const squash = (s: string) => s.replace(/\s+/g, ' ');

/** The words on the same text line as `anchor` (a line's CABYS code opens its row). */
const sameLine = (words: Word[], anchor: Word) => words.filter((w) => Math.abs(w.yMin - anchor.yMin) < 0.5);

/**
 * What the letter's tax column says on each line of a page without notes: the words between the right edges
 * of the "Descuento" and "Impuesto" headings (both columns are right-aligned), from a row's line number to
 * the next one's.
 */
function taxCells(words: Word[]): string[] {
  const header = (text: string) => words.find((w) => w.text === text)!;
  const [left, right] = [header('Descuento').xMax + 1, header('Impuesto').xMax + 1];
  const rowTops = words
    .filter((w) => /^\d+$/.test(w.text) && w.xMin < 40 && w.yMin > header('Impuesto').yMax)
    .map((w) => w.yMin);
  const bottom = words.find((w) => w.text === 'Medios')!.yMin;
  return rowTops.map((top, i) =>
    words
      .filter(
        (w) =>
          w.xMin > left && w.xMax < right && w.yMin >= top - 0.5 && w.yMin < (rowTops[i + 1] ?? bottom) - 0.5,
      )
      .sort((a, b) => a.yMin - b.yMin || a.xMin - b.xMin)
      .map((w) => w.text)
      .join(' '),
  );
}

describe('the letter’s tax column', () => {
  itTools(
    'when a line has several taxes, then it shows their sum under "Impuestos" and each one in its notes',
    async () => {
      const pdf = await renderComprobantePdf(readComprobanteView(twoTaxInvoiceXml()), { layout: 'carta' });
      const words = pageWords(pdf)[0]!;
      const cabys = words.find((w) => w.text === '2132100000100')!;
      const row = sameLine(words, cabys);
      expect(row.map((w) => w.text)).not.toContain('Selectivo');
      const label = row.find((w) => w.text === 'Impuestos');
      expect(label).toBeDefined();
      // Right under the label, right-aligned with it: 240,00 + 343,20.
      const sum = words.find(
        (w) =>
          w.text === '583,20' && Math.abs(w.yMin - label!.yMax) < 1 && Math.abs(w.xMax - label!.xMax) < 1,
      );
      expect(sum).toBeDefined();
      expect(squash(pdfText(pdf))).toContain(
        'Impuestos: Selectivo de consumo 10 % ₡ 240,00; IVA 13 % ₡ 343,20',
      );
    },
  );
});

describe('a line’s IVA at 0 %', () => {
  const view = readComprobanteView(zeroRatedInvoiceXml());
  /** Exenta (10), tarifa 0 % (01) and sin derecho a crédito (11): each named as the breakdown names it. */
  const names = ['IVA exenta', 'IVA tarifa 0 %', 'IVA tarifa 0 % sin derecho a crédito'];

  itTools('on the letter, the tax column names the rate code, not "IVA 0 %"', async () => {
    const words = pageWords(await renderComprobantePdf(view, { layout: 'carta' }))[0]!;
    expect(taxCells(words)).toEqual([...names.map((n) => `${n} 0,00`), 'IVA 13 % 130,00']);
  });

  itTools('on the ticket, the line and the breakdown row read the same', async () => {
    const text = squash(pdfText(await renderComprobantePdf(view, { layout: 'tiquete' })));
    for (const name of names) {
      expect(text).toContain(`${name} 0,00`);
      expect(text).toContain(`${name} ₡ 0,00`);
    }
    expect(text).not.toContain('IVA 0 %');
  });
});
