// Contract rules that mirror a facet of the v4.4 XSDs, where the looser rule let a request through whose
// XML then failed the XSD: the CodigoMoneda enumeration, NumTelefono ≥ 100, Canton/Distrito as positive
// integers, and characters XML cannot carry (the writer dropped them, under minLength).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { NUL_REASON, XML_CHAR_REASON, validate } from './ajv';
import { CODIGOS_MONEDA } from './currencies';
import { DocumentRequest } from './document.schema';
import { EmisorRegistration } from './emisor.schema';
import { LoginRequest } from './login.schema';

const XSD_DIR = process.env.HACIENDA_XSD_DIR;

const body = (overrides: Record<string, unknown> = {}, receptor: Record<string, unknown> = {}) => ({
  emisor: '3101123456',
  numeroReferencia: 1,
  codigoActividad: '6201.0',
  tipoDoc: '1',
  folioType: 'INVOICE',
  fechaEmision: '2026-05-26T12:30:59-06:00',
  receptor: { nombre: 'Pixdea SA', identificacion: { tipo: '02', numero: '3101779527' }, ...receptor },
  detalleServicio: [
    {
      numeroLinea: 1,
      codigo: '8314300000000',
      detalle: 'Servicio',
      cantidad: 1,
      unidadMedida: 'Sp',
      precioUnitario: '1000.00',
      subTotal: '1000.00',
      montoTotal: '1000.00',
      impuestoNeto: 130,
      montoTotalLinea: 1130,
      impuesto: [{ codigo: '01', codigoTarifa: '08', tarifa: '13', monto: '130.00' }],
    },
  ],
  resumenFactura: { codigoTipoMoneda: { codigoMoneda: 'CRC' }, mediosPago: [{ tipoMedioPago: '01' }] },
  ...overrides,
});

const moneda = (codigoMoneda: string) =>
  body({ resumenFactura: { codigoTipoMoneda: { codigoMoneda, tipoCambio: '500' }, mediosPago: [] } });

const proveedor = (ubicacion: Record<string, string>, telefono?: string) =>
  body({
    tipoDoc: '8',
    receptor: undefined,
    proveedor: {
      nombre: 'Juan Perez Mora',
      identificacion: { tipo: '01', numero: '112340567' },
      ubicacion: { provincia: '2', otrasSenas: 'Frente a la plaza', ...ubicacion },
      ...(telefono !== undefined ? { telefono } : {}),
    },
  });

function issuesOf(data: unknown) {
  const r = validate(DocumentRequest, data);
  return r.ok ? [] : r.issues;
}

describe('codigoMoneda', () => {
  it.each(['ZZZ', 'VES', 'XXX', 'MRU', 'crc'])('when it is %s (not in the XSD), then refused', (code) => {
    expect(issuesOf(moneda(code))).toContainEqual({
      path: 'resumenFactura.codigoTipoMoneda.codigoMoneda',
      reason: expect.stringMatching(/^must be one of "AED", /),
    });
  });

  it.each(['CRC', 'USD', 'EUR', 'VEF', 'ZWL'])('when it is %s (in the XSD), then accepted', (code) => {
    expect(issuesOf(moneda(code))).toEqual([]);
  });

  const xsdFiles =
    XSD_DIR && existsSync(XSD_DIR) ? readdirSync(XSD_DIR).filter((f) => /_V4\.4\.xsd$/.test(f)) : [];
  if (xsdFiles.length === 0 && process.env.CI === 'true')
    throw new Error(`CI=true and no v4.4 XSDs in HACIENDA_XSD_DIR (${XSD_DIR ?? 'unset'})`);
  const comprobantes = xsdFiles.filter((f) =>
    readFileSync(path.join(XSD_DIR!, f), 'utf8').includes('CodigoMonedaType'),
  );
  (comprobantes.length > 0 ? it.each(comprobantes) : it.skip.each(['(no XSDs)']))(
    'equals the CodigoMoneda enumeration of %s',
    (file) => {
      const xsd = readFileSync(path.join(XSD_DIR!, file), 'utf8');
      const type = xsd.slice(xsd.indexOf('<xs:complexType name="CodigoMonedaType">'));
      const element = type.slice(0, type.indexOf('</xs:complexType>'));
      const codes = [...element.matchAll(/<xs:enumeration value="([^"]*)"/g)].map((m) => m[1]);
      expect(codes).toHaveLength(168);
      expect([...CODIGOS_MONEDA].sort()).toEqual([...codes].sort());
    },
  );
});

describe('telefono (NumTelefono: an integer of at least 100)', () => {
  it.each(['000', '00000000099', '099', '12', '123456789012345678901', '12a4'])(
    'when a receptor telefono is %s, then refused naming it',
    (telefono) => {
      expect(issuesOf(body({}, { telefono }))).toContainEqual({
        path: 'receptor.telefono',
        reason: expect.stringMatching(/^must match /),
      });
    },
  );

  it('when a supplier telefono is 000, then refused naming it', () => {
    expect(issuesOf(proveedor({ canton: '01', distrito: '01' }, '000'))).toContainEqual({
      path: 'proveedor.telefono',
      reason: expect.stringMatching(/^must match /),
    });
  });

  it.each(['100', '0100', '22223333', '50622223333', '99999999999999999999'])(
    'when a receptor telefono is %s, then accepted',
    (telefono) => {
      expect(issuesOf(body({}, { telefono }))).toEqual([]);
    },
  );
});

describe('canton and distrito (positive integers 01 to 99)', () => {
  it.each([
    ['canton', { canton: '00', distrito: '01' }],
    ['distrito', { canton: '01', distrito: '00' }],
  ])('when a supplier %s is 00, then refused naming it', (field, ubicacion) => {
    expect(issuesOf(proveedor(ubicacion))).toContainEqual({
      path: `proveedor.ubicacion.${field}`,
      reason: expect.stringMatching(/^must match /),
    });
  });

  it('when they are 01 and 99, then accepted', () => {
    expect(issuesOf(proveedor({ canton: '01', distrito: '99' }))).toEqual([]);
  });

  it.each(['canton', 'distrito'])('when an issuer registers %s 00, then refused naming it', (field) => {
    const r = validate(EmisorRegistration, {
      ubicacion: {
        provincia: '1',
        canton: '01',
        distrito: '01',
        barrio: '01',
        direccion: 'Frente al parque',
        [field]: '00',
      },
    });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues.map((i) => i.path)).toContain(`ubicacion.${field}`);
  });
});

describe('characters XML 1.0 cannot carry', () => {
  it.each([
    ['U+0001 ×3', '\u0001\u0001\u0001'],
    ['U+001F', 'Pix\u001fdea'],
    ['U+000B', 'Pix\u000bdea'],
    ['a lone high surrogate', 'Pix\ud800dea'],
    ['a lone low surrogate', 'Pix\udc00dea'],
    ['U+FFFE', 'Pix\ufffedea'],
    ['U+FFFF', 'Pixdea\uffff'],
  ])('when receptor.nombre holds %s, then refused naming it', (_name, nombre) => {
    expect(validate(DocumentRequest, body({}, { nombre }))).toEqual({
      ok: false,
      issues: [{ path: 'receptor.nombre', reason: XML_CHAR_REASON }],
      more: 0,
    });
  });

  it('when a string holds both NUL and U+0001, then the NUL reason is given', () => {
    expect(validate(LoginRequest, { base: 'a\u0000\u0001', password: 'x' })).toEqual({
      ok: false,
      issues: [{ path: 'base', reason: NUL_REASON }],
      more: 0,
    });
  });

  it('when a key holds U+0001, then names it with the character written out', () => {
    const r = validate(LoginRequest, { base: 'acme', password: 'x', ['a\u0001b']: 1 });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues).toContainEqual({ path: 'a\\u0001b', reason: XML_CHAR_REASON });
  });

  it('when the text has tab, LF, CR, accents, an emoji (a surrogate pair) and U+007F, then accepted', () => {
    expect(issuesOf(body({}, { nombre: 'Pix\tdea\r\nÑandú 😀 \u007f' }))).toEqual([]);
  });

  it('when a body fails its schema too, then the character problem is listed with the schema ones', () => {
    const r = validate(DocumentRequest, body({ emisor: 'x' }, { nombre: '\u0001\u0001\u0001' }));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues).toContainEqual({ path: 'receptor.nombre', reason: XML_CHAR_REASON });
  });
});
