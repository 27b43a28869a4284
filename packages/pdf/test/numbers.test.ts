// Numbers as wide as the XSD allows, read back with pdftotext -bbox: each one on one line of the page, never
// split where a line breaks (`9 999,999` printed as `9` over `999,999` reads as two numbers).
import {
  type ComprobanteView,
  formatMoney,
  formatNumber,
  formatPrice,
  formatQuantity,
  readComprobanteView,
  renderComprobantePdf,
} from '../src';
import { fiveLineInvoice, line, sign } from './fixtures';
import { type Word, pageWords, popplerAvailable } from './pdf-tools';

const tools = popplerAvailable();
const itTools = tools ? it : it.skip;

/** 13 integer digits: the most a DecimalDineroType amount has (18 digits, 5 of them decimals). */
const AMOUNT_MAX = '9999999999999.99';

/**
 * Large lines as the engine builds them, and one with the widest numbers the XSD allows: line 1000 (the most
 * lines), a quantity of 16 integer digits, a price with 5 decimals and 13-digit amounts. The view is edited
 * as a received XML would give it (the engine would not sign such a line).
 */
function largeNumbersView(): ComprobanteView {
  const view = readComprobanteView(
    sign(
      fiveLineInvoice({
        numeroReferencia: 28,
        detalleServicio: [
          line(1, { cantidad: 1000, precio: '1234567890.12' }),
          line(2, { cantidad: 9999.999, precio: '99999.99999' }),
        ],
      }),
    ),
  );
  const widest = {
    ...view.lineas[1]!,
    numero: '1000',
    cantidad: '9999999999999999',
    precioUnitario: '9999999999999.99999',
    montoTotal: AMOUNT_MAX,
    descuentos: [{ monto: '8888888888888.88' }],
    impuestoNeto: AMOUNT_MAX,
    montoTotalLinea: AMOUNT_MAX,
  };
  return {
    ...view,
    lineas: [...view.lineas, widest],
    resumen: { ...view.resumen, totalComprobante: AMOUNT_MAX },
  };
}

/**
 * Every place `text` is printed whole: its words (pdftotext splits it at its no-break spaces) side by side on
 * one line of one page.
 */
function printedWhole(pages: Word[][], text: string): Word[][] {
  const parts = text.split(/\s/);
  const whole: Word[][] = [];
  for (const words of pages) {
    for (const first of words.filter((w) => w.text === parts[0])) {
      const found = [first];
      for (const part of parts.slice(1)) {
        const prev = found[found.length - 1]!;
        const next = words.find(
          (w) =>
            w.text === part &&
            Math.abs(w.yMin - prev.yMin) < 0.5 &&
            w.xMin > prev.xMax &&
            w.xMin - prev.xMax < 4,
        );
        if (!next) break;
        found.push(next);
      }
      if (found.length === parts.length) whole.push(found);
    }
  }
  return whole;
}

const height = (w: Word) => w.yMax - w.yMin;

describe('a number in the PDF', () => {
  const view = largeNumbersView();
  const moneda = view.resumen.codigoMoneda;

  /** What each line and the summary show as numbers. */
  const numbers = [
    ...view.lineas.flatMap((l) => [
      formatQuantity(l.cantidad),
      formatPrice(l.precioUnitario),
      formatNumber(l.impuestoNeto),
      formatNumber(l.montoTotalLinea),
      ...l.descuentos.map((d) => formatNumber(d.monto)),
    ]),
    formatMoney(view.resumen.totalImpuesto, moneda),
    formatMoney(view.resumen.totalComprobante, moneda),
  ];

  itTools.each(['carta', 'tiquete'] as const)('is on one line, however wide (%s)', async (layout) => {
    const pages = pageWords(await renderComprobantePdf(view, { layout }));
    const split = numbers.filter((n) => printedWhole(pages, n).length === 0);
    expect(split).toEqual([]);
  });

  itTools(
    'on the letter, a tax and a line total of 13 digits keep the table’s size, and so does the TOTAL',
    async () => {
      const pages = pageWords(await renderComprobantePdf(view, { layout: 'carta' }));
      const words = pages.flat();
      const cabys = words.find((w, i) => w.text === '8314300000000' && words[i - 1]?.text === '1000')!;
      expect(cabys).toBeDefined();
      const row = words.filter((w) => Math.abs(w.yMin - cabys.yMin) < 0.5);
      const amounts = printedWhole(pages, formatNumber(AMOUNT_MAX));
      // The line total ends the row; the tax is under its label ("IVA 13 %"), right-aligned with it.
      const end = (found: Word[]) => found[found.length - 1]!;
      const lineTotal = amounts.find((a) => Math.abs(a[0]!.yMin - cabys.yMin) < 0.5 && end(a).xMax > 570);
      const percent = row.filter((w) => w.text === '%').sort((a, b) => b.xMax - a.xMax)[0]!;
      const tax = amounts.find(
        (a) => Math.abs(a[0]!.yMin - percent.yMax) < 1 && Math.abs(end(a).xMax - percent.xMax) < 1,
      );
      expect(lineTotal).toBeDefined();
      expect(tax).toBeDefined();
      for (const a of [lineTotal!, tax!]) expect(height(a[0]!)).toBeCloseTo(height(cabys), 1);
      // Beside its label, at its size.
      const label = words.find((w) => w.text === 'TOTAL')!;
      const total = printedWhole(pages, formatMoney(AMOUNT_MAX, 'CRC')).find(
        (a) => Math.abs(a[0]!.yMin - label.yMin) < 0.5,
      );
      expect(total).toBeDefined();
      expect(height(total![0]!)).toBeCloseTo(height(label), 1);
    },
  );
});
