import { validate } from './ajv';
import { EmisorQuery, EmisorRegistration } from './emisor.schema';

const valid = {
  identificacion: 3101123456,
  tipoIdentificacion: 2,
  codigoActividad: 6201.0,
  sucursal: 1,
  nombreComercial: 'Acme',
  telefono: '22223333',
  correoElectronico: 'facturas@acme.cr',
  ubicacion: { provincia: '1', canton: '01', distrito: '01', barrio: '01', direccion: 'Avenida 1, calle 2' },
  ambiente: 2,
  usuarioHacienda: 'cpj-3-101-123456@stag.comprobanteselectronicos.go.cr',
  claveHacienda: 'c2VjcmV0',
  pinCertificado: '1234',
  certificadoHacienda: 'MIIF',
};

describe('EmisorRegistration', () => {
  it('when the body is complete, then it is valid', () => {
    expect(validate(EmisorRegistration, valid).ok).toBe(true);
  });

  it.each([
    ['a line feed', 'Acme\nS.A.'],
    ['a carriage return', 'Acme\rS.A.'],
    ['a line separator', 'Acme\u2028S.A.'],
    ['a right-to-left override', 'Acme \u202Efdp.exe'],
    ['a first-strong isolate', 'Acme \u2068S.A.'],
  ])('when a name holds %s, then it is refused as not one line of text', (_name, text) => {
    for (const field of ['nombre', 'nombreComercial']) {
      const r = validate(EmisorRegistration, { ...valid, [field]: text });
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.issues).toEqual([{ path: field, reason: expect.stringMatching(/^must be one line of text/) }]);
    }
  });

  it('when a name has accents, ñ, punctuation and a right-to-left script, then it is valid', () => {
    const r = validate(EmisorRegistration, {
      ...valid,
      nombre: 'Café Ñandú & Hijos, S.A. (شركة)',
      nombreComercial: 'Ñandú «Café»',
    });
    expect(r.ok).toBe(true);
  });

  it('when enums are wrong, then the reason lists the allowed values', () => {
    const r = validate(EmisorRegistration, { ...valid, tipoIdentificacion: 5, ambiente: 3 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues).toEqual(
      expect.arrayContaining([
        { path: 'tipoIdentificacion', reason: 'must be one of 1, 2, 3, 4' },
        { path: 'ambiente', reason: 'must be one of 1, 2' },
      ]),
    );
  });

  it('when a nested field is missing, then its dotted path is named', () => {
    const { barrio: _b, ...ubicacion } = valid.ubicacion;
    const r = validate(EmisorRegistration, { ...valid, ubicacion });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues).toContainEqual({ path: 'ubicacion.barrio', reason: 'is required' });
  });

  it('when the query has no identificacion, then it is refused', () => {
    expect(validate(EmisorQuery, {}).ok).toBe(false);
    expect(validate(EmisorQuery, { identificacion: 3101123456 }).ok).toBe(true);
  });
});
