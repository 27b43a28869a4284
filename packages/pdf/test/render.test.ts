// Every kind's PDF, in both layouts, looked at as a reader would: page 1 is not blank, its text names the
// clave, the receptor and the total in Costa Rican format, and its QR code decodes to the clave.
import { HaciendaXmlError } from '@cr/hacienda-xml';
import {
  KIND_TITLES,
  LEYENDA_HACIENDA,
  formatMoney,
  readComprobanteView,
  renderComprobantePdf,
  renderComprobanteXmlPdf,
} from '../src';
import { fontCacheStats } from '../src/pdf-kit';
import { REFERENCED_CLAVE, fiveLineInvoice, kindFixtures, line, sign } from './fixtures';
import {
  decodeQr,
  firstPage,
  hasColour,
  inkRatio,
  makeLogo,
  pageCount,
  pdfText,
  popplerAvailable,
} from './pdf-tools';

const tools = popplerAvailable();
const itTools = tools ? it : it.skip;
const fixtures = kindFixtures();

/** pdftotext keeps words but may re-space them: compare with runs of whitespace collapsed. */
const squash = (s: string) => s.replace(/\s+/g, ' ');

describe.each(fixtures.map((f) => [f.kind, f] as const))('the %s PDF', (_kind, fixture) => {
  const view = readComprobanteView(fixture.xml);

  it.each(['carta', 'tiquete'] as const)(
    'in the %s layout, page 1 has ink, the facts and a QR with the clave',
    async (layout) => {
      if (!tools) return;
      const pdf = await renderComprobantePdf(view, { layout });
      expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
      const png = firstPage(pdf);
      expect(inkRatio(png)).toBeGreaterThan(0.005);
      const text = squash(pdfText(pdf));
      expect(text).toContain(view.clave);
      expect(text).toContain(view.consecutivo);
      expect(text).toContain(KIND_TITLES[fixture.kind].toUpperCase());
      expect(text).toContain(squash(formatMoney(view.resumen.totalComprobante, 'CRC')));
      if (fixture.receptor) expect(text).toContain(fixture.receptor);
      else expect(view.receptor).toBeUndefined();
      expect(text).toContain('Diseño de logotipo y señalización');
      // A REP line carries no CABYS (ReciboElectronicoPago LineaDetalle).
      if (fixture.kind !== 'REP') expect(text).toContain('8314300000000');
      expect(text).toContain('SINPE Móvil');
      expect(squash(text)).toContain(squash(LEYENDA_HACIENDA).slice(0, 60));
      expect(decodeQr(png)).toBe(view.clave);
    },
  );
});

describe('what the PDF shows', () => {
  const fe = fixtures.find((f) => f.kind === 'FE')!;
  const nc = fixtures.find((f) => f.kind === 'NC')!;

  itTools(
    'amounts in Costa Rican format, the exoneration, the tax breakdown and the payment means',
    async () => {
      const text = squash(pdfText(await renderComprobanteXmlPdf(fe.xml, { layout: 'carta' })));
      // Line 1: 1 234 567,89 + 13 % = 1 395 061,72
      expect(text).toContain('1 234 567,89');
      expect(text).toContain('1 395 061,72');
      expect(text).toMatch(
        /Exoneración: Exenciones DGH, autorización local genérica, documento AL-00460853-20/,
      );
      expect(text).toContain('IVA tarifa general 13 %');
      expect(text).toContain('IVA tarifa reducida 4 %');
      expect(text).toContain('Cédula jurídica: 3-101-779527');
      expect(text).toContain('Condición de venta: Contado');
      expect(text).toContain('Actividad económica: 6201.0');
    },
  );

  itTools('a credit note names the document it references and why', async () => {
    const text = squash(pdfText(await renderComprobanteXmlPdf(nc.xml)));
    expect(text).toContain(REFERENCED_CLAVE);
    expect(text).toContain('Anula documento de referencia: Anulación por devolución del cliente');
  });

  itTools.each(['carta', 'tiquete'] as const)(
    'a purchase invoice (%s) labels the supplier as the seller and our issuer as the buyer',
    async (layout) => {
      const fec = fixtures.find((f) => f.kind === 'FEC')!;
      const text = squash(pdfText(await renderComprobanteXmlPdf(fec.xml, { layout })));
      expect(text).toContain('Proveedor (vendedor)');
      expect(text).toContain('Receptor (comprador)');
      // The supplier's name follows its heading, our issuer's name follows the buyer's heading.
      expect(text.indexOf('Agricultor Ñandú Mora')).toBeGreaterThan(text.indexOf('Proveedor (vendedor)'));
      expect(text.indexOf(fec.receptor!)).toBeGreaterThan(text.indexOf('Receptor (comprador)'));
      expect(text).not.toMatch(/\bEmisor\b/);
      expect(text).toContain('Comprobante de contribuyente de régimen especial');
    },
  );

  itTools('other kinds keep the plain Emisor and Receptor headings', async () => {
    const text = squash(pdfText(await renderComprobanteXmlPdf(fe.xml, { layout: 'carta' })));
    expect(text).toContain('Emisor');
    expect(text).toContain('Receptor');
    expect(text).not.toContain('(comprador)');
  });

  itTools('a debit note and a payment receipt name the document they refer to and why', async () => {
    for (const [kind, reason] of [
      ['ND', 'Nota de débito financiera: Intereses moratorios'],
      ['REP', 'Pago a comprobante: Pago de la factura a crédito'],
    ] as const) {
      const xml = fixtures.find((f) => f.kind === kind)!.xml;
      const text = squash(pdfText(await renderComprobanteXmlPdf(xml, { layout: 'carta' })));
      expect(text).toContain(REFERENCED_CLAVE);
      expect(text).toContain(reason);
    }
  });

  itTools('the tenant logo and footer appear on the letter and the ticket', async () => {
    const logo = makeLogo();
    const isRed = (r: number, g: number, b: number) => r > 180 && g < 60 && b < 60;
    for (const layout of ['carta', 'tiquete'] as const) {
      const plain = await renderComprobanteXmlPdf(fe.xml, { layout });
      const branded = await renderComprobanteXmlPdf(fe.xml, {
        layout,
        branding: { logo, footer: 'Gracias por su compra · Cuenta IBAN CR05015202001026284066' },
      });
      expect(hasColour(firstPage(plain), isRed)).toBe(false);
      expect(hasColour(firstPage(branded), isRed)).toBe(true);
      expect(squash(pdfText(branded))).toContain(
        'Gracias por su compra · Cuenta IBAN CR05015202001026284066',
      );
    }
  });

  itTools('a document with many lines continues on further pages, numbered', async () => {
    const lines = Array.from({ length: 60 }, (_, i) => line(i + 1));
    const xml = sign(fiveLineInvoice({ detalleServicio: lines, numeroReferencia: 99 }));
    const pdf = await renderComprobanteXmlPdf(xml, { layout: 'carta' });
    expect(pageCount(pdf)).toBeGreaterThanOrEqual(2);
    const text = pdfText(pdf);
    expect(text).toContain('Página 2 de');
    expect(text).toContain('Servicio de prueba 60');
    expect(decodeQr(firstPage(pdf))).toBeUndefined(); // the QR closes the document, on its last page
  });
});

describe('rendering', () => {
  it('is deterministic: the same document and branding give the same bytes', async () => {
    const xml = fixtures[0]!.xml;
    const a = await renderComprobanteXmlPdf(xml, { branding: { footer: 'x' } });
    const b = await renderComprobanteXmlPdf(xml, { branding: { footer: 'x' } });
    expect(a.equals(b)).toBe(true);
  });

  it('is deterministic whatever was rendered before: the shared font caches change no byte', async () => {
    const fe = fixtures.find((f) => f.kind === 'FE')!.xml;
    const first = await renderComprobanteXmlPdf(fe, { layout: 'carta' });
    for (const f of fixtures)
      for (const layout of ['carta', 'tiquete'] as const) await renderComprobanteXmlPdf(f.xml, { layout });
    // Other characters: a subset that starts with the seed glyphs and adds its own, cached separately.
    await renderComprobanteXmlPdf(
      sign(fiveLineInvoice({ detalleServicio: [{ ...line(1), detalle: 'Ωμέγα ≤ ∞ ✓' }] })),
    );
    const again = await renderComprobanteXmlPdf(fe, { layout: 'carta' });
    expect(again.equals(first)).toBe(true);
  });

  it('documents share word layouts and encoded font subsets (pdfkit internals still where expected)', async () => {
    await renderComprobanteXmlPdf(fixtures[0]!.xml, { layout: 'carta' });
    const stats = fontCacheStats();
    for (const font of ['regular', 'bold']) {
      expect(stats[font]?.words).toBeGreaterThan(10);
      expect(stats[font]?.subsets).toBeGreaterThanOrEqual(1);
    }
  });

  it('the default layout is the ticket for a TE and the letter for the other kinds', async () => {
    const te = await renderComprobanteXmlPdf(fixtures.find((f) => f.kind === 'TE')!.xml);
    const fe = await renderComprobanteXmlPdf(fixtures[0]!.xml);
    expect(te.toString('latin1')).toMatch(/\/MediaBox \[0 0 226\.77/);
    expect(fe.toString('latin1')).toMatch(/\/MediaBox \[0 0 612 792\]/);
  });

  it('a logo that is neither PNG nor JPEG is left out instead of failing', async () => {
    const pdf = await renderComprobanteXmlPdf(fixtures[0]!.xml, {
      branding: { logo: Buffer.from('GIF89a…') },
    });
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it.each([
    ['not XML', 'hello'],
    ['another document', '<MensajeHacienda><Clave>1</Clave></MensajeHacienda>'],
    ['a comprobante without clave', '<FacturaElectronica><Clave>12</Clave></FacturaElectronica>'],
  ])('refuses %s with a HaciendaXmlError', (_what, xml) => {
    expect(() => readComprobanteView(xml)).toThrow(HaciendaXmlError);
  });
});
