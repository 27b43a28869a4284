import type { DocumentRequest } from '@cr/contracts';
import fc from 'fast-check';
import { buildSignedDocument } from './build-document';
import { checkDocument } from './document-check';
import { DocumentError } from './errors';
import { Clave, Consecutivo, Identificacion } from './identifiers';
import { openP12 } from './signing-key';
import { ISSUER, invoice, line } from './testing/mothers';
import { makeTestP12 } from './testing/test-certificate';
import { parseComprobante } from './comprobante-parse';

const { p12, pin } = makeTestP12();
const key = openP12(p12, pin);
const NC_REF = {
  tipoDocumento: '01' as const,
  numero: '50626052600310295087500100001010000000033159073080',
  fechaEmision: '2026-05-26T12:30:59-06:00',
  codigo: '01' as const,
  razon: 'Factura erronea',
};

function issuesOf(doc: unknown) {
  const r = checkDocument(doc, { issuer: ISSUER, now: new Date('2026-05-27T00:00:00Z') });
  return r.ok ? [] : r.issues;
}

const RULES: Array<[string, DocumentRequest, string, RegExp]> = [
  ['an invoice has no receptor', invoice({ receptor: '' }), 'receptor', /required/],
  [
    'a credit note has no receptor',
    invoice({ tipoDoc: '3', receptor: '', informacionReferencia: NC_REF }),
    'receptor',
    /required/,
  ],
  [
    'an invoice has a foreign receptor',
    invoice({ receptor: { nombre: 'John Doe', identificacion: { tipo: '05', numero: 'P123' } } }),
    'receptor.identificacion.tipo',
    /only allowed in a ticket/,
  ],
  [
    'a ticket has a national receptor',
    invoice({
      tipoDoc: '4',
      receptor: { nombre: 'Ana Mora', identificacion: { tipo: '01', numero: '112340567' } },
    }),
    'receptor.identificacion.tipo',
    /absent|foreign/,
  ],
  [
    'a cédula física has 10 digits',
    invoice({ receptor: { nombre: 'Ana Mora', identificacion: { tipo: '01', numero: '0112340567' } } }),
    'receptor.identificacion.numero',
    /9 digits/,
  ],
  [
    'tarifa does not match codigoTarifa',
    invoice({ detalleServicio: [{ ...line(1), impuesto: [{ ...line(1).impuesto[0]!, tarifa: '12' }] }] }),
    'detalleServicio[0].impuesto[0].tarifa',
    /must be 13/,
  ],
  [
    'the CABYS code is short',
    invoice({ detalleServicio: [{ ...line(1), codigo: '83143' }] }),
    'detalleServicio[0].codigo',
    /format|pattern/,
  ],
  [
    'the activity code is 6 digits',
    invoice({ codigoActividad: '620100' }),
    'codigoActividad',
    /format|pattern/,
  ],
  ['a credit note has no reference', invoice({ tipoDoc: '3' }), 'informacionReferencia', /required/],
  [
    'a credit note references a bad clave',
    invoice({
      tipoDoc: '3',
      informacionReferencia: { ...NC_REF, numero: '5062605260031029508750010000101000000003315907308' },
    }),
    'informacionReferencia.numero',
    /clave/,
  ],
  [
    'two payment means do not add up',
    invoice({
      resumenFactura: {
        codigoTipoMoneda: { codigoMoneda: 'CRC' },
        mediosPago: [
          { tipoMedioPago: '01', totalMedioPago: '100' },
          { tipoMedioPago: '02', totalMedioPago: '100' },
        ],
      },
    }),
    'resumenFactura.mediosPago',
    /add up/,
  ],
  [
    'two payment means lack totals',
    invoice({
      resumenFactura: {
        codigoTipoMoneda: { codigoMoneda: 'CRC' },
        mediosPago: [{ tipoMedioPago: '01' }, { tipoMedioPago: '02', totalMedioPago: '1130' }],
      },
    }),
    'resumenFactura.mediosPago[0].totalMedioPago',
    /required/,
  ],
  [
    'payment code 99 has no text',
    invoice({
      resumenFactura: { codigoTipoMoneda: { codigoMoneda: 'CRC' }, mediosPago: [{ tipoMedioPago: '99' }] },
    }),
    'resumenFactura.mediosPago[0].medioPagoOtros',
    /required/,
  ],
  ['condicionVenta 99 has no text', invoice({ condicionVenta: '99' }), 'condicionVentaOtros', /required/],
  ['credit has no term', invoice({ condicionVenta: '02' }), 'plazoCredito', /required/],
  [
    'other charge 99 has no text',
    invoice({ otrosCargos: [{ tipoDocumento: '99', detalle: 'x', montoCargo: '1', porcentaje: '0' }] }),
    'otrosCargos[0].tipoDocumentoOtros',
    /required/,
  ],
  [
    'exoneration 03 has no article',
    invoice({ detalleServicio: [line(1, { exoneracion: { porcentaje: 13, tipo: '03' } })] }),
    'detalleServicio[0].impuesto[0].exoneracion.articulo',
    /required/,
  ],
  [
    'exoneration exceeds the rate',
    invoice({
      detalleServicio: [
        {
          ...line(1),
          impuesto: [
            {
              ...line(1, { exoneracion: { porcentaje: 13 } }).impuesto[0]!,
              exoneracion: {
                ...line(1, { exoneracion: { porcentaje: 13 } }).impuesto[0]!.exoneracion!,
                porcentajeExoneracion: 20,
              },
            },
          ],
        },
      ],
    }),
    'detalleServicio[0].impuesto[0].exoneracion.porcentajeExoneracion',
    /exceed/,
  ],
  [
    'exoneration type 01 in an invoice',
    invoice({ detalleServicio: [line(1, { exoneracion: { porcentaje: 13, tipo: '01' } })] }),
    'detalleServicio[0].impuesto[0].exoneracion.tipoDocumento',
    /credit notes/,
  ],
  [
    'USD has no exchange rate',
    invoice({
      resumenFactura: { codigoTipoMoneda: { codigoMoneda: 'USD' }, mediosPago: [{ tipoMedioPago: '01' }] },
    }),
    'resumenFactura.codigoTipoMoneda.tipoCambio',
    /required/,
  ],
  [
    'CRC has a rate other than 1',
    invoice({
      resumenFactura: {
        codigoTipoMoneda: { codigoMoneda: 'CRC', tipoCambio: '500' },
        mediosPago: [{ tipoMedioPago: '01' }],
      },
    }),
    'resumenFactura.codigoTipoMoneda.tipoCambio',
    /must be 1/,
  ],
  [
    'line numbers skip',
    invoice({ detalleServicio: [line(1), line(3)] }),
    'detalleServicio[1].numeroLinea',
    /consecutive/,
  ],
  ['the emisor is another issuer', invoice({ emisor: '3101999999' }), 'emisor', /issuer/],
  [
    'a ticket carries the receptor activity',
    invoice({ tipoDoc: '4', receptor: '', codigoActividadReceptor: '6201.0' }),
    'codigoActividadReceptor',
    /ticket/,
  ],
];

describe('document rules', () => {
  it.each(RULES)('when %s, then the issue names the path', (_name, doc, path, reason) => {
    const issues = issuesOf(doc);
    const match = issues.find((i) => i.path === path);
    expect({ path: match?.path, issues }).toMatchObject({ path });
    expect(match!.reason).toMatch(reason);
  });

  it('when client amounts are wrong, then every mismatch has its path and the expected value', () => {
    const l = line(1);
    const doc = invoice({
      detalleServicio: [
        {
          ...l,
          subTotal: '999',
          montoTotal: '999',
          impuestoNeto: 1,
          montoTotalLinea: 1,
          impuesto: [{ ...l.impuesto[0]!, monto: '1' }],
        },
      ],
      resumenFactura: {
        codigoTipoMoneda: { codigoMoneda: 'CRC' },
        mediosPago: [{ tipoMedioPago: '01', totalMedioPago: '5' }],
        totalOtrosCargos: '3',
      },
    });
    expect(issuesOf(doc)).toEqual(
      expect.arrayContaining([
        { path: 'detalleServicio[0].subTotal', reason: expect.any(String), expected: '1000.00000' },
        { path: 'detalleServicio[0].montoTotal', reason: expect.any(String), expected: '1000.00000' },
        { path: 'detalleServicio[0].impuesto[0].monto', reason: expect.any(String), expected: '130.00000' },
        { path: 'detalleServicio[0].impuestoNeto', reason: expect.any(String), expected: '130.00000' },
        { path: 'detalleServicio[0].montoTotalLinea', reason: expect.any(String), expected: '1130.00000' },
        { path: 'resumenFactura.totalOtrosCargos', reason: expect.any(String), expected: '0.00000' },
        {
          path: 'resumenFactura.mediosPago[0].totalMedioPago',
          reason: expect.any(String),
          expected: '1130.00000',
        },
      ]),
    );
  });

  it('when amounts are within the two-decimal tolerance, then they are accepted', () => {
    const l = line(1, { cantidad: 3, precio: '33.33' });
    expect(
      issuesOf(
        invoice({
          detalleServicio: [{ ...l, impuestoNeto: 13.0, impuesto: [{ ...l.impuesto[0]!, monto: '13.00' }] }],
        }),
      ),
    ).toEqual([]);
  });

  it('when the public entry point gets a bad document, then it throws DocumentError with all issues', () => {
    try {
      buildSignedDocument({ document: invoice({ receptor: '', codigoActividad: '1' }), issuer: ISSUER, key });
      throw new Error('expected a DocumentError');
    } catch (err) {
      expect(err).toBeInstanceOf(DocumentError);
      expect((err as DocumentError).code).toBe('bad_request');
      expect((err as DocumentError).issues.length).toBeGreaterThan(0);
    }
  });

  it('when any input is given, then the library only ever throws DocumentError', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.anything(),
          fc.anything().map((x) => ({ ...invoice(), detalleServicio: x })),
          fc
            .tuple(fc.anything(), fc.string())
            .map(([r, f]) => ({ ...invoice(), receptor: r, fechaEmision: f })),
          fc.tuple(fc.anything(), fc.anything()).map(([a, b]) => ({
            ...invoice(),
            detalleServicio: [{ ...line(1), cantidad: a, precioUnitario: b }],
          })),
          fc.string().map((f) => ({
            ...invoice(),
            fechaEmision: f,
            informacionReferencia: { ...NC_REF, fechaEmision: f },
          })),
        ),
        (input) => {
          try {
            buildSignedDocument({ document: input, issuer: ISSUER, key });
          } catch (err) {
            expect(err).toBeInstanceOf(DocumentError);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('when random valid documents are signed, then the XML round-trips the totals', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            cantidad: fc.integer({ min: 1, max: 50 }),
            cents: fc.integer({ min: 1, max: 10_000_000 }),
            goods: fc.boolean(),
          }),
          { minLength: 1, maxLength: 10 },
        ),
        (specs) => {
          const doc = invoice({
            detalleServicio: specs.map((s, i) =>
              line(i + 1, {
                cantidad: s.cantidad,
                precio: (s.cents / 100).toFixed(2),
                ...(s.goods ? { cabys: '2132100000100' } : {}),
              }),
            ),
          });
          const signed = buildSignedDocument({ document: doc, issuer: ISSUER, key });
          const parsed = parseComprobante(signed.xml);
          expect(parsed.clave).toBe(signed.clave);
          expect(parsed.lineCount).toBe(specs.length);
          expect(parsed.totalComprobante).toBe(signed.totals.totalComprobante);
          expect(parsed.totalImpuesto).toBe(signed.totals.totalImpuesto);
        },
      ),
      { numRuns: 40 },
    );
  });
});

// The clave holds FechaEmision as ddmmyy in Costa Rica time, read back as 20yy: only 2000..2099 fits.
describe('the exoneration document date', () => {
  it.each([
    ['a bare date (its midnight in Costa Rica)', '2026-01-15'],
    ['a date-time without offset', '2026-01-15T00:00:00'],
  ])('when it is %s, then FechaEmisionEX is that midnight with the offset', (_n, fecha) => {
    const exonerated = line(1, { exoneracion: { porcentaje: 13 } });
    const impuestos = exonerated.impuesto as Array<{ exoneracion?: { fechaEmision: string } }>;
    impuestos[0]!.exoneracion!.fechaEmision = fecha;
    const signed = buildSignedDocument({
      document: invoice({ detalleServicio: [exonerated] }),
      issuer: ISSUER,
      key,
      now: new Date('2026-05-27T00:00:00Z'),
    });
    expect(signed.xml).toContain('<FechaEmisionEX>2026-01-15T00:00:00-06:00</FechaEmisionEX>');
  });

  it('when it is a date that does not exist, then the issue names the field', () => {
    const exonerated = line(1, { exoneracion: { porcentaje: 13 } });
    const impuestos = exonerated.impuesto as Array<{ exoneracion?: { fechaEmision: string } }>;
    impuestos[0]!.exoneracion!.fechaEmision = '2026-02-31';
    expect(issuesOf(invoice({ detalleServicio: [exonerated] }))).toEqual([
      {
        path: 'detalleServicio[0].impuesto[0].exoneracion.fechaEmision',
        reason: 'is not a valid date or date-time',
      },
    ]);
  });

  // The invoice mother is dated 2026-05-26T12:30:59-06:00: the 26th in Costa Rica.
  const exoneratedOn = (fecha: string, tipo: string, fechaEmision = '2026-05-26T12:30:59-06:00') => {
    const exonerated = line(1, { exoneracion: { porcentaje: 13, tipo } });
    const impuestos = exonerated.impuesto as Array<{ exoneracion?: { fechaEmision: string } }>;
    impuestos[0]!.exoneracion!.fechaEmision = fecha;
    return invoice({ fechaEmision, detalleServicio: [exonerated] });
  };

  it.each([
    ['04 (confirmed with Hacienda besides)', '04'],
    ['09 (never looked up)', '09'],
  ])('when it is a later day than the document and the type is %s, then the field is refused', (_n, tipo) => {
    expect(issuesOf(exoneratedOn('2026-05-27', tipo))).toEqual([
      {
        path: 'detalleServicio[0].impuesto[0].exoneracion.fechaEmision',
        reason:
          "must not be after the document's fechaEmision (2026-05-26 in Costa Rica): an exoneration issued later cannot cover the document",
      },
    ]);
  });

  it('when the document is 23:30 of the day before in Costa Rica (already that day in UTC), then it is refused', () => {
    expect(issuesOf(exoneratedOn('2026-05-26', '09', '2026-05-26T05:30:00Z'))).toEqual([
      {
        path: 'detalleServicio[0].impuesto[0].exoneracion.fechaEmision',
        reason: expect.stringContaining('(2026-05-25 in Costa Rica)'),
      },
    ]);
  });

  it.each([
    ['the same day at a later hour', '2026-05-26T23:00:00-06:00'],
    ['a UTC instant of the same Costa Rica day (the 27th in UTC)', '2026-05-27T00:00:00Z'],
    ['an earlier day', '2024-01-15'],
  ])('when it is %s, then the document is accepted', (_n, fecha) => {
    expect(issuesOf(exoneratedOn(fecha, '09'))).toEqual([]);
  });
});

describe('other charges of type 99', () => {
  it('when one has only the fields of the service contract, then its detalle is its TipoDocumentoOTROS', () => {
    const doc = invoice({
      otrosCargos: [
        { tipoDocumento: '99', detalle: 'Cargo de servicio', montoCargo: '100.00', porcentaje: '10' },
      ],
    });
    const signed = buildSignedDocument({
      document: doc,
      issuer: ISSUER,
      key,
      now: new Date('2026-05-27T00:00:00Z'),
    });
    expect(signed.xml).toContain(
      '<TipoDocumentoOC>99</TipoDocumentoOC><TipoDocumentoOTROS>Cargo de servicio</TipoDocumentoOTROS>',
    );
  });

  it('when tipoDocumentoOtros is given, then it is written rather than the detalle', () => {
    const doc = invoice({
      otrosCargos: [
        {
          tipoDocumento: '99',
          detalle: 'Cargo de servicio',
          tipoDocumentoOtros: 'Empaque especial',
          montoCargo: '100.00',
          porcentaje: '10',
        },
      ],
    });
    const signed = buildSignedDocument({
      document: doc,
      issuer: ISSUER,
      key,
      now: new Date('2026-05-27T00:00:00Z'),
    });
    expect(signed.xml).toContain('<TipoDocumentoOTROS>Empaque especial</TipoDocumentoOTROS>');
  });
});

describe('fechaEmision and the clave', () => {
  /** A clock past every date these tests write, so that only the clave's years judge them. */
  const END = new Date('9999-12-31T23:59:59Z');
  const NOW_AT_MIDNIGHT_UTC = new Date('2026-05-27T00:00:00Z');
  const CLAVE_YEARS =
    'must be from 2000-01-01 to 2099-12-31 in Costa Rica time (the clave holds a two-digit year)';

  it.each([
    '0050-06-15T10:00:00-06:00',
    '1999-12-31T23:00:00-06:00',
    '2100-01-01T00:00:00-06:00',
    '9999-12-31T23:59:59-06:00',
    '2000-01-01T05:59:59Z',
    '2099-12-31T23:59:59-07:00',
  ])('when fechaEmision is %s, then it is the one issue: the clave cannot hold its year', (fecha) => {
    expect(issuesOf(invoice({ fechaEmision: fecha }))).toEqual([
      { path: 'fechaEmision', reason: CLAVE_YEARS },
    ]);
  });

  it.each([
    [
      'six minutes ahead',
      '2026-05-27T00:06:01Z',
      /^is 7 minutes ahead of the current time \(2026-05-26T18:00:00-06:00\)/,
    ],
    [
      'a UTC time sent without its offset (read as Costa Rica time)',
      '2026-05-27T00:00:00',
      /without an offset is read as Costa Rica time/,
    ],
    ['next year', '2027-05-26T00:00:00-06:00', /minutes ahead/],
  ])(
    'when fechaEmision is %s, then it is refused: a document is issued when it is signed',
    (_n, fecha, reason) => {
      const issues = checkDocument(invoice({ fechaEmision: fecha }), {
        issuer: ISSUER,
        now: NOW_AT_MIDNIGHT_UTC,
      });
      expect(issues.ok ? [] : issues.issues.map((i) => [i.path, reason.test(i.reason)])).toEqual([
        ['fechaEmision', true],
      ]);
    },
  );

  it('when fechaEmision is up to five minutes ahead (a client clock), then it is accepted as written', () => {
    const doc = invoice({ fechaEmision: '2026-05-27T00:05:00Z' });
    expect(checkDocument(doc, { issuer: ISSUER, now: NOW_AT_MIDNIGHT_UTC }).ok).toBe(true);
  });

  it('when a credit note is dated outside the years, then its reference is not also judged against it', () => {
    const doc = invoice({
      tipoDoc: '3',
      fechaEmision: '0050-06-15T10:00:00-06:00',
      informacionReferencia: NC_REF,
    });
    expect(issuesOf(doc)).toEqual([{ path: 'fechaEmision', reason: CLAVE_YEARS }]);
  });

  it.each([
    ['2000-01-01T00:00:00-06:00', '010100', '2000-01-01T00:00:00-06:00'],
    ['2099-12-31T23:59:59-06:00', '311299', '2099-12-31T23:59:59-06:00'],
    ['2000-01-01T06:00:00Z', '010100', '2000-01-01T00:00:00-06:00'],
    ['2100-01-01T05:59:59Z', '311299', '2099-12-31T23:59:59-06:00'],
  ])('when fechaEmision is %s, then the clave carries %s and the XML %s', (fecha, ddmmyy, written) => {
    const signed = buildSignedDocument({
      document: invoice({ fechaEmision: fecha }),
      issuer: ISSUER,
      key,
      now: END,
    });
    expect(signed.clave.slice(3, 9)).toBe(ddmmyy);
    expect(parseComprobante(signed.xml).fechaEmision).toBe(written);
  });

  it('when any date-time of the years 0000..9999 is given, then the clave matches it or fechaEmision is refused', () => {
    fc.assert(
      fc.property(
        // Any year, and more often the two edges and the years in between.
        fc.oneof(
          ...[
            ['0000-01-01T00:00:00Z', '9999-12-31T23:59:59Z'],
            ['1999-12-31T00:00:00Z', '2000-01-02T00:00:00Z'],
            ['2000-01-01T00:00:00Z', '2100-01-01T00:00:00Z'],
            ['2099-12-31T00:00:00Z', '2100-01-02T00:00:00Z'],
          ].map(([min, max]) => fc.date({ min: new Date(min!), max: new Date(max!), noInvalidDate: true })),
        ),
        (instant) => {
          const fecha = instant.toISOString();
          try {
            const signed = buildSignedDocument({
              document: invoice({ fechaEmision: fecha }),
              issuer: ISSUER,
              key,
              now: END,
            });
            const written = parseComprobante(signed.xml).fechaEmision;
            const [yyyy, mm, dd] = written.slice(0, 10).split('-');
            expect(signed.clave.slice(3, 9)).toBe(`${dd}${mm}${yyyy!.slice(2)}`);
            expect(yyyy!.slice(0, 2)).toBe('20');
          } catch (err) {
            expect(err).toBeInstanceOf(DocumentError);
            expect((err as DocumentError).message).toMatch(/^fechaEmision: /);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('when Clave.generate is given a date outside the years, then it refuses rather than write another date', () => {
    const consecutivo = new Consecutivo({ sucursal: 1, terminal: 1, tipo: '01', numero: 1 });
    const emisor = new Identificacion('02', '3101123456');
    expect(() =>
      Clave.generate({ fechaEmision: new Date('2100-01-01T06:00:00Z'), emisor, consecutivo }),
    ).toThrow(/^clave: fechaEmision must be from 2000-01-01 to 2099-12-31/);
    expect(
      Clave.generate({ fechaEmision: new Date('2100-01-01T05:59:59Z'), emisor, consecutivo }).parts.fecha,
    ).toBe('311299');
  });
});
