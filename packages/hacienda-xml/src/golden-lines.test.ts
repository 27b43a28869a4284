// Issue 12's remaining fields: TotalIVADevuelto (health services paid by card), Impuesto/MontoExportacion
// (FEE, NC, ND) and the payment receipt's line without CABYS or unit. Each is checked by the engine (400
// paths and expected values), and each golden document is built, signed, validated against the official
// XSD (xmllint), verified (xmlsec1) and read back by the shared §9 check the sandbox judges with (ADR 0024).
import type { DocumentRequest } from '@cr/contracts';
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
} from './testing/mothers';
import { taxedLine } from './testing/tax-mothers';
import { makeTestP12 } from './testing/test-certificate';
import { XSD_BY_TIPO, checkTools, xmlsecErrors, xsdErrors } from './testing/tools';
import { verifySignedXml } from './xades-verify';

const tools = checkTools(['xmllint', 'xmlsec1']);
const { p12, pin } = makeTestP12();
const key = openP12(p12, pin);
const NOW = new Date('2026-05-26T18:31:00Z');
const XSD = XSD_BY_TIPO;
const GOODS = '2132100000100';
/** Consulta de médico general: a health service (CABYS 931…) at the 4 % rate. */
const CONSULTA = '9310100000300';
const CARD = { codigoTipoMoneda: { codigoMoneda: 'CRC' }, mediosPago: [{ tipoMedioPago: '02' as const }] };

function check(doc: unknown) {
  return checkDocument(doc, { issuer: ISSUER, now: new Date('2026-05-27T00:00:00Z') });
}
function issuesOf(doc: unknown) {
  const r = check(doc);
  return r.ok ? [] : r.issues;
}

/** A medical consultation (4 %) and an ordinary service (13 %), as an invoice paid as `resumen` says. */
function clinicInvoice(resumen: DocumentRequest['resumenFactura'] = CARD): DocumentRequest {
  return invoice({
    detalleServicio: [
      line(1, { cabys: CONSULTA, precio: '25000.00', codigoTarifa: '04', tarifa: '4' }),
      line(2, { precio: '1000.00' }),
    ],
    resumenFactura: resumen,
  });
}

describe('TotalIVADevuelto: the IVA of health services paid by card', () => {
  it('when a consultation is paid by card alone, then its IVA is returned and TotalComprobante is net of it', () => {
    const r = check(clinicInvoice());
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    const s = r.value.summary;
    // 4 % of 25 000 is returned; the 13 % of the other service is not.
    expect(s.totalIVADevuelto.toString()).toBe('1000');
    expect(s.totalImpuesto.toString()).toBe('1130');
    // TotalComprobante = TotalVentaNeta + TotalImpuesto + TotalOtrosCargos − TotalIVADevuelto.
    expect(s.totalComprobante.toString()).toBe('26130');
  });

  it.each([
    ['in cash', { codigoTipoMoneda: { codigoMoneda: 'CRC' }, mediosPago: [{ tipoMedioPago: '01' }] }],
    [
      'partly by card, partly in cash',
      {
        codigoTipoMoneda: { codigoMoneda: 'CRC' },
        mediosPago: [
          { tipoMedioPago: '02', totalMedioPago: '20000.00' },
          { tipoMedioPago: '01', totalMedioPago: '7130.00' },
        ],
      },
    ],
  ] as Array<[string, DocumentRequest['resumenFactura']]>)(
    'when the consultation is paid %s, then nothing is returned',
    (_how, resumen) => {
      const r = check(clinicInvoice(resumen));
      if (!r.ok) throw new Error(JSON.stringify(r.issues));
      expect(r.value.summary.totalIVADevuelto.toString()).toBe('0');
      expect(r.value.summary.totalComprobante.toString()).toBe('27130');
    },
  );

  it('when the client sends a wrong totalIVADevuelto or totalComprobante, then 400 paths with the expected values', () => {
    const doc = clinicInvoice({ ...CARD, totalIVADevuelto: '0.00', totalComprobante: '27130.00' });
    expect(issuesOf(doc)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'resumenFactura.totalIVADevuelto', expected: '1000.00000' }),
        expect.objectContaining({ path: 'resumenFactura.totalComprobante', expected: '26130.00000' }),
      ]),
    );
    expect(
      issuesOf(clinicInvoice({ ...CARD, totalIVADevuelto: '1000.00', totalComprobante: '26130' })),
    ).toEqual([]);
  });

  it('when a ticket is paid by card, then the same rule applies (the TE XSD has TotalIVADevuelto)', () => {
    const r = check({ ...clinicInvoice(), tipoDoc: '4', receptor: '' });
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    expect(r.value.summary.totalIVADevuelto.toString()).toBe('1000');
  });

  it('when a purchase invoice buys a consultation by card, then nothing is returned (its XSD has no TotalIVADevuelto)', () => {
    const r = check(
      purchaseInvoice({ detalleServicio: clinicInvoice().detalleServicio, resumenFactura: CARD }),
    );
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    expect(r.value.summary.totalIVADevuelto.toString()).toBe('0');
  });

  it('when the written TotalIVADevuelto is tampered with, then the shared §9 check (the sandbox) names it', () => {
    const signed = buildSignedDocument({ document: clinicInvoice(), issuer: ISSUER, key, now: NOW });
    expect(signed.xml).toContain('<TotalIVADevuelto>1000.00000</TotalIVADevuelto>');
    const tampered = signed.xml
      .replace('<TotalIVADevuelto>1000.00000<', '<TotalIVADevuelto>0.00000<')
      .replace('<TotalComprobante>26130.00000<', '<TotalComprobante>27130.00000<');
    expect(checkReceivedArithmetic(tampered)).toEqual([
      {
        kind: 'resumen',
        path: 'ResumenFactura/TotalIVADevuelto',
        found: '0.00000',
        expected: '1000.00000',
      },
    ]);
    // Paid in cash, a returned IVA is out of place.
    const cash = signed.xml.replace('<TipoMedioPago>02<', '<TipoMedioPago>01<');
    expect(checkReceivedArithmetic(cash)).toEqual([
      expect.objectContaining({ path: 'ResumenFactura/TotalIVADevuelto', expected: '0.00000' }),
    ]);
  });
});

/** A selectivo (02) on an exported goods line: not charged (0 %), its amount recorded as MontoExportacion. */
const exportedWithSelectivo = () => {
  const l = taxedLine(1, {
    cabys: GOODS,
    cantidad: 10,
    precio: '2500.00',
    impuestos: [
      { codigo: '01', codigoTarifa: '01', tarifa: '0' },
      { codigo: '02', tarifa: '0' },
    ],
    extra: { partidaArancelaria: '220421000000' },
  });
  l.impuesto[1] = { ...l.impuesto[1]!, montoExportacion: '2500.00' };
  return l;
};

describe('MontoExportacion', () => {
  it('when an export invoice carries it on a goods line’s selectivo, then it is written after Monto and in no total', () => {
    const doc = exportInvoice({ detalleServicio: [exportedWithSelectivo()] });
    expect(issuesOf(doc)).toEqual([]);
    const signed = buildSignedDocument({ document: doc, issuer: ISSUER, key, now: NOW });
    expect(signed.xml).toContain(
      '<Impuesto><Codigo>02</Codigo><Tarifa>0.00</Tarifa><Monto>0.00000</Monto><MontoExportacion>2500.00000</MontoExportacion></Impuesto>',
    );
    expect(signed.xml).toContain('<TotalComprobante>25000.00000</TotalComprobante>');
  });

  it.each([
    [
      'an invoice',
      invoice({ detalleServicio: [{ ...exportedWithSelectivo(), partidaArancelaria: undefined }] }),
      /not allowed in an invoice/,
    ],
    [
      'an IVA tax',
      exportInvoice({
        detalleServicio: [
          (() => {
            const l = exportedWithSelectivo();
            l.impuesto[0] = { ...l.impuesto[0]!, montoExportacion: '1.00' };
            l.impuesto[1] = { ...l.impuesto[1]!, montoExportacion: undefined };
            return l;
          })(),
        ],
      }),
      /special tax/,
    ],
    [
      'a service line',
      exportInvoice({
        detalleServicio: [
          (() => {
            const l = exportedWithSelectivo();
            return { ...l, codigo: '8314300000000', partidaArancelaria: undefined };
          })(),
        ],
      }),
      /only for goods/,
    ],
  ] as Array<[string, DocumentRequest, RegExp]>)(
    'when it is on %s, then 400 naming the tax’s montoExportacion',
    (_where, doc, reason) => {
      const issues = issuesOf(doc).filter((i) => i.path.endsWith('.montoExportacion'));
      expect(issues).toEqual([expect.objectContaining({ reason: expect.stringMatching(reason) })]);
      expect(issues[0]!.path).toMatch(/^detalleServicio\[0\]\.impuesto\[[01]\]\.montoExportacion$/);
    },
  );

  it('when it is not an amount, then the contract names it', () => {
    const l = exportedWithSelectivo();
    l.impuesto[1] = { ...l.impuesto[1]!, montoExportacion: '-5' };
    expect(issuesOf(exportInvoice({ detalleServicio: [l] })).map((i) => i.path)).toContain(
      'detalleServicio[0].impuesto[1].montoExportacion',
    );
  });
});

const CASES: Array<[string, DocumentRequest]> = [
  ['FE: a consultation paid by card, its IVA returned (TotalIVADevuelto)', clinicInvoice()],
  ['TE: a consultation paid by card, its IVA returned', { ...clinicInvoice(), tipoDoc: '4', receptor: '' }],
  [
    'NC: reverses a card-paid consultation with its returned IVA',
    { ...clinicInvoice(), tipoDoc: '3', folioType: 'CREDIT_NOTE', informacionReferencia: NC_REFERENCE },
  ],
  [
    'FEE: MontoExportacion on an exported goods line’s selectivo',
    exportInvoice({ detalleServicio: [exportedWithSelectivo()] }),
  ],
  [
    'ND: MontoExportacion on an exported goods line’s selectivo, to a foreign receptor',
    debitNote({ receptor: exportInvoice().receptor, detalleServicio: [exportedWithSelectivo()] }),
  ],
  ['REP: a payment line without CABYS or unit', paymentReceipt()],
];

describe('golden documents of the remaining v4.4 fields', () => {
  it.each(CASES)(
    'when %s is built and signed, then it validates with the XSD, verifies and reads back',
    (_n, doc) => {
      const signed = buildSignedDocument({ document: doc, issuer: ISSUER, key, now: NOW });
      const own = verifySignedXml(signed.xml);
      expect(own.findings.filter((f) => f.severity === 'error')).toEqual([]);
      expect(checkReceivedArithmetic(signed.xml)).toEqual([]);
      if (!tools.ok) return;
      expect(xsdErrors(signed.xml, XSD[signed.tipo]!)).toBe('');
      expect(xmlsecErrors(signed.xml)).toBe('');
    },
  );
});
