// The letter's lines table read back with pdftotext -bbox: what a line's cells say and where, word by word.
import { readComprobanteView, renderComprobantePdf } from '../src';
import { twoTaxInvoiceXml } from './fixtures';
import { type Word, pageWords, pdfText, popplerAvailable } from './pdf-tools';

const tools = popplerAvailable();
const itTools = tools ? it : it.skip;

/** pdftotext keeps words but may re-space them: compare with runs of whitespace collapsed. */
const squash = (s: string) => s.replace(/\s+/g, ' ');

/** The words on the same text line as `anchor` (a line's CABYS code opens its row). */
const sameLine = (words: Word[], anchor: Word) => words.filter((w) => Math.abs(w.yMin - anchor.yMin) < 0.5);

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
