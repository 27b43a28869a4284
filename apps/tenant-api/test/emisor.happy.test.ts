import { SecretBox } from '@cr/service-kit';
import { checkCertificateExpiries } from '../src/emisor/certificate-expiry';
import { SigningMaterialLoader } from '../src/emisor/load-signing-material';
import { post } from './support/client';
import { issuerBody } from './support/issuer-mother';
import { type TestApp, startTestApp } from './support/test-app';

let ctx: TestApp;
beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(() => ctx.close());

describe('issuers: happy path', () => {
  const body = issuerBody({ nombre: 'ACME SOCIEDAD ANONIMA' });

  it('when an issuer is registered, then it can be consulted with the spec fields and certificate data', async () => {
    const created = await post(ctx, 'acme', '/api/enviar/emisor', body);
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ status: 'success', message: 'issuer 3101123456 registered' });

    const found = await post(ctx, 'acme', '/api/consultar/emisor', { identificacion: 3101123456 });
    expect(found.status).toBe(200);
    expect(found.body).toEqual({
      status: 'success',
      data: {
        identificacion: 3101123456,
        tipoIdentificacion: 2,
        nombreComercial: 'Acme Soluciones',
        correoElectronico: 'facturas@acme.cr',
        telefono: '22223333',
        ambiente: 2,
        certificado: {
          sujeto: expect.stringContaining('serialNumber=CPJ-3-101-123456'),
          vence: expect.any(String),
        },
      },
    });
    expect(new Date(found.body.data.certificado.vence).getTime()).toBeGreaterThan(
      Date.now() + 365 * 86400000,
    );
  });

  it('when the same body is sent again, then it is an idempotent success', async () => {
    const again = await post(ctx, 'acme', '/api/enviar/emisor', body);
    expect(again.status).toBe(200);
    expect(again.body.message).toMatch(/already registered with the same data/);
  });

  it('when the same identificacion is registered with other data, then 409 conflict', async () => {
    const other = await post(ctx, 'acme', '/api/enviar/emisor', { ...body, nombreComercial: 'Otro nombre' });
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ error: 'conflict', message: expect.stringContaining('actualizar') });
  });

  it('when the issuer is updated, then the new data and certificate are stored', async () => {
    const renewed = issuerBody(
      { nombreComercial: 'Acme Renovada', ambiente: 1, pinCertificado: '98765432109876' },
      { notAfter: new Date(Date.now() + 2 * 365 * 86400000) },
    );
    const updated = await post(ctx, 'acme', '/api/actualizar/emisor', renewed);
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ status: 'success', message: 'issuer 3101123456 updated' });
    const found = await post(ctx, 'acme', '/api/consultar/emisor', { identificacion: 3101123456 });
    expect(found.body.data).toMatchObject({ nombreComercial: 'Acme Renovada', ambiente: 1 });
    const vence = new Date(found.body.data.certificado.vence).getTime();
    expect(vence).toBeLessThan(Date.now() + 3 * 365 * 86400000);
  });

  it('when nombre is omitted, then the legal name comes from the certificate', async () => {
    const fisica = issuerBody(
      { identificacion: 102340567, tipoIdentificacion: 1, usuarioHacienda: 'cpf-01-0234-0567@stag' },
      { commonName: 'MARIA PEREZ SOTO' },
    );
    expect((await post(ctx, 'acme', '/api/enviar/emisor', fisica)).status).toBe(200);
    const material = await new SigningMaterialLoader(ctx.deps).load({
      tenantId: 'acme',
      identificacion: 102340567,
    });
    expect(material.nombre).toBe('MARIA PEREZ SOTO');
  });

  it('when the raw row is read, then no secret appears in plaintext and the key id is beside it', async () => {
    const { rows } = await ctx.db.query<Record<string, unknown>>(
      "SELECT * FROM issuers WHERE tenant_id = 'acme' AND identificacion = '3101123456'",
    );
    const raw = JSON.stringify(rows[0]);
    const plainClave = 'S3cr3t-Hacienda!';
    for (const secret of [plainClave, Buffer.from(plainClave).toString('base64'), '98765432109876']) {
      expect(raw).not.toContain(secret);
    }
    const p12Prefix = issuerBody().certificadoHacienda.slice(0, 40);
    expect(raw).not.toContain(p12Prefix);
    expect(rows[0]!.secrets_key_id).toBe('t1');
    expect(SecretBox.keyIdOf(String(rows[0]!.pin_sealed))).toBe('t1');
    expect(ctx.log.text).not.toContain(plainClave);
    expect(ctx.log.text).not.toContain('98765432109876');
  });

  it('when the signing material is loaded, then the key signs and the barrio name is known', async () => {
    const material = await new SigningMaterialLoader(ctx.deps).load({
      tenantId: 'acme',
      identificacion: '3101123456',
    });
    expect(material.claveHacienda).toBe('S3cr3t-Hacienda!');
    expect(material.privateKey.asymmetricKeyType).toBe('rsa');
    expect(material.certificate.subjectSerialNumber).toBe('CPJ-3-101-123456');
    if (ctx.deps.territory) expect(material.ubicacion.nombres?.barrioNombre).toBe('Amón');
    await expect(
      new SigningMaterialLoader(ctx.deps).load({ tenantId: 'other', identificacion: '3101123456' }),
    ).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('when a certificate expires within 30 days, then a loud warning is logged at registration and by the watch', async () => {
    const soon = issuerBody(
      { identificacion: 3101999888, usuarioHacienda: 'cpj-3-101-999888@stag' },
      { notAfter: new Date(Date.now() + 10 * 86400000) },
    );
    expect((await post(ctx, 'acme', '/api/enviar/emisor', soon)).status).toBe(200);
    expect(ctx.log.text).toMatch(
      /CERTIFICATE EXPIRES SOON: issuer 3101999888 of tenant acme .* expires in 9 days/,
    );
    const before = ctx.log.lines.length;
    const count = await checkCertificateExpiries({
      db: ctx.db,
      logger: ctx.deps.logger,
      now: () => new Date(),
      certificateWarningDays: 30,
    });
    expect(count).toBe(1);
    expect(ctx.log.lines.slice(before).join('\n')).toContain('issuer 3101999888');
  });
});
