// The 80 mm ticket layout: one narrow column, as long as its content (the page height is measured first,
// so a receipt printer cuts it once), up to PAGE_MAX: a longer ticket goes on several pages of the same
// width, numbered. Same facts as the letter, stacked.
import { KIND_TITLES, LEYENDA_HACIENDA, TOTALES, label } from './catalogs';
import { formatDateTime, formatMoney, formatNumber, formatPrice, formatQuantity } from './format';
import type { ComprobanteView } from './model';
import { BOLD, type Doc, REGULAR, collect, documentDate, drawQr, newDoc, turnAt, wrapLines } from './pdf-kit';
import { type DrawnBranding, drawLogo } from './logo-image';
import {
  SURTIDO_TITLE,
  componenteDetalle,
  componenteUnidad,
  condicionText,
  desgloseRows,
  impuestoShort,
  ivaDevueltoRow,
  lineNotes,
  mediosPagoLines,
  monedaText,
  partyLines,
  partyTitles,
  referenciaText,
} from './sections';

const W = 226.77; // 80 mm
const M = 9;
const CONTENT = W - 2 * M;
const QR = 110;
const INDENT = 8;
/**
 * The tallest page. PDF viewers and printers need not handle a page side over 14,400 pt (200 in, the
 * implementation limit of PDF 1.7, Annex C): a 1,000-line ticket, 72,000 pt long as one page, is cut or
 * refused. 14,000 leaves room under it for the rounding up of the page height.
 */
const PAGE_MAX = 14_000;
/** Under the content of each page of a ticket of several pages: its page number. */
const PAGE_LABEL = 12;
/** What a page of a ticket of several pages holds between its margins and its page number. */
const PAGE_ROOM = PAGE_MAX - 2 * M - 4 - PAGE_LABEL;

/** `keep`: on a ticket of several pages, the item stays on the page of the item after it. */
type Item = (
  | {
      t: 'text';
      text: string;
      font?: string;
      size?: number;
      align?: 'left' | 'center' | 'right';
      gap?: number;
      /** From the left margin (a surtido's components). */
      indent?: number;
    }
  | { t: 'row'; left: string; right: string; font?: string; size?: number; indent?: number }
  | { t: 'rule' }
  | { t: 'qr' }
  | { t: 'logo' }
) & { keep?: boolean };

/** Keeps `items` together on one page (when they fit one): each one but the last with the next. */
function keepTogether(items: Item[]): void {
  for (const item of items.slice(0, -1)) item.keep = true;
}

function items(v: ComprobanteView, branding: DrawnBranding): Item[] {
  const moneda = v.resumen.codigoMoneda;
  const out: Item[] = [];
  const text = (s: string, o: Partial<Omit<Extract<Item, { t: 'text' }>, 't' | 'text'>> = {}) =>
    out.push({ t: 'text', text: s, ...o });
  const titles = partyTitles(v);
  if (branding.logo) out.push({ t: 'logo' });
  // On a purchase invoice the name at the top is the supplier's, not the business printing it: say so.
  if (v.kind === 'FEC') text(titles.emisor, { font: BOLD, size: 6.5, align: 'center' });
  text(v.emisor.nombre, { font: BOLD, size: 9, align: 'center' });
  for (const l of partyLines(v.emisor)) text(l, { size: 7, align: 'center' });
  out.push({ t: 'rule' });
  text(KIND_TITLES[v.kind].toUpperCase(), { font: BOLD, size: 9, align: 'center' });
  text(`N.º ${v.consecutivo}`, { size: 7.5, align: 'center' });
  text(`Fecha: ${formatDateTime(v.fechaEmision)}`, { size: 7.5, align: 'center' });
  text('Clave numérica', { font: BOLD, size: 6, align: 'center' });
  text(v.clave, { size: 6, align: 'center' });
  if (v.codigoActividadEmisor) text(`Actividad económica: ${v.codigoActividadEmisor}`, { size: 7 });
  const condicion = condicionText(v);
  if (condicion) text(`Condición de venta: ${condicion}`, { size: 7 });
  text(`Moneda: ${monedaText(v)}`, { size: 7 });
  out.push({ t: 'rule' });
  if (v.receptor) {
    text(titles.receptor, { font: BOLD, size: 7 });
    text(v.receptor.nombre, { size: 7.5 });
    for (const l of partyLines(v.receptor)) text(l, { size: 7 });
    // The buyer's activity, as the letter prints it under the receptor: on a purchase invoice (FEC) the
    // only activity the document carries.
    if (v.codigoActividadReceptor) text(`Actividad económica: ${v.codigoActividadReceptor}`, { size: 7 });
    out.push({ t: 'rule' });
  }
  for (const l of v.lineas) {
    const first = out.length;
    text(`${l.numero}. ${l.detalle}`, { size: 7.5 });
    if (l.cabys) text(`CABYS ${l.cabys}`, { size: 6.5 });
    const qty = l.cantidad
      ? `${formatQuantity(l.cantidad)} ${l.unidadMedida ?? ''} × ${formatPrice(l.precioUnitario)}`
      : '';
    // Read top to bottom as the line's arithmetic: quantity × price, each discount, the tax, the line's total.
    out.push({ t: 'row', left: qty, right: formatNumber(l.montoTotal), size: 7.5 });
    for (const d of l.descuentos)
      out.push({ t: 'row', left: 'Descuento', right: `-${formatNumber(d.monto)}`, size: 6.5 });
    const tax = l.impuestos[0];
    if (tax)
      out.push({
        t: 'row',
        left: l.impuestos.length > 1 ? 'Impuestos' : impuestoShort(tax),
        right: formatNumber(l.impuestoNeto ?? tax.monto),
        size: 6.5,
      });
    out.push({ t: 'row', left: 'Total línea', right: formatNumber(l.montoTotalLinea), size: 7.5 });
    for (const n of lineNotes(l, moneda)) text(n, { size: 6 });
    // A surtido's components, indented: each one's CABYS, amounts of one unit of the line and taxes.
    if (l.surtido.length > 0) text(`${SURTIDO_TITLE}:`, { font: BOLD, size: 6, indent: INDENT, gap: 1 });
    for (const c of l.surtido) {
      text(componenteDetalle(c), { size: 6.5, indent: INDENT, gap: 1 });
      text(`CABYS ${c.cabys}`, { size: 6, indent: INDENT });
      out.push({
        t: 'row',
        left: `${formatQuantity(c.cantidad)} ${componenteUnidad(c)} × ${formatPrice(c.precioUnitario)}`,
        right: formatNumber(c.montoTotal),
        size: 6.5,
        indent: INDENT,
      });
      for (const d of c.descuentos)
        out.push({
          t: 'row',
          left: 'Descuento',
          right: `-${formatNumber(d.monto)}`,
          size: 6,
          indent: INDENT,
        });
      if (c.descuentos.length > 0)
        out.push({ t: 'row', left: 'Subtotal', right: formatNumber(c.subTotal), size: 6, indent: INDENT });
      for (const i of c.impuestos)
        out.push({ t: 'row', left: impuestoShort(i), right: formatNumber(i.monto), size: 6, indent: INDENT });
    }
    out.push({ t: 'text', text: '', size: 3 });
    // A long ticket's pages break between the document's lines, not inside one.
    keepTogether(out.slice(first));
  }
  for (const c of v.otrosCargos)
    out.push({ t: 'row', left: c.detalle, right: formatNumber(c.montoCargo), size: 7 });
  out.push({ t: 'rule' });
  for (const t of v.resumen.totales) {
    if (
      /^0*(\.0*)?$/.test(t.monto) &&
      !['TotalVenta', 'TotalDescuentos', 'TotalVentaNeta'].includes(t.nombre)
    )
      continue;
    out.push({ t: 'row', left: label(TOTALES, t.nombre), right: formatMoney(t.monto, moneda), size: 7 });
  }
  for (const [name, amount] of desgloseRows(v)) out.push({ t: 'row', left: name, right: amount, size: 7 });
  if (v.resumen.totalImpuesto !== undefined)
    out.push({
      t: 'row',
      left: 'Total impuesto',
      right: formatMoney(v.resumen.totalImpuesto, moneda),
      size: 7,
    });
  if (v.resumen.totalOtrosCargos !== undefined && !/^0*(\.0*)?$/.test(v.resumen.totalOtrosCargos))
    out.push({
      t: 'row',
      left: 'Otros cargos',
      right: formatMoney(v.resumen.totalOtrosCargos, moneda),
      size: 7,
    });
  const devuelto = ivaDevueltoRow(v);
  if (devuelto) out.push({ t: 'row', left: devuelto[0], right: devuelto[1], size: 7 });
  out.push({
    t: 'row',
    left: 'TOTAL',
    right: formatMoney(v.resumen.totalComprobante, moneda),
    font: BOLD,
    size: 9.5,
  });
  const medios = mediosPagoLines(v);
  if (medios.length > 0) text(`Pago: ${medios.join('; ')}`, { size: 7, gap: 3 });
  for (const r of v.referencias) text(`Referencia: ${referenciaText(r)}`, { size: 6.5, gap: 2 });
  for (const o of v.otros) text(o, { size: 6.5 });
  const closing = out.length;
  out.push({ t: 'rule' });
  out.push({ t: 'qr' });
  text(LEYENDA_HACIENDA, { size: 5.5, align: 'center', gap: 2 });
  if (branding.footer) text(branding.footer, { size: 6.5, align: 'center', gap: 3 });
  // The QR, the legend and the footer end the last page together.
  keepTogether(out.slice(closing));
  return out;
}

const LOGO_H = 48;

function heightOf(doc: Doc, item: Item): number {
  switch (item.t) {
    case 'rule':
      return 6;
    case 'qr':
      return QR + 2;
    case 'logo':
      return LOGO_H + 4;
    case 'text':
      doc.font(item.font ?? REGULAR).fontSize(item.size ?? 7);
      return (
        (item.text
          ? doc.heightOfString(item.text, { width: CONTENT - (item.indent ?? 0) })
          : (item.size ?? 3)) +
        (item.gap ?? 0) +
        0.5
      );
    case 'row': {
      doc.font(item.font ?? REGULAR).fontSize(item.size ?? 7);
      const right = doc.widthOfString(item.right) + 4;
      const width = CONTENT - (item.indent ?? 0);
      return (
        Math.max(
          doc.heightOfString(item.left || ' ', { width: width - right }),
          doc.heightOfString(item.right, { width }),
        ) + 0.5
      );
    }
  }
}

function draw(doc: Doc, item: Item, y: number, v: ComprobanteView, branding: DrawnBranding): void {
  switch (item.t) {
    case 'rule':
      doc
        .moveTo(M, y + 2.5)
        .lineTo(W - M, y + 2.5)
        .lineWidth(0.4)
        .dash(1.5, { space: 1.5 })
        .strokeColor('#777777')
        .stroke();
      doc.undash();
      return;
    case 'qr':
      drawQr(doc, v.clave, (W - QR) / 2, y, QR);
      return;
    case 'logo':
      drawLogo(doc, branding.logo!, M, y, { fit: [CONTENT, LOGO_H], align: 'center' });
      return;
    case 'text':
      if (!item.text) return;
      doc
        .font(item.font ?? REGULAR)
        .fontSize(item.size ?? 7)
        .fillColor('#000000');
      doc.text(item.text, M + (item.indent ?? 0), y + (item.gap ?? 0), {
        width: CONTENT - (item.indent ?? 0),
        align: item.align ?? 'left',
      });
      return;
    case 'row': {
      doc
        .font(item.font ?? REGULAR)
        .fontSize(item.size ?? 7)
        .fillColor('#000000');
      const right = doc.widthOfString(item.right) + 4;
      doc.text(item.left, M + (item.indent ?? 0), y, { width: CONTENT - (item.indent ?? 0) - right });
      doc.text(item.right, W - M - right, y, { width: right, align: 'right' });
      return;
    }
  }
}

/**
 * A text item taller than a page (a line's notes listing hundreds of taxes), as items of whole lines that
 * each fit a page; any other item as it is.
 */
function fitPage(doc: Doc, item: Item, height: number): Item[] {
  if (item.t !== 'text' || height <= PAGE_ROOM) return [item];
  doc.font(item.font ?? REGULAR).fontSize(item.size ?? 7);
  const lines = wrapLines(doc, item.text, CONTENT - (item.indent ?? 0));
  const perPage = Math.max(1, Math.floor((PAGE_ROOM - (item.gap ?? 0) - 1) / doc.currentLineHeight(true)));
  const parts: Item[] = [];
  for (let i = 0; i < lines.length; i += perPage)
    parts.push({ ...item, text: lines.slice(i, i + perPage).join('\n'), ...(i > 0 ? { gap: 0 } : {}) });
  return parts;
}

/** The height of the items kept together from `start`: up to the first one without `keep`. */
function keptHeight(list: Item[], heights: number[], start: number): number {
  let height = 0;
  for (let i = start; i < list.length; i++) {
    height += heights[i]!;
    if (!list[i]!.keep) break;
  }
  return height;
}

/**
 * The items of each page, as many as fit, breaking between items; those kept together start a page of
 * their own when they do not fit what is left of one (taller than a page, they break between them).
 */
function paginate(list: Item[], heights: number[]): number[][] {
  const pages: number[][] = [[]];
  let used = 0;
  list.forEach((_, i) => {
    const starts = i === 0 || !list[i - 1]!.keep;
    const kept = starts ? keptHeight(list, heights, i) : 0;
    const needed = kept > 0 && kept <= PAGE_ROOM ? kept : heights[i]!;
    if (used > 0 && used + needed > PAGE_ROOM) {
      pages.push([]);
      used = 0;
    }
    pages[pages.length - 1]!.push(i);
    used += heights[i]!;
  });
  return pages;
}

export async function renderTicket(v: ComprobanteView, branding: DrawnBranding): Promise<Buffer> {
  const doc = newDoc({
    margin: M,
    title: `${KIND_TITLES[v.kind]} ${v.consecutivo}`,
    author: v.emisor.nombre,
    creationDate: documentDate(v.fechaEmision),
  });
  const list: Item[] = [];
  const heights: number[] = [];
  for (const [step, item] of items(v, branding).entries()) {
    await turnAt(step);
    const height = heightOf(doc, item);
    for (const part of fitPage(doc, item, height)) {
      list.push(part);
      heights.push(part === item ? height : heightOf(doc, part));
    }
  }
  const total = heights.reduce((a, b) => a + b, 0) + 2 * M;
  // One page as long as the ticket when it fits PAGE_MAX; otherwise pages of whole items, numbered.
  const pages = total + 4 <= PAGE_MAX ? [list.map((_, i) => i)] : paginate(list, heights);
  for (const [n, page] of pages.entries()) {
    const content = page.reduce((sum, i) => sum + heights[i]!, 0);
    const label = pages.length > 1 ? PAGE_LABEL : 0;
    // Bottom margin 0 so pdfkit never breaks the page inside it.
    doc.addPage({
      size: [W, Math.ceil(content + 2 * M + label) + 4],
      margins: { top: M, left: M, right: M, bottom: 0 },
    });
    let y = M;
    for (const i of page) {
      await turnAt(i);
      draw(doc, list[i]!, y, v, branding);
      y += heights[i]!;
    }
    if (pages.length > 1) pageNumber(doc, y + M / 2, n + 1, pages.length);
  }
  return collect(doc);
}

/** "Página N de M" under a page's content, as the letter numbers its pages. */
function pageNumber(doc: Doc, y: number, n: number, count: number): void {
  doc.font(REGULAR).fontSize(6).fillColor('#555555');
  doc.text(`Página ${n} de ${count}`, M, y, { width: CONTENT, align: 'center', lineBreak: false });
}
