import { validate } from './ajv';
import { DocumentRequest } from './document.schema';

function invoice(): Record<string, unknown> {
  return {
    emisor: '3102950875',
    numeroReferencia: 33,
    codigoActividad: '6201.0',
    tipoDoc: '1',
    folioType: 'INVOICE',
    fechaEmision: '2026-05-26T12:30:59-06:00',
    receptor: { nombre: 'Pixdea SA', identificacion: { tipo: '02', numero: '3101779527' } },
    detalleServicio: [
      {
        numeroLinea: 1,
        codigo: '8314300000000',
        detalle: 'Servicios de desarrollo',
        cantidad: 1,
        unidadMedida: 'Sp',
        precioUnitario: '1250.00',
        subTotal: '1250.00',
        montoTotal: '1250.00',
        impuestoNeto: 162.5,
        montoTotalLinea: 1412.5,
        impuesto: [{ codigo: '01', codigoTarifa: '08', tarifa: '13', monto: '162.50' }],
      },
    ],
    resumenFactura: {
      codigoTipoMoneda: { codigoMoneda: 'USD', tipoCambio: '455.14' },
      mediosPago: [{ tipoMedioPago: '01' }],
    },
  };
}

describe('DocumentRequest', () => {
  it('when the invoice follows the spec, then it is valid', () => {
    expect(validate(DocumentRequest, invoice())).toMatchObject({ ok: true });
  });

  // A field of several shapes (anyOf) is reported by the shape the value has, not by every shape it is not.
  it.each([
    [
      'a receptor without nombre',
      { receptor: { identificacion: { tipo: '02', numero: '3101779527' } } },
      [{ path: 'receptor.nombre', reason: 'is required' }],
    ],
    [
      'a receptor of no shape at all',
      { receptor: 42 },
      [{ path: 'receptor', reason: 'must be of type string or object' }],
    ],
    [
      'a means of payment that is no code',
      {
        resumenFactura: { codigoTipoMoneda: { codigoMoneda: 'CRC' }, mediosPago: [{ tipoMedioPago: '42' }] },
      },
      [
        {
          path: 'resumenFactura.mediosPago[0].tipoMedioPago',
          reason: 'must be one of "01", "02", "03", "04", "05", "06", "07", "99"',
        },
      ],
    ],
    [
      'one reference without razon',
      {
        tipoDoc: '3',
        folioType: 'CREDIT_NOTE',
        informacionReferencia: {
          tipoDocumento: '01',
          numero: '50626052600310295087500100001010000000033159073080',
          fechaEmision: '2026-05-26T12:30:59-06:00',
          codigo: '01',
        },
      },
      [{ path: 'informacionReferencia.razon', reason: 'is required' }],
    ],
    [
      'the second of a list of references without razon',
      {
        tipoDoc: '3',
        folioType: 'CREDIT_NOTE',
        informacionReferencia: [
          {
            tipoDocumento: '01',
            numero: '50626052600310295087500100001010000000033159073080',
            fechaEmision: '2026-05-26T12:30:59-06:00',
            codigo: '01',
            razon: 'Anula',
          },
          {
            tipoDocumento: '01',
            numero: '50626052600310295087500100001010000000034159073080',
            fechaEmision: '2026-05-26T12:30:59-06:00',
            codigo: '01',
          },
        ],
      },
      [{ path: 'informacionReferencia[1].razon', reason: 'is required' }],
    ],
  ])('when the body has %s, then the one problem is named', (_what, change, issues) => {
    expect(validate(DocumentRequest, { ...invoice(), ...change })).toEqual({ ok: false, issues, more: 0 });
  });

  it('when a ticket has no receptor, then the empty string is accepted', () => {
    expect(validate(DocumentRequest, { ...invoice(), tipoDoc: '4', receptor: '' }).ok).toBe(true);
  });

  it('when amounts are not decimal strings, then each path is named', () => {
    const doc = invoice();
    const line = (doc.detalleServicio as Record<string, unknown>[])[0]!;
    line.precioUnitario = '12,50';
    line.subTotal = 12.5;
    line.codigo = '83143';
    const r = validate(DocumentRequest, doc);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const paths = r.issues.map((i) => i.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'detalleServicio[0].precioUnitario',
        'detalleServicio[0].subTotal',
        'detalleServicio[0].codigo',
      ]),
    );
  });

  it('when the activity code is not in NNNN.N form, then it is rejected', () => {
    const r = validate(DocumentRequest, { ...invoice(), codigoActividad: '620100' });
    expect(r.ok).toBe(false);
  });

  it('when an unknown field is sent, then it is named', () => {
    const r = validate(DocumentRequest, { ...invoice(), condicionVnta: '01' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues).toContainEqual({ path: 'condicionVnta', reason: 'is not an allowed field' });
  });
});
