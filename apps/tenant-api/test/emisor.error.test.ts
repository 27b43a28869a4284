import type { EmisorRegistration } from '@cr/contracts';
import { post } from './support/client';
import { PIN, issuerBody } from './support/issuer-mother';
import { makeP12 } from './support/certificates';
import { type TestApp, startTestApp } from './support/test-app';

let ctx: TestApp;
let valid: EmisorRegistration;

beforeAll(async () => {
  ctx = await startTestApp();
  valid = issuerBody();
});
afterAll(() => ctx.close());

type Mutation = (b: EmisorRegistration) => Record<string, unknown>;

function without(field: keyof EmisorRegistration): Mutation {
  return (b) => {
    const copy: Record<string, unknown> = { ...b };
    delete copy[field];
    return copy;
  };
}

const p12 = (o: Parameters<typeof makeP12>[0]) => makeP12(o).toString('base64');

const CASES: Array<[string, string, Mutation, RegExp]> = [
  ['identificacion is missing', 'identificacion', without('identificacion'), /is required/],
  [
    'identificacion is a string',
    'identificacion',
    (b) => ({ ...b, identificacion: '3101123456' }),
    /must be of type integer/,
  ],
  [
    'tipoIdentificacion is 5',
    'tipoIdentificacion',
    (b) => ({ ...b, tipoIdentificacion: 5 }),
    /must be one of 1, 2, 3, 4/,
  ],
  [
    'a física id has 8 digits',
    'identificacion',
    (b) => ({ ...b, tipoIdentificacion: 1, identificacion: 12345678 }),
    /cédula física .* 9 digits/,
  ],
  [
    'a jurídica id has 9 digits',
    'identificacion',
    (b) => ({ ...b, identificacion: 310112345 }),
    /cédula jurídica .* 10 digits/,
  ],
  [
    'a DIMEX has 10 digits',
    'identificacion',
    (b) => ({ ...b, tipoIdentificacion: 3 }),
    /DIMEX .* 11 to 12 digits/,
  ],
  [
    'a NITE has 9 digits',
    'identificacion',
    (b) => ({ ...b, tipoIdentificacion: 4, identificacion: 123456789 }),
    /NITE .* 10 digits/,
  ],
  ['codigoActividad is missing', 'codigoActividad', without('codigoActividad'), /is required/],
  [
    'codigoActividad has two decimals',
    'codigoActividad',
    (b) => ({ ...b, codigoActividad: 6201.25 }),
    /CIIU 4 code/,
  ],
  ['sucursal is 0', 'sucursal', (b) => ({ ...b, sucursal: 0 }), /must be >= 1/],
  ['nombreComercial is missing', 'nombreComercial', without('nombreComercial'), /is required/],
  [
    'nombreComercial holds a line break',
    'nombreComercial',
    (b) => ({ ...b, nombreComercial: 'Acme\r\nX-Injected: 1' }),
    /must be one line of text/,
  ],
  [
    'nombre holds a right-to-left override',
    'nombre',
    (b) => ({ ...b, nombre: 'Acme S.A.\u202Efdp.exe' }),
    /bidirectional control characters/,
  ],
  ['telefono has letters', 'telefono', (b) => ({ ...b, telefono: 'call me' }), /must match pattern/],
  [
    'correoElectronico is not an e-mail',
    'correoElectronico',
    (b) => ({ ...b, correoElectronico: 'not-an-email' }),
    /format "email"/,
  ],
  ['ubicacion is missing', 'ubicacion', without('ubicacion'), /is required/],
  [
    'ubicacion.provincia is 8',
    'ubicacion.provincia',
    (b) => ({ ...b, ubicacion: { ...b.ubicacion, provincia: '8' } }),
    /must match pattern/,
  ],
  [
    'ubicacion.canton has one digit',
    'ubicacion.canton',
    (b) => ({ ...b, ubicacion: { ...b.ubicacion, canton: '1' } }),
    /must match pattern/,
  ],
  [
    'ubicacion.direccion is too short',
    'ubicacion.direccion',
    (b) => ({ ...b, ubicacion: { ...b.ubicacion, direccion: 'x' } }),
    /fewer than 5/,
  ],
  ['ambiente is 3', 'ambiente', (b) => ({ ...b, ambiente: 3 }), /must be one of 1, 2/],
  ['usuarioHacienda is missing', 'usuarioHacienda', without('usuarioHacienda'), /is required/],
  [
    'claveHacienda is not base64',
    'claveHacienda',
    (b) => ({ ...b, claveHacienda: 'not base64!' }),
    /is not valid base64/,
  ],
  [
    'claveHacienda has broken padding',
    'claveHacienda',
    (b) => ({ ...b, claveHacienda: 'c2VjcmV' }),
    /is not valid base64/,
  ],
  ['pinCertificado is missing', 'pinCertificado', without('pinCertificado'), /is required/],
  ['certificadoHacienda is missing', 'certificadoHacienda', without('certificadoHacienda'), /is required/],
  [
    'certificadoHacienda is not base64',
    'certificadoHacienda',
    (b) => ({ ...b, certificadoHacienda: '%%%%' }),
    /is not valid base64/,
  ],
  [
    'certificadoHacienda is not a PKCS#12',
    'certificadoHacienda',
    (b) => ({ ...b, certificadoHacienda: Buffer.from('hello world, no p12').toString('base64') }),
    /is not a PKCS#12/,
  ],
  ['an unknown field is sent', 'extra', (b) => ({ ...b, extra: 1 }), /is not an allowed field/],
];

describe('POST /api/enviar/emisor: validation', () => {
  it.each(CASES)('when %s, then 400 naming %s', async (_name, field, mutate, reason) => {
    const res = await post(ctx, 'acme', '/api/enviar/emisor', mutate(valid));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('bad_request');
    expect(res.body.details).toContainEqual({ path: field, reason: expect.stringMatching(reason) });
    expect(res.body.message).toContain(field);
  });

  it('when ubicacion codes are not in the territorial table, then 400 naming the first missing level', async () => {
    if (!ctx.deps.territory) return;
    const res = await post(ctx, 'acme', '/api/enviar/emisor', {
      ...valid,
      ubicacion: { ...valid.ubicacion, distrito: '77' },
    });
    expect(res.status).toBe(400);
    expect(res.body.details).toContainEqual({
      path: 'ubicacion.distrito',
      reason: 'district 77 does not exist in canton 1-01',
    });
    const barrio = await post(ctx, 'acme', '/api/enviar/emisor', {
      ...valid,
      ubicacion: { ...valid.ubicacion, barrio: '99' },
    });
    expect(barrio.body.details).toContainEqual({
      path: 'ubicacion.barrio',
      reason: 'barrio 99 does not exist in district 1-01-01',
    });
  });

  it('when the PIN is wrong, then 400 naming pinCertificado', async () => {
    const res = await post(ctx, 'acme', '/api/enviar/emisor', { ...valid, pinCertificado: '0000' });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([
      { path: 'pinCertificado', reason: 'PIN does not open the certificate' },
    ]);
    expect(res.text).not.toContain('0000"');
  });

  // Both instants fall after 18:00 in Costa Rica, when the UTC date is already the next day's.
  it('when the certificate has expired, then 400 with its expiry in Costa Rica time', async () => {
    const certificadoHacienda = p12({
      identificacion: 3101123456,
      tipoIdentificacion: 2,
      pin: PIN,
      notBefore: new Date('2021-02-01T00:00:00Z'),
      notAfter: new Date('2025-02-01T02:30:00Z'),
    });
    const res = await post(ctx, 'acme', '/api/enviar/emisor', { ...valid, certificadoHacienda });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([
      { path: 'certificadoHacienda', reason: 'certificate expired at 2025-01-31T20:30:00-06:00' },
    ]);
  });

  it('when the certificate is not valid yet, then 400 with its start in Costa Rica time', async () => {
    const certificadoHacienda = p12({
      identificacion: 3101123456,
      tipoIdentificacion: 2,
      pin: PIN,
      notBefore: new Date('2030-06-15T03:15:30Z'),
      notAfter: new Date('2034-06-15T03:15:30Z'),
    });
    const res = await post(ctx, 'acme', '/api/enviar/emisor', { ...valid, certificadoHacienda });
    expect(res.body.details).toEqual([
      { path: 'certificadoHacienda', reason: 'certificate is not valid until 2030-06-14T21:15:30-06:00' },
    ]);
  });

  it('when the certificate belongs to another identification, then 400 naming its owner', async () => {
    const certificadoHacienda = p12({ identificacion: 3101999999, tipoIdentificacion: 2, pin: PIN });
    const res = await post(ctx, 'acme', '/api/enviar/emisor', { ...valid, certificadoHacienda });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([
      {
        path: 'certificadoHacienda',
        reason:
          'the certificate belongs to CPJ-3-101-999999, not to identificacion 3101123456 (tipoIdentificacion 2)',
      },
    ]);
  });

  it('when the .p12 holds no private key, then 400 saying so', async () => {
    const certificadoHacienda = p12({
      identificacion: 3101123456,
      tipoIdentificacion: 2,
      pin: PIN,
      withoutKey: true,
    });
    const res = await post(ctx, 'acme', '/api/enviar/emisor', { ...valid, certificadoHacienda });
    expect(res.body.details).toEqual([{ path: 'certificadoHacienda', reason: 'holds no private key' }]);
  });

  it('when the body is larger than 256 KB, then 413 payload_too_large, as the gateway answers', async () => {
    const big = await post(ctx, 'acme', '/api/enviar/emisor', {
      ...valid,
      certificadoHacienda: 'A'.repeat(300_000),
    });
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({
      error: 'payload_too_large',
      message: expect.stringMatching(/exceeds the limit/),
    });
  });

  it('when nothing was stored by the failures, then consultar finds no issuer', async () => {
    const res = await post(ctx, 'acme', '/api/consultar/emisor', { identificacion: 3101123456 });
    expect(res.status).toBe(404);
  });
});

describe('POST /api/actualizar/emisor and /api/consultar/emisor: errors', () => {
  it('when the issuer is not registered, then actualizar is 404', async () => {
    const res = await post(ctx, 'acme', '/api/actualizar/emisor', valid);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: 'not_found', message: expect.stringContaining('3101123456') });
  });

  it('when actualizar sends an invalid certificate, then 400 and the stored one is kept', async () => {
    expect((await post(ctx, 'acme', '/api/enviar/emisor', valid)).status).toBe(200);
    const res = await post(ctx, 'acme', '/api/actualizar/emisor', { ...valid, pinCertificado: '9999' });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([
      { path: 'pinCertificado', reason: 'PIN does not open the certificate' },
    ]);
  });

  it('when consultar has no identificacion, then 400 naming it', async () => {
    const res = await post(ctx, 'acme', '/api/consultar/emisor', {});
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ path: 'identificacion', reason: 'is required' }]);
  });
});
