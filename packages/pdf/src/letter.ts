// The letter layout (8.5 × 11 in): header with logo and title, issuer and receptor side by side, the lines
// table (repeated header on every page), other charges, payment and references beside the totals, then
// the QR with the clave, Hacienda's legend, the tenant's footer and page numbers.
import { KIND_TITLES, LEYENDA_HACIENDA, TOTALES, label } from './catalogs';
import {
  formatDateTime,
  formatMoney,
  formatNumber,
  formatPrice,
  formatQuantity,
  formatRate,
  sumAmounts,
} from './format';
import type { ComponenteSurtido, ComprobanteView, Linea } from './model';
import { BOLD, type Doc, REGULAR, collect, documentDate, drawQr, newDoc, turnAt, wrapLines } from './pdf-kit';
import { type DrawnBranding, drawLogo } from './logo-image';
import {
  SURTIDO_TITLE,
  componenteDetalle,
  componenteUnidad,
  condicionText,
  desgloseRows,
  impuestoCorto,
  impuestoShort,
  ivaDevueltoRow,
  lineNotes,
  mediosPagoLines,
  monedaText,
  partyLines,
  partyTitles,
  referenciaText,
} from './sections';

const W = 612;
const H = 792;
const M = 36;
const CONTENT = W - 2 * M;
const BOTTOM = H - M - 14; // room for the page number line
/** What a fresh page holds between its top margin and BOTTOM. */
const PAGE_ROOM = BOTTOM - M;
/** The table's header row: what a page the table continues on holds less for its rows. */
const TABLE_HEADER = 14;
/** What a fresh page holds for a line and what goes with it, under the table header. */
const ROW_ROOM = PAGE_ROOM - TABLE_HEADER;
/**
 * Where a row taller than ROW_ROOM starts: on this page if a few of its lines fit (it is split anyway, and
 * a page turned for nothing would stay almost empty), otherwise on the next.
 */
const ROW_START = 24;
const GRAY = '#555555';
const RULE = '#999999';

interface BlockLine {
  text: string;
  font?: string;
  size?: number;
  color?: string;
  /** A section title: it stays on the page of the line after it. */
  title?: boolean;
}

interface Column {
  title: string;
  width: number;
  align: 'left' | 'right';
  /** Its cells hold numbers: one too wide for the column is drawn smaller, never split over two lines. */
  numeric?: boolean;
}

/** The table's columns at their usual widths: tableColumns widens the numeric ones a document needs wider. */
const COLUMNS: Column[] = [
  { title: '#', width: 16, align: 'left', numeric: true },
  { title: 'Código CABYS', width: 68, align: 'left' },
  { title: 'Descripción', width: 158, align: 'left' },
  { title: 'Cant.', width: 38, align: 'right', numeric: true },
  { title: 'Unidad', width: 34, align: 'left' },
  { title: 'Precio unit.', width: 62, align: 'right', numeric: true },
  { title: 'Descuento', width: 52, align: 'right', numeric: true },
  { title: 'Impuesto', width: 50, align: 'right', numeric: true },
  { title: 'Total línea', width: 62, align: 'right', numeric: true },
];
const LINE_SIZE = 7.5;
const DESCRIPTION_COLUMN = 2;
/** What the description keeps when the numbers need its room. */
const DESCRIPTION_MIN = 80;
/**
 * The order the numeric columns get the description's room in: the line number (up to 1000) and the amounts
 * first, so a tax and a line total of 13 integer digits (the XSD's DecimalDineroType) always fit at full
 * size; then the quantity (up to 16 digits), the price (up to 5 decimals) and the discount, which are drawn
 * smaller when the room runs out (fitSize).
 */
const WIDEN_FIRST = ['#', 'Total línea', 'Impuesto', 'Cant.', 'Precio unit.', 'Descuento'].map((title) =>
  COLUMNS.findIndex((c) => c.title === title),
);

/**
 * The table's columns for a document whose rows are `rows`: each numeric column as wide as its widest number
 * (a number is one word: its no-break spaces do not wrap), never narrower than usual, the description
 * narrower by as much. Documents with ordinary amounts keep the usual widths.
 */
function tableColumns(doc: Doc, rows: string[][]): Column[] {
  doc.font(REGULAR).fontSize(LINE_SIZE);
  const columns = COLUMNS.map((c) => ({ ...c }));
  let room = COLUMNS[DESCRIPTION_COLUMN]!.width - DESCRIPTION_MIN;
  for (const i of WIDEN_FIRST) {
    const column = columns[i]!;
    const needed = Math.max(0, ...rows.map((cells) => widestWord(doc, cells[i] ?? ''))) + 4;
    const more = Math.min(room, Math.max(0, needed - column.width));
    column.width += more;
    columns[DESCRIPTION_COLUMN]!.width -= more;
    room -= more;
  }
  return columns;
}

/** The width of the widest word of `text` in the current font and size: pdfkit breaks lines between words. */
function widestWord(doc: Doc, text: string): number {
  return Math.max(0, ...text.split(/[ \n]/).map((word) => doc.widthOfString(word)));
}

class LetterWriter {
  y = M;
  constructor(private readonly doc: Doc) {}

  newPage(): void {
    this.doc.addPage({ size: [W, H], margin: M });
    this.y = M;
  }

  /** Starts a new page unless `height` still fits; returns whether it did. */
  ensure(height: number): boolean {
    if (this.y + height <= BOTTOM) return false;
    this.newPage();
    return true;
  }

  text(
    str: string,
    x: number,
    width: number,
    opts: { font?: string; size?: number; color?: string; align?: 'left' | 'right' | 'center' } = {},
  ): number {
    const d = this.doc;
    d.font(opts.font ?? REGULAR)
      .fontSize(opts.size ?? 8)
      .fillColor(opts.color ?? '#000000');
    // pdfkit leaves its cursor under the text it drew: that is the height (measuring it first with
    // heightOfString wrapped every string twice).
    d.text(str, x, this.y, { width, align: opts.align ?? 'left' });
    return d.y - this.y;
  }

  /** A block of lines at x; returns its height (y is not moved). */
  block(lines: BlockLine[], x: number, width: number): number {
    const start = this.y;
    for (const l of lines) this.y += this.text(l.text, x, width, l) + 1;
    const h = this.y - start;
    this.y = start;
    return h;
  }

  /** The height `block` gives a line at `width`, before drawing it: as pdfkit will wrap it. */
  measure(line: BlockLine, width: number): number {
    this.doc.font(line.font ?? REGULAR).fontSize(line.size ?? 8);
    return this.doc.heightOfString(line.text, { width }) + 1;
  }

  shortRule(x: number, width: number): void {
    this.doc
      .moveTo(x, this.y)
      .lineTo(x + width, this.y)
      .lineWidth(0.5)
      .strokeColor(RULE)
      .stroke();
    this.y += 3;
  }

  rule(): void {
    this.doc
      .moveTo(M, this.y)
      .lineTo(W - M, this.y)
      .lineWidth(0.5)
      .strokeColor(RULE)
      .stroke();
    this.y += 4;
  }
}

function header(w: LetterWriter, doc: Doc, v: ComprobanteView, branding: DrawnBranding): void {
  const top = w.y;
  let leftBottom = top;
  if (branding.logo) {
    drawLogo(doc, branding.logo, M, top, { fit: [170, 64] });
    leftBottom = top + 68;
  }
  const rx = M + 250;
  const rw = CONTENT - 250;
  const right = w.block(
    [
      { text: KIND_TITLES[v.kind].toUpperCase(), font: BOLD, size: 14 },
      { text: `N.º consecutivo: ${v.consecutivo}`, font: BOLD, size: 9 },
      { text: `Fecha de emisión: ${formatDateTime(v.fechaEmision)}`, size: 9 },
      ...(v.codigoActividadEmisor
        ? [{ text: `Actividad económica: ${v.codigoActividadEmisor}`, size: 9 }]
        : []),
    ],
    rx,
    rw,
  );
  w.y = Math.max(leftBottom, top + right) + 4;
  w.text('Clave numérica', M, CONTENT, { font: BOLD, size: 7, color: GRAY });
  w.y += 9;
  w.text(v.clave, M, CONTENT, { size: 9 });
  w.y += 14;
  w.rule();
}

function parties(w: LetterWriter, v: ComprobanteView): void {
  const colW = CONTENT / 2 - 8;
  const titles = partyTitles(v);
  const left = w.block(
    [
      { text: titles.emisor, font: BOLD, size: 7, color: GRAY },
      { text: v.emisor.nombre, font: BOLD, size: 10 },
      ...partyLines(v.emisor).map((text) => ({ text })),
    ],
    M,
    colW,
  );
  const r = v.receptor;
  const right = w.block(
    r
      ? [
          { text: titles.receptor, font: BOLD, size: 7, color: GRAY },
          { text: r.nombre, font: BOLD, size: 10 },
          ...partyLines(r).map((text) => ({ text })),
          ...(v.codigoActividadReceptor
            ? [{ text: `Actividad económica: ${v.codigoActividadReceptor}` }]
            : []),
        ]
      : [
          { text: 'Receptor', font: BOLD, size: 7, color: GRAY },
          { text: 'Sin receptor identificado', size: 9 },
        ],
    M + CONTENT / 2 + 8,
    colW,
  );
  w.y += Math.max(left, right) + 4;
  const facts: string[] = [];
  const condicion = condicionText(v);
  if (condicion) facts.push(`Condición de venta: ${condicion}`);
  facts.push(`Moneda: ${monedaText(v)}`);
  w.y += w.text(facts.join('     '), M, CONTENT, { size: 8 }) + 4;
  w.rule();
}

function tableHeader(w: LetterWriter, doc: Doc, columns: Column[]): void {
  let x = M;
  doc.rect(M, w.y - 2, CONTENT, 13).fill('#eeeeee');
  for (const c of columns) {
    w.text(c.title, x + 2, c.width - 4, { font: BOLD, size: 7, align: c.align });
    x += c.width;
  }
  w.y += TABLE_HEADER;
}

function lineCells(l: Linea): string[] {
  // Every discount of the line (up to 5), summed: each one is in the line's notes.
  const descuento = sumAmounts(l.descuentos.map((d) => d.monto));
  // Several taxes show their sum under "Impuestos", as the ticket does: each one is in the line's notes.
  const tax = l.impuestos[0];
  const taxLabel = l.impuestos.length > 1 ? 'Impuestos' : tax && impuestoShort(tax);
  return [
    l.numero,
    l.cabys ?? '',
    l.detalle,
    formatQuantity(l.cantidad),
    l.unidadMedida ?? '',
    // A REP line has no quantity or price (ReciboElectronicoPago LineaDetalle): its MontoTotal is what was paid.
    l.precioUnitario === undefined ? formatNumber(l.montoTotal) : formatPrice(l.precioUnitario),
    l.descuentos.length > 0 ? formatNumber(descuento) : '',
    tax ? `${taxLabel}\n${formatNumber(l.impuestoNeto ?? tax.monto)}` : '',
    formatNumber(l.montoTotalLinea),
  ];
}

/**
 * A surtido's components under their line, in columns of their own (a wider tax column, every tax a
 * component carries; the last column is its subtotal). Same total width as the table.
 */
const COMPONENT_COLUMNS: Column[] = [
  { title: '', width: 16, align: 'left' },
  { title: 'CABYS', width: 68, align: 'left' },
  { title: SURTIDO_TITLE, width: 150, align: 'left' },
  { title: 'Cant.', width: 38, align: 'right', numeric: true },
  { title: 'Unidad', width: 38, align: 'left' },
  { title: 'Precio unit.', width: 58, align: 'right', numeric: true },
  { title: 'Descuento', width: 50, align: 'right', numeric: true },
  { title: 'Impuesto', width: 64, align: 'right', numeric: true },
  { title: 'Subtotal', width: 58, align: 'right', numeric: true },
];
const COMPONENT_SIZE = 6.5;
const COMPONENT_COLOR = '#333333';

/** A surtido component's cells: amounts of one unit of the line, each tax it carries. */
function componentCells(c: ComponenteSurtido): string[] {
  return [
    '',
    c.cabys,
    componenteDetalle(c),
    formatQuantity(c.cantidad),
    componenteUnidad(c),
    formatPrice(c.precioUnitario),
    c.descuentos.map((d) => formatNumber(d.monto)).join('\n'),
    c.impuestos.map((i) => `${impuestoCorto(i)}\n${formatNumber(i.monto)}`).join('\n'),
    formatNumber(c.subTotal),
  ];
}

/** The height of a row of placed cells (the tallest cell). */
function rowHeight(doc: Doc, cells: PlacedCell[]): number {
  let height = 0;
  for (const c of cells) {
    doc.font(c.font ?? REGULAR).fontSize(c.size);
    height = Math.max(height, doc.heightOfString(c.text, { width: c.width }));
  }
  return height;
}

interface CellStyle {
  size: number;
  font?: string;
  color?: string;
}

/** A cell's text where it goes on the page: the non-empty cells of a row, or a line's notes. */
interface PlacedCell extends CellStyle {
  text: string;
  x: number;
  width: number;
  align: 'left' | 'right';
}

function placeRow(doc: Doc, columns: Column[], cells: string[], style: CellStyle): PlacedCell[] {
  const placed: PlacedCell[] = [];
  let x = M;
  columns.forEach((c, i) => {
    const text = cells[i];
    const width = c.width - 4;
    if (text) {
      const size = c.numeric ? fitSize(doc, text, width, style.size, style.font) : style.size;
      placed.push({ ...style, size, text, x: x + 2, width, align: c.align });
    }
    x += c.width;
  });
  return placed;
}

/**
 * The size, at most `size`, at which each word of `text` fits `width`. pdfkit splits a word wider than its
 * width between two characters, and a number split in two reads as two numbers: it is drawn smaller instead.
 * Words are what pdfkit breaks lines between (spaces and newlines; a number's own spaces do not break).
 */
function fitSize(doc: Doc, text: string, width: number, size: number, font = REGULAR): number {
  doc.font(font).fontSize(size);
  const widest = widestWord(doc, text);
  // Rounded down to a twentieth of a point, so the word fits whatever the rounding of its width.
  return widest <= width ? size : Math.floor(((size * width) / widest) * 20) / 20;
}

function drawCells(w: LetterWriter, cells: PlacedCell[]): void {
  for (const c of cells) w.text(c.text, c.x, c.width, c);
}

function drawRow(w: LetterWriter, doc: Doc, columns: Column[], cells: string[], style: CellStyle): void {
  drawCells(w, placeRow(doc, columns, cells, style));
}

/**
 * Draws cells side by side from y (`height` is the tallest) and moves y under them. A row that does not fit
 * in what is left of the page goes in slices of whole lines, as many of each cell as fit, `turn` starting
 * the next page (with the headings the row continues under) before each further slice. pdfkit must never
 * turn the page by itself: it leaves the row's first page blank and writes over the page number.
 */
function flow(w: LetterWriter, doc: Doc, cells: PlacedCell[], height: number, turn: () => void): void {
  if (w.y + height <= BOTTOM) {
    drawCells(w, cells);
    w.y += height;
    return;
  }
  let rest = cells.map((c) => {
    doc.font(c.font ?? REGULAR).fontSize(c.size);
    return { cell: c, lines: wrapLines(doc, c.text, c.width), lineHeight: doc.currentLineHeight(true) };
  });
  let fresh = false;
  for (;;) {
    const room = BOTTOM - w.y;
    const counts = rest.map((r) => Math.min(r.lines.length, Math.floor(room / r.lineHeight)));
    // A line taller than a whole page cannot be (sizes are under 15 pt), but it must not turn pages forever.
    if (fresh && !counts.some((n) => n > 0)) counts[0] = 1;
    let used = 0;
    rest.forEach((r, i) => {
      const n = counts[i]!;
      if (n === 0) return;
      w.text(r.lines.slice(0, n).join('\n'), r.cell.x, r.cell.width, r.cell);
      used = Math.max(used, n * r.lineHeight);
      r.lines = r.lines.slice(n);
    });
    w.y += used;
    rest = rest.filter((r) => r.lines.length > 0);
    if (rest.length === 0) return;
    turn();
    fresh = true;
  }
}

/** Under the table header of a page a line continues on: which line it is. */
function lineContinued(w: LetterWriter, columns: Column[], numero: string): void {
  const x = M + columns[0]!.width + columns[1]!.width + 2;
  w.y +=
    w.text(`Línea ${numero} (continuación)`, x, CONTENT - x + M, { font: BOLD, size: 6.5, color: GRAY }) + 2;
}

/** The components' title row, under their line (and at the top of a page they continue on). */
function componentHeader(w: LetterWriter, doc: Doc, titles: string[], height: number): void {
  drawRow(w, doc, COMPONENT_COLUMNS, titles, { size: COMPONENT_SIZE, font: BOLD, color: GRAY });
  w.y += height + 1;
  doc
    .moveTo(M + COMPONENT_COLUMNS[0]!.width, w.y)
    .lineTo(W - M, w.y)
    .lineWidth(0.25)
    .strokeColor('#dddddd')
    .stroke();
  w.y += 2;
}

async function lines(w: LetterWriter, doc: Doc, v: ComprobanteView): Promise<void> {
  const moneda = v.resumen.codigoMoneda;
  w.text(`Detalle (montos en ${moneda})`, M, CONTENT, { font: BOLD, size: 8 });
  w.y += 12;
  const cells = v.lineas.map(lineCells);
  const columns = tableColumns(doc, cells);
  // The notes go under the description, from its left edge to the table's right one.
  const notesX = M + columns[0]!.width + columns[1]!.width + 2;
  const notesWidth = W - M - 4 - notesX;
  tableHeader(w, doc, columns);
  for (const [step, l] of v.lineas.entries()) {
    await turnAt(step);
    const row = placeRow(doc, columns, cells[step]!, { size: LINE_SIZE });
    const height = rowHeight(doc, row);
    const notes = lineNotes(l, moneda);
    const notesText = notes.join('\n');
    doc.fontSize(6.5);
    const notesHeight = notes.length > 0 ? doc.heightOfString(notesText, { width: notesWidth }) + 2 : 0;
    const components = l.surtido.map((c) => {
      const placed = placeRow(doc, COMPONENT_COLUMNS, componentCells(c), {
        size: COMPONENT_SIZE,
        color: COMPONENT_COLOR,
      });
      return { cells: placed, height: rowHeight(doc, placed) };
    });
    const titles = COMPONENT_COLUMNS.map((c) => c.title);
    const continued = [...titles];
    continued[2] = `Línea ${l.numero} (continuación)`;
    const titleHeight =
      components.length > 0
        ? rowHeight(doc, placeRow(doc, COMPONENT_COLUMNS, titles, { size: COMPONENT_SIZE, font: BOLD }))
        : 0;
    const turnLine = () => {
      w.newPage();
      tableHeader(w, doc, columns);
      lineContinued(w, columns, l.numero);
    };
    const turnComponents = () => {
      w.newPage();
      tableHeader(w, doc, columns);
      componentHeader(w, doc, continued, titleHeight);
    };
    // The line, its notes and its first component stay together; further components may go on. Taller
    // than a page (a line with hundreds of taxes in its notes), they flow over as many pages as they need.
    const first = components.length > 0 ? titleHeight + 3 + components[0]!.height + 2 : 0;
    const together = height + notesHeight + first + 4;
    if (w.ensure(together <= ROW_ROOM ? together : ROW_START)) tableHeader(w, doc, columns);
    flow(w, doc, row, height, turnLine);
    w.y += 1;
    if (notes.length > 0) {
      const placed: PlacedCell = {
        text: notesText,
        x: notesX,
        width: notesWidth,
        align: 'left',
        size: 6.5,
        color: GRAY,
      };
      flow(w, doc, [placed], notesHeight - 2, turnLine);
      w.y += 2;
    }
    if (components.length > 0) {
      w.y += 1;
      componentHeader(w, doc, titles, titleHeight);
      // Under the table header and the components' titles (a component with hundreds of taxes flows on).
      const componentRoom = ROW_ROOM - titleHeight - 3;
      for (const c of components) {
        if (w.ensure(c.height + 6 <= componentRoom ? c.height + 6 : ROW_START)) {
          tableHeader(w, doc, columns);
          componentHeader(w, doc, continued, titleHeight);
        }
        flow(w, doc, c.cells, c.height, turnComponents);
        w.y += 2;
      }
    }
    doc
      .moveTo(M, w.y + 1)
      .lineTo(W - M, w.y + 1)
      .lineWidth(0.25)
      .strokeColor('#dddddd')
      .stroke();
    w.y += 4;
  }
  if (v.lineas.length === 0) {
    w.text('Sin líneas de detalle', M, CONTENT, { size: 8, color: GRAY });
    w.y += 12;
  }
}

function otrosCargos(w: LetterWriter, v: ComprobanteView): void {
  if (v.otrosCargos.length === 0) return;
  w.ensure(24);
  w.y += 4;
  w.text('Otros cargos', M, CONTENT, { font: BOLD, size: 8 });
  w.y += 12;
  for (const c of v.otrosCargos) {
    const pct = c.porcentaje ? ` (${formatRate(c.porcentaje)})` : '';
    const tercero = c.nombreTercero ? `, a favor de ${c.nombreTercero}` : '';
    w.ensure(12);
    const h = w.text(`${c.detalle}${pct}${tercero}`, M, CONTENT - 120, { size: 7.5 });
    w.text(formatMoney(c.montoCargo, v.resumen.codigoMoneda), W - M - 120, 120, {
      size: 7.5,
      align: 'right',
    });
    w.y += h + 2;
  }
}

function summary(w: LetterWriter, doc: Doc, v: ComprobanteView): void {
  const moneda = v.resumen.codigoMoneda;
  const rows: TotalRow[] = [];
  for (const t of v.resumen.totales) {
    const zero = /^0*(\.0*)?$/.test(t.monto);
    // The buckets that are zero say nothing; venta, descuentos and neta always show.
    if (zero && !['TotalVenta', 'TotalDescuentos', 'TotalVentaNeta'].includes(t.nombre)) continue;
    rows.push([label(TOTALES, t.nombre), formatMoney(t.monto, moneda), false]);
  }
  for (const [name, amount] of desgloseRows(v)) rows.push([name, amount, false]);
  if (v.resumen.totalImpuesto !== undefined)
    rows.push(['Total impuesto', formatMoney(v.resumen.totalImpuesto, moneda), false]);
  if (v.resumen.totalOtrosCargos !== undefined && !/^0*(\.0*)?$/.test(v.resumen.totalOtrosCargos))
    rows.push(['Otros cargos', formatMoney(v.resumen.totalOtrosCargos, moneda), false]);
  const devuelto = ivaDevueltoRow(v);
  if (devuelto) rows.push([...devuelto, false]);
  rows.push(['TOTAL', formatMoney(v.resumen.totalComprobante, moneda), true]);

  const left: BlockLine[] = [];
  const medios = mediosPagoLines(v);
  if (medios.length > 0) {
    left.push({ text: 'Medios de pago', font: BOLD, size: 8, title: true });
    for (const m of medios) left.push({ text: m });
  }
  if (v.referencias.length > 0) {
    left.push({ text: 'Documentos de referencia', font: BOLD, size: 8, title: true });
    for (const r of v.referencias) left.push({ text: referenciaText(r) });
  }
  if (v.otros.length > 0) {
    left.push({ text: 'Observaciones', font: BOLD, size: 8, title: true });
    for (const o of v.otros) left.push({ text: o });
  }
  const leftWidth = TOTALS_X - M - 20;
  // Measured as drawn: a reference or an observation wraps to several rows in this column, and a block
  // that does not fit lets pdfkit turn the page by itself, over the page number and away from the totals.
  const heights = left.map((l) => w.measure(l, leftWidth));
  const leftHeight = heights.reduce((sum, h) => sum + h, 0);
  // Measured as drawn too: a label such as "Impuesto asumido por el emisor" wraps in its column.
  const rightHeight = rows.reduce((sum, row) => sum + totalRowHeight(doc, row), 0);
  w.y += 6;
  if (Math.max(leftHeight, rightHeight) <= PAGE_ROOM) {
    // The usual case: the column and the totals side by side, together on one page.
    w.ensure(Math.max(leftHeight, rightHeight));
    const start = w.y;
    const drawn = w.block(left, M, leftWidth);
    totals(w, doc, rows);
    w.y = Math.max(w.y, start + drawn) + 8;
    return;
  }
  // Longer than a page (many references or observations): the column flows line by line, each title
  // with the line after it, and the totals follow it together, so the TOTAL ends the section.
  left.forEach((l, i) => {
    w.ensure(heights[i]! + (l.title ? (heights[i + 1] ?? 0) : 0));
    w.y += w.text(l.text, M, leftWidth, l) + 1;
  });
  w.y += 6;
  w.ensure(rightHeight);
  totals(w, doc, rows);
  w.y += 8;
}

/** A row of the totals: label, amount, and whether it is the TOTAL (bold, under a rule). */
type TotalRow = [string, string, boolean];

/** The amounts' column holds a TOTAL of 13 integer digits in bold (`₡ 9 999 999 999 999,99`, 119 pt). */
const TOTALS_LABEL = 110;
const TOTALS_AMOUNT = 130;
const TOTALS_X = W - M - TOTALS_LABEL - TOTALS_AMOUNT;
/** The TOTAL's rule and the space under it. */
const TOTAL_RULE = 3;

/** A row's font, and its pitch: from its top to the next row's when its label and amount take one line. */
function totalRowStyle(strong: boolean): { font: string; size: number; pitch: number } {
  return strong ? { font: BOLD, size: 10, pitch: 14 } : { font: REGULAR, size: 8, pitch: 11 };
}

/**
 * The height `totals` gives a row: its pitch and every line more its label or its amount wraps to (pdfkit
 * wraps them as heightOfString measures), so a wrapped label is never drawn over the row under it.
 */
function totalRowHeight(doc: Doc, [name, amount, strong]: TotalRow): number {
  const { font, size, pitch } = totalRowStyle(strong);
  doc.font(font).fontSize(fitSize(doc, amount, TOTALS_AMOUNT, size, font));
  const amountHeight = doc.heightOfString(amount, { width: TOTALS_AMOUNT });
  doc.fontSize(size);
  const height = Math.max(doc.heightOfString(name, { width: TOTALS_LABEL }), amountHeight);
  return pitch + height - doc.currentLineHeight(true) + (strong ? TOTAL_RULE : 0);
}

/** The totals in the right column from y, the TOTAL last under a rule. */
function totals(w: LetterWriter, doc: Doc, rows: TotalRow[]): void {
  for (const row of rows) {
    const [name, amount, strong] = row;
    const { font, size } = totalRowStyle(strong);
    const next = w.y + totalRowHeight(doc, row);
    if (strong) w.shortRule(TOTALS_X, TOTALS_LABEL + TOTALS_AMOUNT);
    w.text(name, TOTALS_X, TOTALS_LABEL, { font, size });
    // An amount in an ISO code wider than ₡ (`MXN 9 999 999 999 999,99`) is drawn smaller, not split.
    const amountSize = fitSize(doc, amount, TOTALS_AMOUNT, size, font);
    w.text(amount, TOTALS_X + TOTALS_LABEL, TOTALS_AMOUNT, { font, size: amountSize, align: 'right' });
    w.y = next;
  }
}

function closing(w: LetterWriter, doc: Doc, v: ComprobanteView, branding: DrawnBranding): void {
  const qr = 84;
  doc.font(REGULAR).fontSize(7);
  const textWidth = CONTENT - qr - 12;
  const footerHeight = branding.footer ? doc.heightOfString(branding.footer, { width: textWidth }) + 6 : 0;
  w.ensure(Math.max(qr, footerHeight + 40) + 4);
  w.rule();
  const top = w.y;
  drawQr(doc, v.clave, M, top, qr);
  const x = M + qr + 12;
  w.y = top + 6;
  w.y += w.text(LEYENDA_HACIENDA, x, textWidth, { size: 7, color: GRAY }) + 4;
  w.y +=
    w.text(
      'Consulte este comprobante en el sistema de Hacienda con la clave numérica del código QR.',
      x,
      textWidth,
      { size: 7, color: GRAY },
    ) + 6;
  if (branding.footer) w.y += w.text(branding.footer, x, textWidth, { size: 7 }) + 2;
  w.y = Math.max(w.y, top + qr);
}

function pageNumbers(doc: Doc, v: ComprobanteView): void {
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    doc.font(REGULAR).fontSize(6.5).fillColor(GRAY);
    doc.text(`${KIND_TITLES[v.kind]} ${v.consecutivo} · Página ${i + 1} de ${range.count}`, M, H - M - 8, {
      width: CONTENT,
      align: 'right',
      lineBreak: false,
    });
  }
}

export async function renderLetter(v: ComprobanteView, branding: DrawnBranding): Promise<Buffer> {
  const doc = newDoc({
    margin: M,
    title: `${KIND_TITLES[v.kind]} ${v.consecutivo}`,
    author: v.emisor.nombre,
    creationDate: documentDate(v.fechaEmision),
    bufferPages: true,
  });
  const w = new LetterWriter(doc);
  w.newPage();
  header(w, doc, v, branding);
  parties(w, v);
  await lines(w, doc, v);
  otrosCargos(w, v);
  summary(w, doc, v);
  closing(w, doc, v, branding);
  pageNumbers(doc, v);
  return collect(doc);
}
