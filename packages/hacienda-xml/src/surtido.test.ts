// Surtido (package, combo) lines, ADR 0024: the components are computed like lines, the line's amounts
// are theirs at the line's quantity, bad components answer with their request path and expected value,
// and the XML (FE, TE, NC, ND, FEE) validates against the official XSD, verifies, and reads back through
// the shared §9 check the sandbox judges with.
import {
  type DocumentComponenteSurtido,
  type DocumentLinea,
  type DocumentRequest,
  openApiExamples,
} from '@cr/contracts';
import { buildSignedDocument } from './build-document';
import { checkDocument } from './document-check';
import { checkReceivedArithmetic } from './received-arithmetic';
import { openP12 } from './signing-key';
import {
  ISSUER,
  NC_REFERENCE,
  debitNote,
  exportInvoice,
  invoice,
  line,
  paymentReceipt,
  purchaseInvoice,
  surtidoLine,
} from './testing/mothers';
import { makeTestP12 } from './testing/test-certificate';
import { XSD_BY_TIPO, checkTools, xmlsecErrors, xsdErrors } from './testing/tools';
import { verifySignedXml } from './xades-verify';

const tools = checkTools(['xmllint', 'xmlsec1']);
const { p12, pin } = makeTestP12();
const key = openP12(p12, pin);
const NOW = new Date('2026-05-26T18:31:00Z');
const XSD = XSD_BY_TIPO;

function check(doc: unknown) {
  return checkDocument(doc, { issuer: ISSUER, now: new Date('2026-05-27T00:00:00Z') });
}
function issuesOf(doc: unknown) {
  const r = check(doc);
  return r.ok ? [] : r.issues;
}
const basket = invoice({ detalleServicio: [surtidoLine(1, 2), line(2)] });
/** The basket with its k-th component edited. */
function withComponent(k: number, edit: (c: DocumentComponenteSurtido) => object): DocumentRequest {
  const l = surtidoLine(1, 2);
  const comps = l.detalleSurtido!.map((c, i) => (i === k ? edit(c) : c)) as DocumentComponenteSurtido[];
  return invoice({ detalleServicio: [{ ...l, detalleSurtido: comps }] });
}
function withLine(edit: (l: DocumentLinea) => object): DocumentRequest {
  return invoice({ detalleServicio: [edit(surtidoLine(1, 2)) as DocumentLinea] });
}

describe('surtido arithmetic', () => {
  it('when two baskets are sold, then the line is the components’ amounts times 2 (hand-computed)', () => {
    const r = check(basket);
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    const l = r.value.lines[0]!;
    expect(
      l.surtido!.components.map((c) => [c.montoTotal, c.descuento, c.subTotal, c.baseImponible].map(String)),
    ).toEqual([
      ['3000', '300', '2700', '2700'],
      ['6000', '0', '6000', '6000'],
      ['2400', '0', '2400', '2640'],
    ]);
    expect(l.surtido!.components.map((c) => c.impuestos.map((t) => `${t.codigo}:${t.monto}`))).toEqual([
      ['01:27'],
      ['01:780'],
      ['02:240', '01:343.2'],
    ]);
    expect(
      [
        l.precioUnitario,
        l.montoTotal,
        l.descuento,
        l.subTotal,
        l.baseImponible,
        l.impuestoNeto,
        l.montoTotalLinea,
      ].map(String),
    ).toEqual(['11100', '22200', '0', '22200', '22680', '2780.4', '24980.4']);
    // One Impuesto per code: the components' at the line's quantity.
    expect(l.impuestos.map((t) => `${t.codigo}:${t.monto}`)).toEqual(['01:2300.4', '02:480']);
    const s = r.value.summary;
    // The desglose keeps the components' rates; the basket's goods are gravado.
    expect(
      s.totalDesgloseImpuesto.map((d) => `${d.codigo}/${d.codigoTarifa ?? ''}:${d.totalMontoImpuesto}`),
    ).toEqual(['01/02:54', '01/08:2376.4', '02/:480']);
    expect(s.totalMercanciasGravadas.toString()).toBe('22200');
    expect(s.totalServGravados.toString()).toBe('1000');
    expect(s.totalDescuentos.toString()).toBe('0');
    expect(s.totalImpuesto.toString()).toBe('2910.4');
    expect(s.totalComprobante.toString()).toBe('26110.4');
  });

  it('when a component is exento and another a service, then each counts in its own bucket', () => {
    const doc = withComponent(1, (c) => ({
      ...c,
      codigo: '8314300000000',
      impuestos: [{ codigo: '01', codigoTarifa: '10', tarifa: '0', monto: '0.00' }],
    }));
    const fixed = {
      ...doc.detalleServicio[0]!,
      impuestoNeto: 2 * (27 + 343.2 + 240),
      montoTotalLinea: 22200 + 1220.4,
    };
    const r = check({ ...doc, detalleServicio: [fixed] });
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    expect(r.value.summary.totalServExentos.toString()).toBe('12000');
    expect(r.value.summary.totalMercanciasGravadas.toString()).toBe('10200');
    expect(r.value.summary.totalVenta.toString()).toBe('22200');
  });
});

describe('surtido refusals name the path', () => {
  it.each([
    [
      'a component’s tax amount is wrong',
      withComponent(2, (c) => ({
        ...c,
        impuestos: [c.impuestos[0], { ...c.impuestos[1], monto: '312.00' }],
      })),
      'detalleServicio[0].detalleSurtido[2].impuestos[1].monto',
      '343.20000',
    ],
    [
      'a component’s subTotal is wrong',
      withComponent(0, (c) => ({ ...c, subTotal: '3000.00' })),
      'detalleServicio[0].detalleSurtido[0].subTotal',
      '2700.00000',
    ],
    [
      'a component’s montoTotal is wrong',
      withComponent(0, (c) => ({ ...c, montoTotal: '2999.00' })),
      'detalleServicio[0].detalleSurtido[0].montoTotal',
      '3000.00000',
    ],
    [
      'a component’s baseImponible leaves out the selectivo',
      withComponent(2, (c) => ({ ...c, baseImponible: '2400.00' })),
      'detalleServicio[0].detalleSurtido[2].baseImponible',
      '2640.00000',
    ],
    [
      'the line’s unit price is not the components’ sum',
      withLine((l) => ({ ...l, precioUnitario: '11000.00' })),
      'detalleServicio[0].precioUnitario',
      '11100.00000',
    ],
    [
      'the line’s impuestoNeto is not the components’',
      withLine((l) => ({ ...l, impuestoNeto: 2000 })),
      'detalleServicio[0].impuestoNeto',
      '2780.40000',
    ],
  ] as Array<[string, DocumentRequest, string, string]>)(
    'when %s, then 400 at its path with the expected value',
    (_n, doc, path, expected) => {
      expect(issuesOf(doc)).toEqual(expect.arrayContaining([expect.objectContaining({ path, expected })]));
    },
  );

  it.each([
    [
      'only two components',
      withLine((l) => ({ ...l, detalleSurtido: l.detalleSurtido!.slice(0, 2) })),
      'detalleServicio[0].detalleSurtido',
      /at least 3/,
    ],
    [
      'three components with two CABYS codes',
      withComponent(1, (c) => ({ ...c, codigo: '2149400000400' })),
      'detalleServicio[0].detalleSurtido',
      /3 different codes/,
    ],
    [
      '21 components',
      withLine((l) => ({ ...l, detalleSurtido: Array(21).fill(l.detalleSurtido![1]) })),
      'detalleServicio[0].detalleSurtido',
      /more than 20/,
    ],
    [
      'the line also has its own impuesto',
      withLine((l) => ({
        ...l,
        impuesto: [{ codigo: '01', codigoTarifa: '08', tarifa: '13', monto: '1.00' }],
      })),
      'detalleServicio[0].impuesto',
      /no taxes of its own/,
    ],
    [
      'the line has a discount of its own',
      withLine((l) => ({ ...l, descuentos: [{ montoDescuento: '1.00', codigoDescuento: '07' }] })),
      'detalleServicio[0].descuentos',
      /per component/,
    ],
    [
      'the line has no industry code (tipo 03)',
      withLine((l) => ({ ...l, codigoComercial: undefined })),
      'detalleServicio[0].codigoComercial',
      /tipo 03/,
    ],
    [
      'a component has no tax',
      withComponent(1, (c) => ({ ...c, impuestos: [] })),
      'detalleServicio[0].detalleSurtido[1].impuestos',
      /fewer than 1|must NOT have fewer/,
    ],
    [
      'a component has a factor tax (08)',
      withComponent(1, (c) => ({ ...c, impuestos: [{ codigo: '08', monto: '1.00' }] })),
      'detalleServicio[0].detalleSurtido[1].impuestos[0].codigo',
      /must be one of/,
    ],
    [
      'a component tax is exonerated',
      withComponent(1, (c) => ({ ...c, impuestos: [{ ...c.impuestos[0], exoneracion: {} }] })),
      'detalleServicio[0].detalleSurtido[1].impuestos[0].exoneracion',
      /not an allowed field/,
    ],
    [
      'a component’s IVA rate does not match its code',
      withComponent(1, (c) => ({ ...c, impuestos: [{ ...c.impuestos[0], tarifa: '4' }] })),
      'detalleServicio[0].detalleSurtido[1].impuestos[0].tarifa',
      /must be 13/,
    ],
    [
      'a component discount 99 has no description',
      withComponent(0, (c) => ({ ...c, descuentos: [{ montoDescuento: '300.00', codigoDescuento: '99' }] })),
      'detalleServicio[0].detalleSurtido[0].descuentos[0].descuentoOtros',
      /required/,
    ],
    [
      'a component’s quantity is 0',
      withComponent(0, (c) => ({ ...c, cantidad: 0 })),
      'detalleServicio[0].detalleSurtido[0].cantidad',
      /.+/,
    ],
    [
      'a component’s CABYS is short',
      withComponent(0, (c) => ({ ...c, codigo: '21494' })),
      'detalleServicio[0].detalleSurtido[0].codigo',
      /pattern/,
    ],
    [
      'a purchase invoice line is a surtido',
      purchaseInvoice({ detalleServicio: [surtidoLine(1, 2)] }),
      'detalleServicio[0].detalleSurtido',
      /not allowed in a purchase invoice/,
    ],
    [
      'a payment receipt line is a surtido',
      paymentReceipt({ detalleServicio: [surtidoLine(1, 2)] }),
      'detalleServicio[0].detalleSurtido',
      /not allowed in a payment receipt/,
    ],
    [
      'a line has neither impuesto nor detalleSurtido',
      invoice({ detalleServicio: [{ ...line(1), impuesto: undefined }] }),
      'detalleServicio[0].impuesto',
      /required/,
    ],
  ] as Array<[string, DocumentRequest, string, RegExp]>)(
    'when %s, then 400 naming %#',
    (_n, doc, path, reason) => {
      const issues = issuesOf(doc);
      const at = issues.filter((i) => i.path === path);
      expect({ issues, matched: at.some((i) => reason.test(i.reason)) }).toMatchObject({ matched: true });
    },
  );
});

/** An export basket: goods components at 0 % (exports carry no IVA), no specific-tax data. */
function exportBasket(): DocumentLinea {
  const l = surtidoLine(1, 1);
  const zero = { codigo: '01' as const, codigoTarifa: '01' as const, tarifa: '0', monto: '0.00' };
  return {
    ...l,
    partidaArancelaria: '200799000000',
    impuestoNeto: 240,
    montoTotalLinea: 11340,
    detalleSurtido: l.detalleSurtido!.map((c, i) => ({
      ...c,
      baseImponible: undefined,
      impuestos: i === 2 ? [c.impuestos[0]!, zero] : [zero],
    })) as DocumentComponenteSurtido[],
  };
}

const CASES: Array<[string, DocumentRequest]> = [
  ['FE with two baskets and a plain line', basket],
  ['TE with a basket', invoice({ tipoDoc: '4', receptor: '', detalleServicio: [surtidoLine(1, 1)] })],
  [
    'NC returning a basket',
    invoice({
      tipoDoc: '3',
      folioType: 'CREDIT_NOTE',
      informacionReferencia: NC_REFERENCE,
      detalleServicio: [surtidoLine(1, 1)],
    }),
  ],
  ['ND charging a basket', debitNote({ detalleServicio: [surtidoLine(1, 3)] })],
  ['FEE exporting a basket', exportInvoice({ detalleServicio: [exportBasket()] })],
];

describe('golden surtido documents', () => {
  it.each(CASES)(
    'when %s is built and signed, then it validates with the XSD, verifies and reads back',
    (_n, doc) => {
      const signed = buildSignedDocument({ document: doc, issuer: ISSUER, key, now: NOW });
      expect(signed.xml).toContain(
        '<DetalleSurtido><LineaDetalleSurtido><CodigoCABYSSurtido>2149400000400</CodigoCABYSSurtido>',
      );
      const own = verifySignedXml(signed.xml);
      expect(own.findings.filter((f) => f.severity === 'error')).toEqual([]);
      expect(checkReceivedArithmetic(signed.xml)).toEqual([]);
      if (!tools.ok) return;
      expect(xsdErrors(signed.xml, XSD[signed.tipo]!)).toBe('');
      expect(xmlsecErrors(signed.xml)).toBe('');
    },
  );

  it('when the FE is written, then the line’s Impuesto entries carry code and sum only, the components their rates', () => {
    const signed = buildSignedDocument({ document: basket, issuer: ISSUER, key, now: NOW });
    expect(signed.xml).toContain(
      '<BaseImponible>22680.00000</BaseImponible><Impuesto><Codigo>01</Codigo><Monto>2300.40000</Monto></Impuesto><Impuesto><Codigo>02</Codigo><Monto>480.00000</Monto></Impuesto><ImpuestoAsumidoEmisorFabrica>0.00000</ImpuestoAsumidoEmisorFabrica>',
    );
    expect(signed.xml).toContain(
      '<DescuentoSurtido><MontoDescuentoSurtido>300.00000</MontoDescuentoSurtido><CodigoDescuentoSurtido>07</CodigoDescuentoSurtido></DescuentoSurtido><SubTotalSurtido>2700.00000</SubTotalSurtido><BaseImponibleSurtido>2700.00000</BaseImponibleSurtido><ImpuestoSurtido><CodigoImpuestoSurtido>01</CodigoImpuestoSurtido><CodigoTarifaIVASurtido>02</CodigoTarifaIVASurtido><TarifaSurtido>1.00</TarifaSurtido><MontoImpuestoSurtido>27.00000</MontoImpuestoSurtido></ImpuestoSurtido>',
    );
  });

  it('when a component’s tax is tampered with in the XML, then the shared §9 check (the sandbox) names it', () => {
    const signed = buildSignedDocument({ document: basket, issuer: ISSUER, key, now: NOW });
    const tampered = signed.xml.replace(
      '<MontoImpuestoSurtido>780.00000<',
      '<MontoImpuestoSurtido>700.00000<',
    );
    expect(checkReceivedArithmetic(tampered)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          path: 'LineaDetalle[1]/DetalleSurtido/LineaDetalleSurtido[2]/Impuesto[1]/Monto',
          expected: '780.00000',
        }),
        expect.objectContaining({
          path: 'LineaDetalle[1]/Impuesto[01]/Monto (Σ MontoImpuestoSurtido × Cantidad)',
        }),
      ]),
    );
  });
});

describe('the OpenAPI surtido example', () => {
  it('when the engine checks it, then it has no issue and its XML validates and verifies', () => {
    const doc = openApiExamples.surtidoRequestExample;
    const issuer = { ...ISSUER, numeroIdentificacion: doc.emisor };
    const r = checkDocument(doc, { issuer, now: new Date('2026-06-03T00:00:00Z') });
    expect(r.ok ? [] : r.issues).toEqual([]);
    const signed = buildSignedDocument({ document: doc, issuer, key, now: new Date('2026-06-03T00:00:00Z') });
    expect(checkReceivedArithmetic(signed.xml)).toEqual([]);
    if (!tools.ok) return;
    expect(xsdErrors(signed.xml, XSD[signed.tipo]!)).toBe('');
    expect(xmlsecErrors(signed.xml)).toBe('');
  });
});
