// Every kind's PDF, in both layouts, looked at as a reader would: page 1 is not blank, its text names the
// clave, the receptor and the total in Costa Rican format, and its QR code decodes to the clave.
import { COMPROBANTE_KINDS, HaciendaXmlError } from '@cr/hacienda-xml';
import { checkTools, xmlsecErrors, xsdErrors } from '@cr/hacienda-xml/src/testing/tools';
import {
  KIND_TITLES,
  LEYENDA_HACIENDA,
  formatMoney,
  formatNumber,
  readComprobanteView,
  renderComprobantePdf,
  renderComprobanteXmlPdf,
} from '../src';
import { fontCacheStats } from '../src/pdf-kit';
import {
  REFERENCED_CLAVE,
  exportWithSelectivoXml,
  fiveLineInvoice,
  healthByCardXml,
  kindFixtures,
  line,
  sign,
  surtidoInvoiceXml,
} from './fixtures';
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
      // A REP line carries no CABYS (ReciboElectronicoPago LineaDetalle), nor a quantity or a price: what
      // was paid is its MontoTotal, which each layout shows.
      if (fixture.kind !== 'REP') expect(text).toContain('8314300000000');
      else for (const l of view.lineas) expect(text).toContain(squash(formatNumber(l.montoTotal)));
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

  itTools.each(['carta', 'tiquete'] as const)(
    'the receptor’s activity is printed under the receptor (%s), on a purchase invoice the only one',
    async (layout) => {
      const fec = readComprobanteView(fixtures.find((f) => f.kind === 'FEC')!.xml);
      expect([fec.codigoActividadEmisor, fec.codigoActividadReceptor]).toEqual([undefined, '6201.0']);
      const feView = readComprobanteView(fe.xml);
      const withBuyer = { ...feView, codigoActividadReceptor: '4711.0' };
      for (const [view, heading, activity] of [
        [fec, 'Receptor (comprador)', '6201.0'],
        [withBuyer, 'Receptor', '4711.0'],
      ] as const) {
        const text = squash(pdfText(await renderComprobantePdf(view, { layout })));
        const at = text.indexOf(`Actividad económica: ${activity}`);
        expect(at).toBeGreaterThan(text.indexOf(view.receptor!.nombre));
        expect(text.indexOf(heading)).toBeLessThan(text.indexOf(view.receptor!.nombre));
      }
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

  itTools.each(['carta', 'tiquete'] as const)(
    'a line shows every discount, its commercial unit and tariff heading, a tax 99’s name and amounts to the decimals they carry (%s)',
    async (layout) => {
      // The five-line invoice as the XML may carry it: line 2 with a second discount (99, with its text),
      // line 1 with a commercial unit and a tariff heading (FEE, NC, ND goods), line 4's tax as 99, line 5 at
      // a unit price of 0.0045. Only what is read is edited: the view does not check the signature.
      const once = (xml: string, find: string, replace: string) => {
        expect(xml).toContain(find);
        return xml.replace(find, replace);
      };
      let xml = fe.xml;
      xml = once(
        xml,
        '</Descuento>',
        '</Descuento><Descuento><MontoDescuento>5.00000</MontoDescuento><CodigoDescuento>99</CodigoDescuento><CodigoDescuentoOTRO>Cupón</CodigoDescuentoOTRO><NaturalezaDescuento>Cupón de bienvenida</NaturalezaDescuento></Descuento>',
      );
      xml = once(
        xml,
        '</CodigoCABYS>',
        '</CodigoCABYS><PartidaArancelaria>220421000000</PartidaArancelaria>',
      );
      xml = once(
        xml,
        '</UnidadMedida>',
        '</UnidadMedida><UnidadMedidaComercial>hora técnica</UnidadMedidaComercial>',
      );
      xml = once(
        xml,
        '<Codigo>01</Codigo><CodigoTarifaIVA>04</CodigoTarifaIVA>',
        '<Codigo>99</Codigo><CodigoImpuestoOTRO>Timbre municipal</CodigoImpuestoOTRO><CodigoTarifaIVA>04</CodigoTarifaIVA>',
      );
      xml = once(xml, '<PrecioUnitario>99.99', '<PrecioUnitario>0.0045');
      const view = readComprobanteView(xml);
      expect(view.lineas[1]!.descuentos.map((d) => d.monto)).toEqual(['20.00000', '5.00000']);
      const text = squash(pdfText(await renderComprobantePdf(view, { layout })));
      expect(text).toContain('Descuento: Otros: Cupón (Cupón de bienvenida) — ₡ 5,00');
      expect(text).toContain('Partida arancelaria: 220421000000');
      expect(text).toContain('Unidad comercial: hora técnica');
      // The letter's narrow tax column may wrap it after "Otros:".
      expect(text).toMatch(/Otros: (\S+ )?Timbre municipal/);
      expect(text).toContain('0,0045');
      if (layout === 'carta') {
        // The discount column: both of line 2's discounts, summed.
        expect(text).toContain('25,00');
      } else {
        // The ticket reads as the line's arithmetic: 2 × 350,50 = 701,00, less the discounts, the tax, the total.
        expect(text).toMatch(/2 Sp × 350,50 701,00 Descuento -20,00 Descuento -5,00 IVA .* Total línea/);
      }
    },
  );

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

describe('issue 12 on paper: surtido components, IVA devuelto, MontoExportacion', () => {
  const surtidoXml = surtidoInvoiceXml();
  const surtido = readComprobanteView(surtidoXml);
  const health = healthByCardXml();

  (checkTools(['xmllint', 'xmlsec1']).ok ? it : it.skip)(
    'the documents rendered here are valid (official XSD, xmlsec1)',
    () => {
      for (const xml of [surtidoXml, health, exportWithSelectivoXml()]) {
        const root = /<(\w+) xmlns=/.exec(xml)![1]!;
        expect(xsdErrors(xml, COMPROBANTE_KINDS[root]!.xsd)).toBe('');
        expect(xmlsecErrors(xml)).toBe('');
      }
    },
  );

  it('reads each component of a surtido line as written (amounts of one unit of the line)', () => {
    const [plain, basket, box] = surtido.lineas;
    expect(plain!.surtido).toEqual([]);
    expect(box!.surtido).toHaveLength(20);
    expect(basket!.surtido.map((c) => [c.cabys, c.detalle, c.cantidad, c.subTotal])).toEqual([
      ['2149400000400', 'Mermelada de fresa 250 g', '2.000', '2700.00000'],
      ['2225102010100', 'Queso gouda', '1.000', '6000.00000'],
      ['2132100000100', 'Jugo de tomate 330 ml', '3.000', '2400.00000'],
    ]);
    expect(basket!.surtido[0]!.descuentos).toEqual([{ monto: '300.00000', codigo: '07' }]);
    expect(basket!.surtido[2]!.impuestos.map((i) => [i.codigo, i.tarifa, i.monto])).toEqual([
      ['02', '10.00', '240.00000'],
      ['01', '13.00', '343.20000'],
    ]);
    expect(basket!.surtido[2]!.unidadMedidaComercial).toBe('lata');
  });

  it.each(['carta', 'tiquete'] as const)(
    'in the %s layout, a surtido line lists every component with its CABYS, detalle and amounts',
    async (layout) => {
      if (!tools) return;
      const pdf = await renderComprobantePdf(surtido, { layout });
      expect(inkRatio(firstPage(pdf))).toBeGreaterThan(0.005);
      const text = squash(pdfText(pdf));
      expect(text).toContain('Contenido de cada unidad');
      for (const [cabys, detalle, amount] of [
        ['2149400000400', 'Mermelada de fresa 250 g', '300,00'],
        ['2225102010100', 'Queso gouda', '6 000,00'],
        ['2132100000100', 'Jugo de tomate 330 ml', '343,20'],
      ]) {
        expect(text).toContain(cabys);
        expect(text).toContain(detalle);
        expect(text).toContain(amount);
      }
      expect(text).toContain('GOUDA-1K');
      // The 20-component box: every one, in order (the letter wraps the long descriptions in their column).
      let at = 0;
      for (let k = 1; k <= 20; k++) {
        const found = text.indexOf(`Componente ${k} del surtido`, at);
        expect(found).toBeGreaterThan(at);
        at = found;
        expect(text).toContain(squash(formatNumber(String(100 * k))));
      }
      expect(text).toContain(squash(formatMoney(surtido.resumen.totalComprobante, 'CRC')));
      if (layout === 'carta') {
        // It goes on over a page break, under a repeated title naming its line.
        expect(pageCount(pdf)).toBe(2);
        expect(text).toContain('Línea 3 (continuación)');
      }
    },
  );

  it.each(['carta', 'tiquete'] as const)(
    'in the %s layout, a card-paid consultation shows the IVA devuelto and the rows add up to the total',
    async (layout) => {
      if (!tools) return;
      const view = readComprobanteView(health);
      expect(view.resumen.totalIVADevuelto).toBe('1000.00000');
      const pdf = await renderComprobantePdf(view, { layout });
      expect(inkRatio(firstPage(pdf))).toBeGreaterThan(0.005);
      const text = squash(pdfText(pdf));
      // Venta neta + total impuesto − IVA devuelto = TOTAL, in that order on the page.
      const rows = [
        'Venta neta ₡ 26 000,00',
        'Total impuesto ₡ 1 130,00',
        'IVA devuelto -₡ 1 000,00',
        'TOTAL ₡ 26 130,00',
      ];
      let at = -1;
      for (const row of rows) {
        const found = text.indexOf(row, at + 1);
        expect(found).toBeGreaterThan(at);
        at = found;
      }
      const r = view.resumen;
      const neta = r.totales.find((t) => t.nombre === 'TotalVentaNeta')!.monto;
      expect(Number(neta) + Number(r.totalImpuesto) - Number(r.totalIVADevuelto)).toBe(
        Number(r.totalComprobante),
      );
      expect(decodeQr(firstPage(pdf))).toBe(view.clave);
    },
  );

  itTools('a document without returned IVA shows no IVA devuelto row', async () => {
    const fe = fixtures.find((f) => f.kind === 'FE')!;
    expect(readComprobanteView(fe.xml).resumen.totalIVADevuelto).toBe('0.00000');
    for (const layout of ['carta', 'tiquete'] as const)
      expect(pdfText(await renderComprobanteXmlPdf(fe.xml, { layout }))).not.toContain('IVA devuelto');
  });

  itTools.each(['carta', 'tiquete'] as const)(
    'in the %s layout, an export line shows its tax’s MontoExportacion as informational',
    async (layout) => {
      const xml = exportWithSelectivoXml();
      expect(readComprobanteView(xml).lineas[0]!.impuestos[1]!.montoExportacion).toBe('2500.00000');
      const text = squash(pdfText(await renderComprobanteXmlPdf(xml, { layout })));
      expect(text).toContain('Selectivo de consumo 0 %: monto de exportación $ 2 500,00 (informativo)');
      expect(text).toContain('TOTAL $ 25 000,00');
    },
  );

  it('renders a surtido the same way every time', async () => {
    for (const layout of ['carta', 'tiquete'] as const) {
      const a = await renderComprobantePdf(surtido, { layout });
      const b = await renderComprobanteXmlPdf(surtidoXml, { layout });
      expect(a.equals(b)).toBe(true);
    }
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

  it("keeps the common words, not each document's identifiers (the 50-digit clave is shaped and let go)", async () => {
    let xml = '';
    let pdf: Buffer = Buffer.alloc(0);
    for (let n = 1; n <= 40; n++) {
      xml = sign(fiveLineInvoice({ numeroReferencia: n }));
      pdf = await renderComprobanteXmlPdf(xml);
    }
    const stats = fontCacheStats();
    for (const font of ['regular', 'bold']) {
      expect(stats[font]?.words).toBeGreaterThan(10);
      expect(stats[font]?.longestWord).toBeLessThanOrEqual(16);
      expect(stats[font]?.characters).toBeLessThanOrEqual(20_000);
    }
    // The clave is printed all the same.
    const clave = /<Clave>(\d{50})<\/Clave>/.exec(xml)?.[1];
    expect(clave).toBeDefined();
    if (tools) expect(squash(pdfText(pdf))).toContain(clave);
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
